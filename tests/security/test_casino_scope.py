"""Staff belong to casinos (issue 20, §4): every endpoint x every role x own and other casino.

Two casinos hold the same things (a chemin de fer table and a Macao table with open sessions, a
player seated and one standing, a shoe and a coup, a game coup, an alert, a report run). Each
role works for the first; the group auditor for none and reads both. For every URL that names
a casino's row, each role asks for the other casino's row: a read answers 404 where the role
reads that page at home, a write 403, and nothing is written. The same request on the own casino
is never a 404: the scope hides the other casino, not one's own.

Lists (tables, corrections, game coups, the dashboard, alerts, the cage, reports) are checked to
name the own casino's rows and never the other's. A test keeps the endpoint table complete: a new
URL that takes a casino's row must be added here.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from audit.models import AuditEvent
from cage.services import cage_buy_in as cage_sells
from compliance.models import CashReport
from compliance.services import DocumentIn
from ledger.models import Transaction
from ledger.services import cage_buy_in
from older_games.services import game_coup_start
from reports.models import ReportRun
from review.models import Alert
from tables import models as m
from tables import services
from tests.factories import (
    BankTurnFactory,
    CasinoFactory,
    CoupFactory,
    CroupierAssignmentFactory,
    PlayerFactory,
    SeatFactory,
    ShoeFactory,
    SpectatorFactory,
    TableFactory,
    TableSessionFactory,
    UserFactory,
    builtin_profile,
)

pytestmark = pytest.mark.django_db

ROLES = ("croupier", "pit_boss", "accountant", "cashier", "group_auditor", "compliance")


@dataclass
class World:
    """What one casino holds, the same in both."""

    casino: m.Casino
    table: m.Table
    game_table: m.Table
    session: m.TableSession
    game_session: m.TableSession
    player: m.Player
    seat: m.Seat
    spectator: m.Spectator
    coup: m.Coup
    game_coup: m.GameCoup
    alert: Alert
    run: ReportRun
    void: m.VoidRequest
    cash_report: CashReport
    flow_alert: Alert


def _game_coup(table: m.Table, tag: str) -> m.GameCoup:
    """A Macao coup begun by the table's own dealer (two players seated, with chips)."""
    dealer = UserFactory(username=f"dealer-{tag}", roles=["croupier"])
    CroupierAssignmentFactory(user=dealer, table=table)
    session = services.table_session_open(actor=dealer, table=table)
    for number in (1, 2):
        player = PlayerFactory(casino=table.casino)
        cage_buy_in(casino=table.casino, player=player, amount=1000, actor=None, key=f"buy:{player.pk}")
        services.seat_take(actor=dealer, session=session, player=player, number=number)
    return game_coup_start(actor=dealer, session=session).coup


def _world(tag: str) -> World:
    casino = CasinoFactory(name=f"Casino {tag}")
    table = TableFactory(casino=casino, name=f"Table {tag}")
    game_table = TableFactory(
        casino=casino,
        name=f"Macao {tag}",
        profile=builtin_profile("classic"),
        seat_count=9,
        game=m.Table.Game.MACAO,
        game_settings={"unit": 10},
    )
    session = TableSessionFactory(table=table)
    player = PlayerFactory(casino=casino, display_name=f"Player {tag}")
    seat = SeatFactory(session=session, player=player, number=1)
    spectator = SpectatorFactory(session=session, player=PlayerFactory(casino=casino))
    bank_turn = BankTurnFactory(session=session, seat=seat)  # the banker is the seated player
    coup = CoupFactory(shoe=ShoeFactory(session=session), bank_turn=bank_turn)
    now = timezone.now()
    game_coup = _game_coup(game_table, tag)
    alert = Alert.objects.create(
        casino=casino,
        kind=Alert.Kind.FLAGGED_COUP,
        subject_key=f"coup:{coup.pk}",
        summary=f"Alert {tag}",
        table=table,
        coup=coup,
        raised_at=now,
    )
    run = ReportRun.objects.create(
        kind="levy",
        casino=casino,
        start=now.date(),
        end=now.date(),
        format="csv",
        requested_label=f"run {tag}",
        requested_at=now,
    )
    game_session = game_coup.session
    # the player bought in above the day's report threshold at the cage: a report to file
    document = DocumentIn("passport", f"P-{tag}-0001")
    cage_sells(actor=None, casino=casino, player=player, amount=10_001, key=f"cash:{tag}", document=document)
    void = m.VoidRequest.objects.create(  # a void above the casino's limit, waiting for a second pit boss
        casino=casino,
        coup=coup,
        stakes=500,
        limit=100,
        reason="misdeal",
        requested_by=UserFactory(username=f"asker-{tag}", roles=["pit_boss"], casinos=[casino]),
        requested_at=now,
    )
    # a money-flow alert between the banker and the spectator (its evidence page reads the pair)
    today = now.date().isoformat()
    flow_alert = Alert.objects.create(
        casino=casino,
        kind=Alert.Kind.MONEY_FLOW,
        subject_key=f"flow:{casino.pk}:{spectator.player_id}>{player.pk}:{today}:{today}",
        summary=f"Flow {tag}",
        raised_at=now,
    )
    return World(
        casino,
        table,
        game_table,
        session,
        game_session,
        player,
        seat,
        spectator,
        coup,
        game_coup,
        alert,
        run,
        void,
        CashReport.objects.get(player=player),
        flow_alert,
    )


@pytest.fixture
def worlds() -> tuple[World, World]:
    return _world("own"), _world("other")


def _staff(role: str, own: World) -> Any:
    """A member of staff of ``role`` working for the own casino (the group auditor for none); the
    croupier on shift at both of its tables."""
    user = UserFactory(username=role, roles=[role], casinos=[] if role == "group_auditor" else [own.casino])
    if role == "croupier":
        CroupierAssignmentFactory(user=user, table=own.table)
        CroupierAssignmentFactory(user=user, table=own.game_table)
    return user


# ------------------------------------------------------------------------------ the endpoints
Kw = Callable[[World], dict[str, Any]]
Body = Callable[[World], dict[str, Any]]


def _t(w: World) -> dict[str, Any]:
    return {"table_id": w.table.pk}


def _g(w: World) -> dict[str, Any]:
    return {"table_id": w.game_table.pk}


def _c(w: World) -> dict[str, Any]:
    return {"coup_id": w.coup.pk}


def _gc(w: World) -> dict[str, Any]:
    return {"coup_id": w.game_coup.pk}


def _tc(w: World) -> dict[str, Any]:
    return {"table_id": w.table.pk, "coup_id": w.coup.pk}


def _gtc(w: World) -> dict[str, Any]:
    return {"table_id": w.game_table.pk, "coup_id": w.game_coup.pk}


def _none(w: World) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str  # GET: a read; POST: a write
    kwargs: Kw
    body: Body = _none
    api: bool = False  # JSON body and an Idempotency-Key
    #: asks for a report: a read of the casino's books, which the group auditor may ask of any casino
    asks_report: bool = False


def _api(name: str, method: str, kwargs: Kw, body: Body = _none) -> Endpoint:
    return Endpoint(name, method, kwargs, body, api=True)


_TODAY = dt.date.today().isoformat()

ENDPOINTS: tuple[Endpoint, ...] = (
    # ---------------------------------------------------------------- the croupier's screens
    Endpoint("floor:table", "GET", _t),
    *(
        Endpoint(f"floor:{name}", "POST", _t)
        for name in (
            "session_open",
            "session_close",
            "pause",
            "resume",
            "seat_take",
            "spectator_join",
            "shoe_start",
            "shoe_close",
            "bank_first",
            "bank_offer",
            "bank_auction",
            "bank_new",
            "bank_pass",
            "bank_house",
            "bank_share",
            "series_begin",
            "series_finish",
            "bank_share_out",
            "coup_start",
        )
    ),
    Endpoint("floor:seat_leave", "POST", lambda w: {"table_id": w.table.pk, "seat_id": w.seat.pk}),
    Endpoint(
        "floor:spectator_leave", "POST", lambda w: {"table_id": w.table.pk, "spectator_id": w.spectator.pk}
    ),
    Endpoint("floor:coup_step", "POST", _tc),
    Endpoint("floor:coup_restore", "POST", _tc),
    Endpoint("floor:coup_amend", "POST", lambda w: {**_tc(w), "index": 1}),
    Endpoint("floor:coup_withdraw", "POST", _tc),
    Endpoint("floor:game", "GET", _g),
    Endpoint("floor:game_start", "POST", _g),
    Endpoint("floor:game_fund", "POST", _g),
    Endpoint("floor:game_step", "POST", _gtc),
    Endpoint("floor:game_undo", "POST", _gtc),
    Endpoint("floor:game_void", "POST", _gtc, lambda w: {"reason": "misdeal"}),
    # ---------------------------------------------------------------- the API: tables and coups
    _api("api:table", "GET", _t),
    _api("api:players", "GET", _t),
    *(
        _api(f"api:{name}", "POST", _t)
        for name in (
            "session-open",
            "session-close",
            "session-pause",
            "session-resume",
            "players",
            "seats",
            "spectators",
            "shoe",
            "shoe-close",
            "bank-first",
            "bank-offer",
            "bank-pass",
            "bank-auction",
            "bank-house",
            "bank-new",
            "bank-share",
            "bank-share-out",
            "coups",
        )
    ),
    _api("api:seat-leave", "POST", lambda w: {"table_id": w.table.pk, "number": 1}),
    _api("api:spectator-leave", "POST", lambda w: {"table_id": w.table.pk, "spectator_id": w.spectator.pk}),
    _api("api:coup", "GET", _c),
    _api("api:coup-record", "GET", _c),
    _api("api:coup-steps", "POST", _c, lambda w: {"step": 0, "kind": "bet", "amount": 10, "seat": 1}),
    _api(
        "api:coup-step-amend",
        "POST",
        lambda w: {**_c(w), "index": 1},
        lambda w: {"reason": "typo", "amount": 10},
    ),
    _api("api:correction", "POST", _c),
    _api("api:correction-approve", "POST", _c),
    _api("api:correction-reject", "POST", _c, lambda w: {"reason": "wrong"}),
    _api("api:coup-void", "POST", _c, lambda w: {"reason": "misdeal"}),
    _api("api:coup-withdraw", "POST", _c),
    _api("api:table-game", "GET", _g),
    _api("api:table-game-coups", "POST", _g),
    _api("api:game-coup", "GET", _gc),
    _api("api:game-coup-steps", "POST", _gc, lambda w: {"expected_steps": 0, "kind": "stake"}),
    _api("api:game-coup-undo", "POST", _gc, lambda w: {"expected_steps": 0}),
    _api("api:game-coup-void", "POST", _gc, lambda w: {"reason": "misdeal"}),
    _api("api:session-fund-dues", "POST", lambda w: {"session_id": w.game_session.pk}),
    # ---------------------------------------------------------------- the cage
    Endpoint("cage:players", "GET", lambda w: {"casino_id": w.casino.pk}),
    Endpoint("cage:player_row", "GET", lambda w: {"casino_id": w.casino.pk, "player_id": w.player.pk}),
    Endpoint("cage:history", "GET", lambda w: {"player_id": w.player.pk}),
    Endpoint(
        "cage:buy_in",
        "POST",
        lambda w: {"casino_id": w.casino.pk},
        lambda w: {"player": w.player.pk, "amount": 10, "key": "k1", "confirm": "1"},
    ),
    Endpoint(
        "cage:cash_out",
        "POST",
        lambda w: {"casino_id": w.casino.pk},
        lambda w: {"player": w.player.pk, "amount": 10, "key": "k2", "confirm": "1"},
    ),
    Endpoint(
        "cage:player_new",
        "POST",
        lambda w: {"casino_id": w.casino.pk},
        lambda w: {"display_name": "Newcomer"},
    ),
    _api("cage-api:buy-in", "POST", _none, lambda w: {"player": w.player.pk, "amount": 10}),
    _api("cage-api:cash-out", "POST", _none, lambda w: {"player": w.player.pk, "amount": 10}),
    _api("cage-api:player-balance", "GET", lambda w: {"player_id": w.player.pk}),
    _api("cage-api:player-history", "GET", lambda w: {"player_id": w.player.pk}),
    _api("cage-api:player-cash-today", "GET", lambda w: {"player_id": w.player.pk}),
    _api("review-api:player-rating", "GET", lambda w: {"player_id": w.player.pk}),
    # ---------------------------------------------------------------- the back office
    Endpoint("review:coup", "GET", lambda w: {"pk": w.coup.pk}),
    Endpoint("review:coup_approve", "POST", lambda w: {"pk": w.coup.pk}),
    Endpoint("review:coup_reject", "POST", lambda w: {"pk": w.coup.pk}, lambda w: {"reason": "wrong"}),
    Endpoint("review:coup_void", "POST", lambda w: {"pk": w.coup.pk}, lambda w: {"reason": "misdeal"}),
    Endpoint("review:void_approve", "POST", lambda w: {"pk": w.void.pk}),
    Endpoint("review:void_refuse", "POST", lambda w: {"pk": w.void.pk}, lambda w: {"reason": "no"}),
    _api("api:void-approve", "POST", lambda w: {"request_id": w.void.pk}),
    _api("api:void-refuse", "POST", lambda w: {"request_id": w.void.pk}, lambda w: {"reason": "no"}),
    Endpoint("review:alert_acknowledge", "POST", lambda w: {"pk": w.alert.pk}, lambda w: {"note": "seen"}),
    Endpoint("review:flow_alert", "GET", lambda w: {"pk": w.flow_alert.pk}),
    Endpoint("review:cash_report_file", "POST", lambda w: {"pk": w.cash_report.pk}),
    Endpoint("review:player", "GET", lambda w: {"pk": w.player.pk}),
    Endpoint("review:game_coups", "GET", lambda w: {"table_id": w.game_table.pk}),
    Endpoint("review:game_coup", "GET", lambda w: {"pk": w.game_coup.pk}),
    Endpoint(
        "review:game_coup_void", "POST", lambda w: {"pk": w.game_coup.pk}, lambda w: {"reason": "misdeal"}
    ),
    Endpoint("review:report_run", "GET", lambda w: {"run_id": w.run.pk}),
    Endpoint("review:report_run_file", "GET", lambda w: {"run_id": w.run.pk}),
    Endpoint(
        "review:report_runs",
        "POST",
        _none,
        lambda w: {
            "kind": "levy",
            "preset": "custom",
            "start": _TODAY,
            "end": _TODAY,
            "casino": w.casino.pk,
            "fmt": "csv",
        },
        asks_report=True,
    ),
    _api("reports-api:run", "GET", lambda w: {"run_id": w.run.pk}),
    _api("reports-api:run-file", "GET", lambda w: {"run_id": w.run.pk}),
    Endpoint(
        "reports-api:runs",
        "POST",
        _none,
        lambda w: {"kind": "levy", "format": "csv", "start": _TODAY, "end": _TODAY, "casino": w.casino.pk},
        api=True,
        asks_report=True,
    ),
)

#: URL parameters that name a casino's row: a URL with one of them must be in ENDPOINTS
_ROW_PARAMETERS = {
    "table_id",
    "coup_id",
    "pk",
    "casino_id",
    "player_id",
    "run_id",
    "session_id",
    "request_id",
}
#: routes that take a row but are no casino's (the administrator's own site)
_NOT_A_CASINO_ROW = ("admin:",)


def _named_routes(resolver: URLResolver, prefix: str = "") -> list[tuple[str, set[str]]]:
    found: list[tuple[str, set[str]]] = []
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            namespace = f"{prefix}{entry.namespace}:" if entry.namespace else prefix
            found += [
                (name, params | set(entry.pattern.converters))
                for name, params in _named_routes(entry, namespace)
            ]
        elif isinstance(entry, URLPattern) and entry.name:
            found.append((f"{prefix}{entry.name}", set(entry.pattern.converters)))
    return found


def test_every_route_that_names_a_casino_s_row_is_in_the_matrix() -> None:
    """A new URL taking a table, coup, player, run… must be added to ENDPOINTS (and so be checked)."""
    routes = {
        name
        for name, params in _named_routes(get_resolver())
        if params & _ROW_PARAMETERS and not name.startswith(_NOT_A_CASINO_ROW)
    }
    covered = {e.name for e in ENDPOINTS}
    assert routes - covered == set()
    assert covered - {name for name, _ in _named_routes(get_resolver())} == set()  # no stale entry


def _ask(client: Client, endpoint: Endpoint, world: World) -> int:
    url = reverse(endpoint.name, kwargs=endpoint.kwargs(world))
    if endpoint.method == "GET":
        return client.get(url).status_code
    if endpoint.api:
        return client.post(
            url, endpoint.body(world), content_type="application/json", HTTP_IDEMPOTENCY_KEY="matrix-key"
        ).status_code
    return client.post(url, endpoint.body(world)).status_code


def _written() -> tuple[int, ...]:
    """What a refused write must leave as it was: audit events, money, steps, coups, players, runs."""
    return (
        AuditEvent.objects.count(),
        Transaction.objects.count(),
        m.CoupStep.objects.count(),
        m.GameStep.objects.count(),
        m.Coup.objects.count(),
        m.GameCoup.objects.count(),
        m.Player.objects.count(),
        m.Seat.objects.count(),
        ReportRun.objects.count(),
        Alert.objects.filter(acknowledged_at__isnull=False).count(),
        m.VoidRequest.objects.count(),
        m.VoidRequest.objects.exclude(state=m.VoidRequest.State.PENDING).count(),
        CashReport.objects.filter(status=CashReport.Status.FILED).count(),
    )


# The roles are subtests of one test per endpoint rather than parameters of their own: each role is
# still reported on its own, and its "nothing written" is counted from just before its request, but
# the two casinos are laid out once per endpoint instead of once per role (six times fewer: most of
# the matrix's time was the worlds' laying out, not the requests).
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=lambda e: f"{e.method} {e.name}")
def test_another_casino_s_row_is_not_found_for_a_read_and_refused_for_a_write(
    endpoint: Endpoint, worlds: tuple[World, World], subtests: pytest.Subtests
) -> None:
    own, other = worlds
    for role in ROLES:
        with subtests.test(role=role):
            client = Client()
            client.force_login(_staff(role, own))
            before = _written()
            at_home = _ask(client, endpoint, own) if endpoint.method == "GET" else None
            status = _ask(client, endpoint, other)
            if endpoint.method == "GET":
                # where the role reads the page at home, the other casino's row does not exist for
                # him; a page his role never reads stays a 403 (the same answer as at home). The
                # group auditor reads every casino: the other's is his too.
                if role == "group_auditor":
                    assert status == at_home
                else:
                    assert at_home is not None
                    assert status == (403 if at_home == 403 else 404), (at_home, status)
            elif role == "group_auditor" and endpoint.asks_report:
                assert status in (202, 302), status  # his report of the other casino: asked for
            else:
                assert status == 403, status
                assert _written() == before  # nothing written, not even an audit event


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.method == "GET"], ids=lambda e: e.name)
def test_one_s_own_casino_is_never_hidden(
    endpoint: Endpoint, worlds: tuple[World, World], subtests: pytest.Subtests
) -> None:
    own, _other = worlds
    for role in ROLES:
        with subtests.test(role=role):
            client = Client()
            client.force_login(_staff(role, own))
            assert _ask(client, endpoint, own) != 404


# ------------------------------------------------------------------------------------ the lists
LISTS: tuple[tuple[str, set[str], Callable[[World], str]], ...] = (
    # (route, the roles that read it, what of a casino it shows)
    (
        "api:tables",
        {"croupier", "pit_boss", "accountant", "group_auditor"},
        lambda w: f'"name":"{w.table.name}"',
    ),
    ("api:corrections", {"pit_boss", "accountant", "group_auditor"}, lambda w: f'"coup":{w.coup.pk},'),
    (
        "api:game-coups",
        {"croupier", "pit_boss", "accountant", "group_auditor"},
        lambda w: f'"id":{w.game_coup.pk},',
    ),
    ("floor:mine", {"pit_boss", "accountant", "group_auditor"}, lambda w: w.table.name),
    ("review:dashboard", {"pit_boss", "accountant", "group_auditor"}, lambda w: w.table.name),
    ("review:alerts", {"pit_boss"}, lambda w: w.alert.summary),
    ("cage:index", {"cashier", "pit_boss", "accountant", "group_auditor"}, lambda w: w.casino.name),
    ("review:exports", {"pit_boss", "accountant", "group_auditor"}, lambda w: w.run.requested_label),
    ("reports-api:runs", {"pit_boss", "accountant", "group_auditor"}, lambda w: f'"id":{w.run.pk},'),
    ("api:void-requests", {"pit_boss", "accountant", "group_auditor"}, lambda w: f'"id":{w.void.pk},'),
    ("review:queue", {"pit_boss"}, lambda w: f'href="/review/coups/{w.coup.pk}/"'),
    ("review:compliance", {"compliance"}, lambda w: f'data-testid="report-{w.cash_report.pk}"'),
)


@pytest.mark.parametrize(("route", "readers", "shown"), LISTS, ids=[r for r, _, _ in LISTS])
def test_a_list_shows_one_s_own_casino_and_never_another(
    route: str,
    readers: set[str],
    shown: Callable[[World], str],
    worlds: tuple[World, World],
    subtests: pytest.Subtests,
) -> None:
    own, other = worlds
    if route == "api:corrections":
        m.Coup.objects.filter(pk__in=[own.coup.pk, other.coup.pk]).update(
            state=m.Coup.State.AWAITING_APPROVAL
        )
    for role in ROLES:
        with subtests.test(role=role):
            client = Client()
            client.force_login(_staff(role, own))
            answer = client.get(reverse(route), follow=True)
            text = answer.content.decode()
            # refused, or not this list (a cashier's empty "my tables", a croupier's table)
            if role not in readers:
                assert answer.status_code in (200, 403)
                assert shown(other) not in text
                continue
            assert answer.status_code == 200
            assert shown(own) in text
            if role == "group_auditor":
                assert shown(other) in text
            else:
                assert shown(other) not in text


def test_a_croupier_is_not_assigned_to_a_casino_he_does_not_work_for(worlds: tuple[World, World]) -> None:
    from django.core.exceptions import ValidationError

    own, other = worlds
    croupier = _staff("croupier", own)
    before = m.CroupierAssignment.objects.count()
    now = timezone.now()
    with pytest.raises(ValidationError, match="does not work for Casino other"):
        services.croupier_assignment_create(
            actor=None,
            user=croupier,
            table=other.table,
            shift_start=now,
            shift_end=now + dt.timedelta(hours=8),
        )
    assert m.CroupierAssignment.objects.count() == before


def test_a_withdrawn_casino_ends_the_croupier_s_say_there_at_once(worlds: tuple[World, World]) -> None:
    from tables.permissions import is_croupier_at

    own, _other = worlds
    croupier = _staff("croupier", own)
    assert is_croupier_at(croupier, own.table)
    admin = UserFactory(username="admin", is_superuser=True)
    assert services.casino_staff_withdraw(actor=admin, user=croupier, casino=own.casino) is True
    assert not is_croupier_at(croupier, own.table)  # the assignment stays, his shift no longer counts
    assert AuditEvent.objects.filter(action="tables.casinostaff.withdraw").count() == 1
