"""Reads for tables, staff and assignments. No writes here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from chemin_de_fer.engine.advice import Advice, advise_banker, advise_player
from chemin_de_fer.engine.bank_terms import BankTerms, auction_terms, passed_bank_terms
from chemin_de_fer.engine.coup import NeedsCards, Restored
from chemin_de_fer.engine.machine import CoupProgress, NextStep, next_steps, requirement
from chemin_de_fer.engine.order import betting_order, rotation_order
from chemin_de_fer.engine.profiles import PassedBank, Side
from chemin_de_fer.engine.tableau import Requirement
from core.cards import remaining_by_points
from core.types import Staff
from tables.engine_bridge import (
    banker_key,
    bet_player,
    bet_punter_key,
    cards_parse,
    coup_bets,
    coup_levy,
    coup_replay,
    coup_replay_trusted,
    coup_restore,
)
from tables.models import (
    UNFINISHED_COUP_STATES,
    VOIDABLE_COUP_STATES,
    BankOffer,
    BankShare,
    BankTurn,
    CasinoStaff,
    Coup,
    CoupStep,
    CroupierAssignment,
    GameCoup,
    Player,
    RuleProfile,
    Seat,
    SessionPause,
    Shoe,
    ShoeAlarm,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
    VoidRequest,
)
from tables.permissions import casino_scope, reads_everything
from tables.roles import ROLE_LABELS, Role


def user_roles(*, user: Staff | AnonymousUser) -> list[str]:
    """The user's role names (groups that are roles), in a stable order."""
    if not user.is_authenticated:
        return []
    names = set(user.groups.values_list("name", flat=True))
    return [role.value for role in Role if role.value in names]


def assignments_current(*, user: Staff, at: dt.datetime | None = None) -> QuerySet[CroupierAssignment]:
    """The user's assignments whose shift covers ``at`` (default: now)."""
    at = at or timezone.now()
    return (
        CroupierAssignment.objects.filter(user=user, shift_start__lte=at, shift_end__gt=at)
        .select_related("table", "table__casino")
        .order_by("shift_start")
    )


def table_open_session(*, table: Table) -> TableSession | None:
    return TableSession.objects.filter(table=table, closed_at__isnull=True).first()


def builtin_profiles() -> QuerySet[RuleProfile]:
    return RuleProfile.objects.filter(casino__isnull=True).order_by("slug")


@dataclass(frozen=True, slots=True)
class StaffProfile:
    username: str
    full_name: str
    roles: list[str]
    role_labels: list[str]
    is_superuser: bool
    current_assignments: list[CroupierAssignment] = field(default_factory=list)
    #: the casinos he works for (id, name), and whether he reads every casino of the group
    casinos: list[tuple[int, str]] = field(default_factory=list)
    group_wide: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "username": self.username,
            "full_name": self.full_name,
            "roles": self.roles,
            "is_superuser": self.is_superuser,
            "current_assignments": [
                {
                    "table_id": a.table_id,
                    "table": str(a.table),
                    "shift_start": a.shift_start,
                    "shift_end": a.shift_end,
                }
                for a in self.current_assignments
            ],
            "casinos": [{"id": pk, "name": name} for pk, name in self.casinos],
            "group_wide": self.group_wide,
        }


def staff_profile(*, user: Staff) -> StaffProfile:
    """Who the logged-in user is, for the home page and /api/v1/me/."""
    roles = user_roles(user=user)
    return StaffProfile(
        username=user.get_username(),
        full_name=user.get_full_name() if hasattr(user, "get_full_name") else "",
        roles=roles,
        role_labels=[ROLE_LABELS[r] for r in roles],
        is_superuser=bool(getattr(user, "is_superuser", False)),
        current_assignments=list(assignments_current(user=user)),
        casinos=list(
            CasinoStaff.objects.filter(user=user)
            .order_by("casino__name", "casino_id")
            .values_list("casino_id", "casino__name")
        ),
        group_wide=casino_scope(user).group_wide,
    )


# ------------------------------------------------------------------------------------- the bank
@dataclass(frozen=True)
class BankRotation:
    """Where the bank goes while nobody holds it: offered in turn to ``candidates`` (``offer_to``
    first), the taker putting up a bank within ``terms`` (at least ``required_minimum``)."""

    previous: BankTurn | None
    how: str  # BankTurn.Start: acceptance (first banker), rotation (after a loss), passed
    required_minimum: int
    order: list[Seat]  # every seated player in rotation order, the previous banker left out
    candidates: list[Seat]  # those who have not refused yet
    offer_to: Seat | None
    terms: BankTerms  # what the taker in turn may put up (docs/rules.md §7)
    auction: BankTerms | None = None  # a passed bank at a table that auctions it: the one amount


def bank_open_turn(*, session: TableSession) -> BankTurn | None:
    return (
        BankTurn.objects.filter(session=session, ended_at__isnull=True)
        .select_related("player", "seat")
        .first()
    )


def bank_rotation(*, session: TableSession) -> BankRotation | None:
    """None while a banker holds the bank; otherwise who is offered it next (the table now's)."""
    return table_now(table=session.table).rotation


def _rotation(
    *,
    table: Table,
    previous: BankTurn | None,
    seats: list[Seat],
    refused: set[int],
    bank_just_played: int | None = None,
) -> BankRotation:
    """The rotation after ``previous`` (None: nobody has held the bank yet) among the seated
    ``seats``, the seats in ``refused`` having refused it already; ``bank_just_played`` is the
    bank of ``previous``'s last coup (what an auction of a passed bank asks for)."""
    profile = table.profile
    house_limit = table.casino.house_limit
    terms = BankTerms(minimum=profile.min_bank, maximum=house_limit)
    auction = None
    # after the house's bank, the rotation starts afresh, as before the first banker
    anchor = previous.rotation_from.number if previous is not None and previous.rotation_from else 0
    if previous is None:
        how = BankTurn.Start.ACCEPTANCE
    elif previous.started_how == BankTurn.Start.HOUSE:
        how = BankTurn.Start.ROTATION
    elif previous.end_reason == BankTurn.End.PASSED:
        how = BankTurn.Start.PASSED
        terms = passed_bank_terms(
            passed_bank=PassedBank(profile.passed_bank),
            min_bank=profile.min_bank,
            continuation=previous.required_minimum,
            house_limit=house_limit,
        )
        if table.passed_bank_auction:
            auction = auction_terms(
                bank_just_played=bank_just_played or previous.required_minimum,
                min_bank=profile.min_bank,
                house_limit=house_limit,
            )
    else:
        how = BankTurn.Start.ROTATION
    minimum = terms.minimum
    # seat numbers are unique among the seated (a constraint): number -> seat is one to one
    by_number = {s.number: s for s in seats if previous is None or s.player_id != previous.player_id}
    order = [
        by_number[n]
        for n in rotation_order(
            by_number,
            anchor=anchor,
            seat_count=table.seat_count,
            passes_to=Side(profile.bank_passes_to),
        )
    ]
    candidates = [s for s in order if s.pk not in refused]
    return BankRotation(
        previous=previous,
        how=how,
        required_minimum=minimum,
        order=order,
        candidates=candidates,
        offer_to=candidates[0] if candidates else None,
        terms=terms,
        auction=auction,
    )


# ---------------------------------------------------------------------------------------- coups
@dataclass(frozen=True)
class CoupView:
    """Everything a screen or an API client needs to know about a coup right now."""

    coup: Coup
    state: CoupProgress
    steps: list[CoupStep]
    next_steps: tuple[NextStep, ...]
    requirement: tuple[str, Requirement] | None
    advice: Advice | None
    verdict: dict[str, Any] | None  # as recorded at the reveal
    restoration: Restored | NeedsCards | None  # while the coup awaits its correction
    correction: CoupStep | None  # the latest correction submitted


def coup_view(
    *, coup: Coup, steps: list[CoupStep] | None = None, state: CoupProgress | None = None
) -> CoupView:
    """The coup as it is now, read from the database; or, with ``steps`` (every step row of the
    coup, in order, with their actors), from ``coup`` and ``steps`` as given: the answer of the
    service that just wrote them under the coup's lock (``StepResult.steps``), whose ``coup`` has
    its shoe, table, profile, casino and bank turn loaded and up to date. ``state``, with
    ``steps`` only: their replay, when that service has it (``StepResult.state``), so that the
    answer does not replay the coup a second time."""
    if steps is None:
        related = ("shoe__table__profile", "shoe__table__casino", "bank_turn__seat")
        coup = Coup.objects.select_related(*related).get(pk=coup.pk)
        steps = list(coup.steps.select_related("actor").order_by("index"))
        state = None
    playable = True
    if state is None:
        # steps that cannot be replayed are shown as they are, with no step to play on them
        state, playable = coup_replay_trusted(coup, steps)
    reveal = next((s for s in steps if s.kind == CoupStep.Kind.REVEAL), None)
    corrections = [s for s in steps if s.kind == CoupStep.Kind.CORRECTION]
    restoration = None
    if coup.state == Coup.State.AWAITING_CORRECTION and playable:
        restoration = coup_restore(coup, state, restoration_shoe(coup=coup, state=state).recorded)
    in_play = coup.state == Coup.State.OPEN and playable
    return CoupView(
        coup=coup,
        state=state,
        steps=steps,
        next_steps=next_steps(state) if in_play else (),
        requirement=requirement(state) if in_play else None,
        advice=coup_advice(coup=coup, state=state) if in_play else None,
        verdict=reveal.payload.get("verdict") if reveal else None,
        restoration=restoration,
        correction=corrections[-1] if corrections else None,
    )


def coup_advice(*, coup: Coup, state: CoupProgress) -> Advice | None:
    """The engine's advice at an option point, computed from the chooser's information only: the
    cards he cannot see are the rest of the shoe plus the opponent's face-down cards."""
    need = requirement(state)
    if need is None or need[1] is not Requirement.OPTION:
        return None
    side = need[0]
    # the cards as they really were: a mistyped card an amendment replaced is back in the shoe
    seen = list(
        ShoeCard.objects.filter(shoe=coup.shoe, replaced_by__isnull=True).values_list("card", flat=True)
    )
    hidden = state.banker_cards[:2] if side == "player" else state.player_cards[:2]
    for card in hidden:  # the opponent's face-down cards are unknown to the chooser
        seen.remove(card)
    unseen = remaining_by_points(seen, coup.shoe.decks)
    tableau = state.rules.tableau
    if side == "player":
        return advise_player(
            tableau,
            (state.player_cards[0], state.player_cards[1]),  # an option comes after both are dealt
            single_punter=len({b.punter for b in state.bets}) == 1,
            unseen=unseen,
            banco=state.banco,
        )
    levy = coup_levy(coup)  # the terms the coup was started under
    exempt = coup.first_coup_of_bank and levy.first_coup_exempt
    return advise_banker(
        tableau,
        (state.banker_cards[0], state.banker_cards[1]),
        state.player_cards[2] if len(state.player_cards) == 3 else None,
        unseen=unseen,
        levy_bp=0 if exempt else levy.rate_bp,
        banco=state.banco,
    )


def correction_preview(*, coup: Coup, cards: list[str] | tuple[str, ...] = ()) -> Restored | NeedsCards:
    """What the engine restores with these cards as the next from the shoe (for the screen); from
    a closed shoe, the cards recorded after the coup come first (``restoration_shoe``)."""
    steps = list(coup.steps.order_by("index"))
    state = coup_replay(coup, steps)
    recorded = restoration_shoe(coup=coup, state=state).recorded
    return coup_restore(coup, state, (*recorded, *cards_parse(list(cards))))


@dataclass(frozen=True)
class RestorationShoe:
    """Where a flagged coup's restoration finds "the next card from the shoe" (RULES.md §9).

    While the coup's shoe is open the croupier deals them. Once it is closed, the shoe's order is
    on record: the cards that came out after this coup's own (a rejected correction's, then the
    later coups') are the next ones, taken in that order without asking anybody. Only when that
    record runs out may the croupier deal more, and only from the table's latest shoe (its undealt
    cards are still at hand, e.g. the stop card came out in this coup); after a new shoe, they are
    gone and a pit boss voids the coup."""

    closed: bool
    recorded: tuple[str, ...]  # closed: the cards out of the shoe after this coup's, in shoe order
    can_deal: bool  # more cards may still be dealt from the coup's shoe


def restoration_shoe(*, coup: Coup, state: CoupProgress) -> RestorationShoe:
    """The coup's shoe as its restoration sees it (``state``: the coup's replay)."""
    shoe = coup.shoe
    if shoe.state == Shoe.State.OPEN:
        return RestorationShoe(closed=False, recorded=(), can_deal=True)
    rows = list(
        ShoeCard.objects.filter(shoe=shoe, replaced_by__isnull=True)
        .order_by("position")
        .values_list("position", "card", "coup_id")
    )
    played = len(state.player_cards) + len(state.banker_cards)
    own = [position for position, _card, coup_id in rows if coup_id == coup.pk][:played]
    last = own[-1] if own else 0
    recorded = tuple(card for position, card, _coup in rows if position > last)
    newer = Shoe.objects.filter(table_id=shoe.table_id, pk__gt=shoe.pk).exists()
    return RestorationShoe(closed=True, recorded=recorded, can_deal=not newer)


def coup_last_decision(*, coup: Coup | None = None, shoe: Shoe | None = None) -> CoupStep | None:
    """A pit boss's latest word the croupier must hear: the latest ``correction_rejected`` or
    ``coup_voided`` step of ``coup``, or else of ``shoe``'s last coup, with its actor and coup
    (None: neither, or no such step). One query."""
    steps = CoupStep.objects.filter(kind__in=(CoupStep.Kind.CORRECTION_REJECTED, CoupStep.Kind.COUP_VOIDED))
    if coup is not None:
        steps = steps.filter(coup=coup)
    elif shoe is not None:
        last = Coup.objects.filter(shoe=shoe).order_by("-number", "-pk").values("pk")[:1]
        steps = steps.filter(coup=Subquery(last))
    else:
        return None
    return steps.select_related("actor", "coup").order_by("-index").first()


def corrections_pending(*, casino_id: int | None = None) -> QuerySet[Coup]:
    """Coups whose restored settlement waits for a pit boss, oldest first."""
    qs = Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL).select_related(
        "shoe", "shoe__table", "banker"
    )
    if casino_id is not None:
        qs = qs.filter(shoe__table__casino_id=casino_id)
    return qs.order_by("created_at")


def void_requests_pending(*, casinos: frozenset[int] | None = None) -> QuerySet[VoidRequest]:
    """Voids waiting for a second pit boss whose coup can still be voided (a request whose coup
    ended meanwhile is moot: it lapses when decided), oldest first; ``casinos``: within those
    (None: every casino)."""
    live = Q(coup__state__in=VOIDABLE_COUP_STATES) | Q(game_coup__state=GameCoup.State.OPEN)
    rows = VoidRequest.objects.filter(live, state=VoidRequest.State.PENDING)
    if casinos is not None:
        rows = rows.filter(casino_id__in=casinos)
    return rows.select_related("casino", "requested_by", "coup__shoe__table", "game_coup__table").order_by(
        "requested_at", "id"
    )


def void_request_coup(coup: Coup | GameCoup) -> dict[str, Coup | GameCoup]:
    """The void request's field that names ``coup`` (chemin de fer's or an older game's), as a
    filter or a create's keyword."""
    return {"game_coup": coup} if isinstance(coup, GameCoup) else {"coup": coup}


def void_requests_waiting_of(coup: Coup | GameCoup) -> QuerySet[VoidRequest]:
    """The void of ``coup`` waiting for a second pit boss (one at most: a unique index)."""
    return VoidRequest.objects.filter(state=VoidRequest.State.PENDING, **void_request_coup(coup))


def void_request_waiting(coup: Coup | GameCoup) -> VoidRequest | None:
    """The void of ``coup`` waiting for a second pit boss, if any (its asker loaded)."""
    return void_requests_waiting_of(coup).select_related("requested_by").first()


# ------------------------------------------------------------------------------- the table now
@dataclass(frozen=True)
class TableNow:
    """The table as it stands now: the one reading of it that the croupier's screen
    (``table_floor``), the API (``tables.api.read_models.table_data``) and the pit boss's
    dashboard (its open tables) build their views from."""

    table: Table
    session: TableSession | None  # the open session; without one, the rest is empty
    pause: SessionPause | None  # the pause in progress
    seats: list[Seat]  # the seated, by seat number
    spectators: list[Spectator]  # in the order they joined
    shoe: Shoe | None  # the open shoe
    last_shoe: Shoe | None  # the session's latest shoe, open or closed
    cards_dealt: int  # out of the open shoe, burnt ones and those taken by corrections included
    cards_left: int  # still in the open shoe
    alarms: list[ShoeAlarm]  # raised on the session's shoes, newest first
    bank: BankTurn | None  # the open bank turn
    bank_coup: Coup | None  # the open bank turn's latest coup: its bank is the bank in play
    rotation: BankRotation | None  # while nobody holds the bank: to whom it is offered
    coup: Coup | None  # the coup in play (UNFINISHED_COUP_STATES): being played, or flagged, not restored
    last_coup: Coup | None  # the session's latest coup, whatever its state
    awaiting_approval: list[Coup]  # restored coups whose settlement waits for a pit boss, oldest first


def _table_closed(table: Table) -> TableNow:
    return TableNow(
        table=table,
        session=None,
        pause=None,
        seats=[],
        spectators=[],
        shoe=None,
        last_shoe=None,
        cards_dealt=0,
        cards_left=0,
        alarms=[],
        bank=None,
        bank_coup=None,
        rotation=None,
        coup=None,
        last_coup=None,
        awaiting_approval=[],
    )


def table_now(*, table: Table) -> TableNow:
    """The table as it stands now (see ``TableNow``)."""
    [now] = tables_now(tables=[table])
    return now


def tables_now(*, tables: Iterable[Table]) -> list[TableNow]:
    """``table_now`` of each of ``tables``, in their order, in the same number of queries however
    many they are (the dashboard reads every open table at once)."""
    wanted_tables = list(tables)
    rows = _open_sessions_facts(table_ids=[t.pk for t in wanted_tables])
    if not rows:
        return [_table_closed(table) for table in wanted_tables]
    ids = [row["pk"] for row in rows.values()]
    sessions = TableSession.objects.select_related("opened_by").in_bulk(ids)
    pauses = {p.session_id: p for p in SessionPause.objects.filter(session__in=ids, ended_at__isnull=True)}
    seats = _by_session(
        Seat.objects.filter(session__in=ids, left_at__isnull=True).select_related("player").order_by("number")
    )
    spectators = _by_session(
        Spectator.objects.filter(session__in=ids, left_at__isnull=True)
        .select_related("player")
        .order_by("joined_at", "pk")
    )
    shoes = Shoe.objects.in_bulk([row["last_shoe"] for row in rows.values() if row["last_shoe"]])
    alarms: dict[int, list[ShoeAlarm]] = {}
    for alarm in (
        ShoeAlarm.objects.filter(shoe__session__in=ids)
        .select_related("shoe", "coup")
        .order_by("-raised_at", "-pk")
    ):
        alarms.setdefault(alarm.shoe.session_id, []).append(alarm)
    last_turns = [row["last_turn"] for row in rows.values() if row["last_turn"] is not None]
    open_turns = [row["open_turn"] for row in rows.values() if row["open_turn"] is not None]
    turns = (
        BankTurn.objects.filter(pk__in=last_turns + open_turns)
        .select_related("player", "seat", "rotation_from")
        .in_bulk()
    )
    # the refusals since the latest bank turn ended (or since the session opened, before the first)
    refused: dict[tuple[int, int | None], set[int]] = {}
    for session_id, after, seat in BankOffer.objects.filter(
        Q(after_turn__in=last_turns) | Q(after_turn__isnull=True), session__in=ids, accepted=False
    ).values_list("session", "after_turn", "seat"):
        refused.setdefault((session_id, after), set()).add(seat)
    awaiting: dict[int, list[Coup]] = {}
    wanted = [
        row[k] for row in rows.values() for k in ("coup", "last_coup", "bank_coup") if row[k] is not None
    ]
    found: dict[int, Coup] = {}
    for coup in (
        Coup.objects.filter(Q(pk__in=wanted) | Q(shoe__session__in=ids, state=Coup.State.AWAITING_APPROVAL))
        .select_related("shoe", "banker")
        .order_by("pk")
    ):
        found[coup.pk] = coup
        if coup.state == Coup.State.AWAITING_APPROVAL:
            awaiting.setdefault(coup.shoe.session_id, []).append(coup)
    result = []
    for table in wanted_tables:
        row = rows.get(table.pk)
        if row is None:
            result.append(_table_closed(table))
            continue
        session = sessions[row["pk"]]
        session.table = table
        last_shoe = shoes.get(row["last_shoe"])
        shoe = last_shoe if last_shoe is not None and last_shoe.state == Shoe.State.OPEN else None
        turn = turns.get(row["open_turn"])
        previous = turns.get(row["last_turn"])
        seated = seats.get(session.pk, [])
        result.append(
            TableNow(
                table=table,
                session=session,
                pause=pauses.get(session.pk),
                seats=seated,
                spectators=spectators.get(session.pk, []),
                shoe=shoe,
                last_shoe=last_shoe,
                cards_dealt=row["dealt"] if shoe is not None else 0,
                cards_left=shoe.cards_left(row["dealt"]) if shoe is not None else 0,
                alarms=alarms.get(session.pk, []),
                bank=turn,
                bank_coup=found.get(row["bank_coup"]),
                rotation=None
                if turn is not None
                else _rotation(
                    table=table,
                    previous=previous,
                    seats=seated,
                    refused=refused.get((session.pk, previous.pk if previous else None), set()),
                    bank_just_played=row["last_turn_bank"],
                ),
                coup=found.get(row["coup"]),
                last_coup=found.get(row["last_coup"]),
                awaiting_approval=awaiting.get(session.pk, []),
            )
        )
    return result


def _open_sessions_facts(*, table_ids: list[int]) -> dict[int, dict[str, Any]]:
    """By table id, its open session's id and the ids of what ``TableNow`` holds one of, found
    by correlated subqueries (one query however many sessions)."""
    # the latest first: coups are numbered per shoe, so the order is their creation's
    coups = Coup.objects.filter(shoe__session=OuterRef("pk")).order_by("-created_at", "-pk")
    open_shoe_cards = (
        ShoeCard.objects.filter(
            shoe__session=OuterRef("pk"), shoe__state=Shoe.State.OPEN, replaced_by__isnull=True
        )
        .order_by()
        .values("shoe__session")
        .annotate(n=Count("pk"))
        .values("n")
    )
    sessions = TableSession.objects.filter(table__in=table_ids, closed_at__isnull=True).annotate(
        last_shoe=Subquery(Shoe.objects.filter(session=OuterRef("pk")).order_by("-number").values("pk")[:1]),
        dealt=Coalesce(Subquery(open_shoe_cards, output_field=IntegerField()), 0),
        open_turn=Subquery(
            BankTurn.objects.filter(session=OuterRef("pk"), ended_at__isnull=True).values("pk")[:1]
        ),
        last_turn=Subquery(
            BankTurn.objects.filter(session=OuterRef("pk")).order_by("-started_at", "-pk").values("pk")[:1]
        ),
        coup=Subquery(coups.filter(state__in=UNFINISHED_COUP_STATES).values("pk")[:1]),
        last_coup=Subquery(coups.values("pk")[:1]),
        bank_coup=Subquery(coups.filter(bank_turn__ended_at__isnull=True).values("pk")[:1]),
        # the bank of the latest bank turn's latest coup: what an auction of a passed bank asks for
        last_turn_bank=Subquery(
            Coup.objects.filter(
                bank_turn=Subquery(
                    BankTurn.objects.filter(session=OuterRef(OuterRef("pk")))
                    .order_by("-started_at", "-pk")
                    .values("pk")[:1]
                )
            )
            .order_by("-created_at", "-pk")
            .values("bank")[:1]
        ),
    )
    facts = (
        "last_shoe",
        "dealt",
        "open_turn",
        "last_turn",
        "coup",
        "last_coup",
        "bank_coup",
        "last_turn_bank",
    )
    return {row["table"]: row for row in sessions.values("pk", "table", *facts)}


_PerSession = TypeVar("_PerSession", Seat, Spectator)


def _by_session(rows: Iterable[_PerSession]) -> dict[int, list[_PerSession]]:
    grouped: dict[int, list[_PerSession]] = {}
    for row in rows:
        grouped.setdefault(row.session_id, []).append(row)
    return grouped


# ------------------------------------------------------------------ the croupier's table screen
@dataclass(frozen=True)
class CoupResult:
    """A finished coup as the table screen shows it: as revealed, or as restored while the
    correction waits for (or got) a pit boss's approval."""

    coup: Coup
    outcome: str  # "player" | "banker" | "tie"
    player_cards: list[str]
    banker_cards: list[str]
    player_total: int
    banker_total: int
    covered: int
    uncovered: int
    tax: int
    banker_net: int
    punters: list[tuple[str, str, int]]  # (engine key, display name, gain or loss)
    next_bank_min: int | None
    restored: bool  # the figures are the restored game's
    void_cards: list[str]


@dataclass(frozen=True)
class TableFloor(TableNow):
    """Everything the croupier's table screen shows: the table now, and what only he needs."""

    last_result: CoupResult | None  # the session's latest finished coup
    shoe_coups: list[Coup]  # the latest shoe's coups, newest first
    players_available: list[Player]  # the casino's players neither seated nor watching
    bank_shares: list[BankShare]  # club: spectators' parts of the bank
    bank_is_new: bool  # the bank has not been played yet (spectators may put up part of it)


def players_available(*, table: Table, search: str = "") -> QuerySet[Player]:
    """The players of the table's casino who could sit down or stand here now: not the house, nor
    anybody already seated or standing at its open session; by name. ``search`` matches a name or
    a membership number (a device's seat picker, like the croupier's screen)."""
    players = Player.objects.filter(casino_id=table.casino_id, house=False)
    here = {"session__table": table, "session__closed_at__isnull": True, "left_at__isnull": True}
    players = players.exclude(pk__in=Seat.objects.filter(**here).values("player_id")).exclude(
        pk__in=Spectator.objects.filter(**here).values("player_id")
    )
    search = search.strip()
    if search:
        players = players.filter(Q(display_name__icontains=search) | Q(membership_number__iexact=search))
    return players.order_by("display_name", "pk")


def table_floor(*, table: Table) -> TableFloor:
    now = table_now(table=table)
    the_now = {f.name: getattr(now, f.name) for f in fields(TableNow)}
    if now.session is None:
        return TableFloor(
            **the_now,
            last_result=None,
            shoe_coups=[],
            players_available=[],
            bank_shares=[],
            bank_is_new=False,
        )
    coups = Coup.objects.filter(shoe__session=now.session).select_related("shoe", "banker")
    finished = (
        coups.filter(state__in=[Coup.State.SETTLED, Coup.State.AWAITING_APPROVAL]).order_by("-pk").first()
    )
    busy = {s.player_id for s in now.seats} | {s.player_id for s in now.spectators}
    turn = now.bank
    return TableFloor(
        **the_now,
        last_result=coup_result(coup=finished) if finished is not None else None,
        shoe_coups=list(coups.filter(shoe=now.last_shoe).order_by("-number")) if now.last_shoe else [],
        players_available=[
            p
            for p in Player.objects.filter(casino_id=table.casino_id, house=False).order_by("display_name")
            if p.pk not in busy
        ],
        bank_shares=list(
            BankShare.objects.filter(turn=turn, withdrawn__isnull=True).select_related("spectator__player")
        )
        if turn is not None
        else [],
        bank_is_new=turn is not None and now.bank_coup is None,
    )


def coup_punter_names(*, coup: Coup) -> dict[str, str]:
    """The engine's punter keys of a coup (``seat-4``, ``spectator-17``) to display names, from
    its bets and its banker's seat."""
    names: dict[str, str] = {}
    if coup.bank_turn_id is not None:
        turn = BankTurn.objects.select_related("seat", "player").get(pk=coup.bank_turn_id)
        names[banker_key(turn)] = turn.player.display_name
    for bet in coup_bets(coup):
        names[bet_punter_key(bet)] = bet_player(bet).display_name
    return names


def coup_result(*, coup: Coup) -> CoupResult | None:
    """A revealed coup's figures: the restored ones once a correction was submitted."""
    steps = list(coup.steps.order_by("index"))
    reveal = next((s for s in steps if s.kind == CoupStep.Kind.REVEAL), None)
    if reveal is None:
        return None
    verdict = reveal.payload["verdict"]
    correction = next((s for s in reversed(steps) if s.kind == CoupStep.Kind.CORRECTION), None)
    state = coup_replay(coup, steps)
    player_cards, banker_cards = list(state.player_cards), list(state.banker_cards)
    player_total, banker_total = verdict["player_total"], verdict["banker_total"]
    outcome, settlement, void = verdict["outcome"], verdict["settlement"] or {}, []
    if correction is not None and coup.state != Coup.State.AWAITING_CORRECTION:
        restored = correction.payload["restored"]
        settlement = correction.payload["settlement"]
        player_cards, banker_cards = restored["player_cards"], restored["banker_cards"]
        player_total, banker_total = restored["player_total"], restored["banker_total"]
        outcome, void = restored["outcome"], restored["void_cards"]
    names = coup_punter_names(coup=coup)
    return CoupResult(
        coup=coup,
        outcome=outcome,
        player_cards=player_cards,
        banker_cards=banker_cards,
        player_total=player_total,
        banker_total=banker_total,
        covered=settlement.get("covered", 0),
        uncovered=settlement.get("uncovered", 0),
        tax=settlement.get("tax", 0),
        banker_net=settlement.get("banker_net", 0),
        punters=[(key, names.get(key, key), gain) for key, gain in settlement.get("punters", {}).items()],
        next_bank_min=settlement.get("next_bank_min"),
        restored=correction is not None and coup.state != Coup.State.AWAITING_CORRECTION,
        void_cards=void,
    )


def coup_betting_order(*, coup: Coup, seats: list[Seat]) -> list[Seat]:
    """The seats that may bet on ``coup`` (everybody but the banker), in betting order."""
    table = coup.shoe.table
    by_number = {s.number: s for s in seats}  # the seated: numbers are unique (a constraint)
    banker_seat = coup.bank_turn.seat
    order = betting_order(
        by_number,
        banker_seat=banker_seat.number if banker_seat is not None else None,  # None: the house banks
        seat_count=table.seat_count,
        betting_from=Side(table.profile.betting_from),
    )
    return [by_number[n] for n in order]


def croupier_tables(*, user: Staff) -> list[Table]:
    """The tables the user is assigned to for the current shift (a croupier's "my table")."""
    seen: dict[int, Table] = {}
    for assignment in assignments_current(user=user):
        seen.setdefault(assignment.table_id, assignment.table)
    return list(seen.values())


def tables_overview(*, user: Staff) -> QuerySet[Table]:
    """Every table of the casinos ``user`` reads, open ones first, for the staff who read everything."""
    tables = Table.objects.select_related("casino", "profile").order_by("state", "casino__name", "name")
    return casino_scope(user).narrow(tables)


def tables_readable(*, user: Staff) -> QuerySet[Table]:
    """Pit bosses and accountants read every table of their casinos (the group auditor every
    casino's); a croupier the tables of his current shifts."""
    tables = Table.objects.select_related("casino", "profile").order_by("casino__name", "name", "pk")
    tables = casino_scope(user).narrow(tables)
    if reads_everything(user):
        return tables
    if "croupier" not in user_roles(user=user):
        return tables.none()
    return tables.filter(pk__in=assignments_current(user=user).values("table_id"))


# ---------------------------------------------------------------------------- ways forward
def table_ways_forward(*, table: Table) -> list[str]:  # noqa: C901  (one branch a state of the table: every state names its way forward)
    """The actions the services would accept at ``table`` now, by service name (a coup's steps as
    ``coup_step:<kind>``, the engine's legal next steps): what the croupier, or a pit boss, can do
    to move the table on. Issue 9's promise is that this is never empty, and that
    ``table_session_close`` is always reachable (at worst after a pit boss's ``coup_void``).

    It reads the same preconditions the services check; a service may still refuse for what only
    it can know (a bet above a player's chips where he may not borrow, a wrong card), never for
    the state of the table."""
    now = table_now(table=table)
    session = now.session
    if session is None:
        return ["table_session_open"]
    ways: list[str] = []
    coup = now.coup
    playing = coup is not None and coup.state == Coup.State.OPEN
    if not playing:
        ways.append("table_session_close")
    if now.pause is not None:
        ways.append("session_pause_end")
    elif not playing:
        ways.append("session_pause_start")
    if coup is not None:
        ways.append("coup_void")  # a pit boss: any coup not over yet
        if void_request_waiting(coup) is not None:  # above the casino's limit: a second pit boss
            ways += ["void_request_approve", "void_request_refuse"]
        if playing:
            view = coup_view(coup=coup)
            ways += [f"coup_step:{step.kind.value}" for step in view.next_steps]
            if not coup.bets.filter(withdrawn=False).exists() and not coup.cards.exists():
                ways.append("coup_bank_withdraw")
        else:
            ways.append("correction_submit")
    if now.awaiting_approval:  # these never hold the table up, but a pit boss decides them too
        ways += ["correction_approve", "correction_reject"]
        if "coup_void" not in ways:
            ways.append("coup_void")
    betting = Coup.objects.filter(shoe__session=session, state=Coup.State.OPEN)
    if any(not betting.filter(Q(bets__seat=seat) | Q(bank_turn__seat=seat)).exists() for seat in now.seats):
        ways.append("seat_leave")
    if len(now.seats) < table.seat_count:
        ways.append("seat_take")
    if coup is None and now.pause is None:
        if now.shoe is None:
            ways.append("shoe_start")
        else:
            ways.append("shoe_close")
        if now.bank is not None:
            ways.append("bank_pass")
            if now.shoe is not None:
                ways.append("coup_start")
        elif now.rotation is not None:
            if now.rotation.previous is None and table.first_banker_method != Table.FirstBanker.ACCEPTANCE:
                if now.seats:
                    ways.append("bank_first_assign")
            elif now.rotation.offer_to is not None:
                ways.append("bank_offer_answer")
            elif now.rotation.order:
                ways.append("bank_new_from_minimum")
    return ways
