"""Playing the older games (Macao, Landsknecht, old baccarat) at a table: one set of services for
all three, driven by the uniform face of their engines (older_games.engine.game_play).

Each call is one transaction, taken in the project's lock order (tables.services.locking): the
table, the session, the coup, then the ledger accounts, the audit chain last. A step is checked by
replaying the coup's recorded steps through the game's live machine and applying the new one;
the step row, its audit event and, when the step ends the coup, the settlement's postings and the
coup's record are written together, or nothing is.

Refusals, each with nothing written:
- ``ValidationError``: the step is not legal now (the machine's reason), or a player could not pay
  what he would now risk (a stake, a cover, a bank; checked before any card is dealt);
- ``CoupConflict``: the client's view is stale (``expected_steps``) or the coup is over.

No state lacks a way forward: an open coup takes its next step (``options`` is empty only once it
is over), or the croupier or a pit boss voids it with a reason; a Landsknecht table whose players
have not paid their fund dues collects them (``game_fund_collect``) before its first coup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext_noop

from audit.rows import RowWritten, rows_loaded
from audit.services import audit_record
from audit.snapshot import fields_snapshot
from core.cards import card_code
from core.sentence import Listing, Word, said, why
from core.types import Staff
from ledger.models import Account, Entry, Transaction
from ledger.services import Posting, account_spec, accounts_by_pk, accounts_lock, posting_find, postings_write
from older_games.engine import game_play, macao
from older_games.engine.game_play import FUND, POOL, GamePlay, Seating, StepRefused, Transfer
from tables.lifecycle import CoupConflict, game_coup_state_change
from tables.models import OLDER_GAMES, GameCoup, GameStep, Player, Seat, Table, TableSession, VoidRequest
from tables.permissions import (
    can_approve,
    check_croupier_at,
    check_independent_voider,
    check_works_for,
    has_role,
    is_croupier_at,
)
from tables.roles import Role
from tables.services.locking import lock_game_coup, lock_session, require_open
from tables.services.void_requests import (
    void_gate,
    void_request_approved,
    void_request_lapse,
    void_request_locked,
)
from tables.services.vouching import game_coup_vouch
from tables.wording import (
    CLOSE_GAME_COUP_IN_PLAY,
    CLOSE_GAME_COUP_STEPS_RECORDED,
    GAME_NOBODY_HOLDS_CHIPS,
    game_banker_no_chips,
)

TKind = Transaction.Kind
AKind = Account.Kind


# ------------------------------------------------------------------------------------ names
def player_key(player: Player | int) -> str:
    """How a game coup's seating, steps and record name a player: ``player-<id>``."""
    return f"player-{player if isinstance(player, int) else player.pk}"


def key_player_id(key: str) -> int | None:
    """The player id of a ``player-<id>`` key; None for the fund, the pool or any other name."""
    prefix, _, number = key.partition("-")
    return int(number) if prefix == "player" and number.isascii() and number.isdigit() else None


def table_play(table: Table) -> GamePlay[Any, Any]:
    if table.game not in OLDER_GAMES:
        raise ValidationError(
            said(
                "{table} deals {game}, not one of the older games.",
                table=table.name,
                game=Word(table.get_game_display(), "game"),
            )
        )
    return game_play.play_for(table.game)


def house_settings(table: Table) -> Any:
    """The table's house settings for its game, checked (a bad setting is the pit boss's to fix)."""
    try:
        return table_play(table).settings(table.game_settings or {})
    except StepRefused as exc:
        wrong = said("{table}'s house settings: {why}", table=table.name, why=why(exc))
        raise ValidationError(wrong) from None


@dataclass(frozen=True)
class GameCoupResult:
    coup: GameCoup
    state: Any
    step: GameStep | None = None


def coup_state(coup: GameCoup, steps: Sequence[Mapping[str, Any]] | None = None) -> Any:
    """The coup's live state: its recorded steps replayed through its game's machine."""
    play = game_play.play_for(coup.game)
    settings = play.settings(coup.house_settings)
    if steps is None:
        steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    return play.replay(settings, seating_of(coup), steps)


def seating_of(coup: GameCoup) -> Seating:
    data = dict(coup.seating)
    return Seating(**{**data, "punters": tuple(data["punters"])})


# ------------------------------------------------------------------------------------ fund dues
def _fund_due_key(session: TableSession, player_id: int) -> str:
    return f"fund-due:{session.pk}:{player_id}"


def _seated(session: TableSession) -> list[Seat]:
    return list(
        Seat.objects.filter(session=session, left_at__isnull=True).select_related("player").order_by("number")
    )


def fund_dues_unpaid(session: TableSession) -> list[Player]:
    """The seated players of a Landsknecht session who have not paid into the fund yet."""
    if session.table.game != Table.Game.LANDSKNECHT:
        return []
    settings = house_settings(session.table)
    if settings.fund_due == 0:
        return []
    seated = _seated(session)
    paid = set(
        Transaction.objects.filter(
            kind=TKind.FUND_DUE, idempotency_key__in=[_fund_due_key(session, s.player_id) for s in seated]
        ).values_list("idempotency_key", flat=True)
    )
    return [s.player for s in seated if _fund_due_key(session, s.player_id) not in paid]


def unpaid_dues_refusal(unpaid: Sequence[Player]) -> str:
    names = Listing(p.display_name for p in unpaid)
    return said("The fund dues are not paid yet ({names}): collect them first.", names=names)


@transaction.atomic
def game_fund_collect(*, actor: Staff, session: TableSession) -> list[Transaction]:
    """Every seated player who has not yet paid pays the house's fund due into the table's reserve
    fund (Landsknecht: "every player pays an agreed sum into the reserve fund before play"), one
    posting each. A player short of chips refuses the whole collection, naming him."""
    session = lock_session(session)
    table = session.table
    check_croupier_at(actor, table)
    require_open(session)
    if not table_play(table).has_fund:
        raise ValidationError(gettext_noop("Only a Landsknecht table has a reserve fund."))
    due = house_settings(table).fund_due
    unpaid = fund_dues_unpaid(session)
    if not unpaid:
        return []
    specs = [account_spec(AKind.PLAYER, p) for p in unpaid] + [account_spec(AKind.FUND, table=table)]
    locked = accounts_lock(
        casino=table.casino,
        specs=specs,
        actor=actor,
        players={p.pk: p for p in unpaid},
        tables={table.pk: table},
    )
    fund = locked[account_spec(AKind.FUND, table=table)]
    postings = [
        Posting(
            TKind.FUND_DUE,
            _fund_due_key(session, p.pk),
            {locked[account_spec(AKind.PLAYER, p)].pk: -due, fund.pk: due},
            memo=f"fund due of {p.display_name} at {table.name}",
        )
        for p in unpaid
    ]
    return postings_write(
        casino=table.casino, actor=actor, postings=postings, accounts=accounts_by_pk(locked)
    )


def fund_balance(table: Table) -> int:
    return (
        Account.objects.filter(casino=table.casino_id, kind=AKind.FUND, table=table.pk)
        .values_list("balance", flat=True)
        .first()
        or 0
    )


# ------------------------------------------------------------------------------------ the fund's return
def fund_return_key(session: TableSession | int) -> str:
    return f"fund-return:{session if isinstance(session, int) else session.pk}"


def fund_paid_in(session: TableSession) -> list[tuple[str, int]]:
    """What each player paid into the table's reserve fund at ``session`` (his dues, in the order
    paid), keyed as the coups name him: the fund is returned to them when the session closes."""
    prefix = f"fund-due:{session.pk}:"
    rows = (
        Entry.objects.filter(
            account__kind=AKind.FUND,
            account__table=session.table_id,
            amount__gt=0,
            transaction__kind=TKind.FUND_DUE,
            transaction__idempotency_key__startswith=prefix,
        )
        .order_by("transaction_id")
        .values_list("transaction__idempotency_key", "amount")
    )
    return [(player_key(int(key.removeprefix(prefix))), amount) for key, amount in rows]


def fund_return_planned(session: TableSession, *, balance: int | None = None) -> dict[str, Any] | None:
    """The fund's return the close of ``session`` would post (the game's record of it, with what
    each payer is given back), or None at a table whose game keeps no fund. ``balance``: the
    fund's, when the caller has just read it."""
    table = session.table
    play = table_play(table)
    if not play.has_fund:
        return None
    if balance is None:
        balance = fund_balance(table)
    if balance == 0:  # nothing to give back: the payers need not be read
        return play.fund_return(house_settings(table), [], 0)
    try:
        return play.fund_return(house_settings(table), fund_paid_in(session), balance)
    except StepRefused as exc:
        raise ValidationError(why(exc)) from None


def game_fund_return_locked(*, actor: Staff, session: TableSession) -> Transaction | None:
    """When play ends (the session closes) the reserve fund goes back to those who paid into it,
    by the house's rule (RULES.md §11): one posting from the fund to each payer's account, checked
    by the offline judge and audited. The caller holds the session's lock and has checked that no
    coup is open. Nothing is posted when the fund is empty or nobody paid into it this session
    (what the fund then holds stays in it); posted once per session (its key)."""
    table = session.table
    play = table_play(table)
    paid = fund_paid_in(session) if play.has_fund else []
    if not paid:
        return None
    key = fund_return_key(session)
    earlier = posting_find(key, casino=table.casino, kind=TKind.FUND_RETURN)
    if earlier is not None:
        return earlier
    players = _players(list(dict.fromkeys(k for k, _ in paid)), table.casino_id)
    player_specs = {k: account_spec(AKind.PLAYER, p) for k, p in players.items()}
    fund_spec = account_spec(AKind.FUND, table=table)
    locked = accounts_lock(
        casino=table.casino,
        specs=[fund_spec, *player_specs.values()],
        actor=actor,
        players={p.pk: p for p in players.values()},
        tables={table.pk: table},
    )
    fund = locked[fund_spec]
    settings = house_settings(table)
    try:
        planned = play.fund_return(settings, paid, fund.balance)
    except StepRefused as exc:
        raise ValidationError(why(exc)) from None
    given = {r["player"]: r["amount"] for r in planned.get("returned") or []}
    if not given:
        return None
    verdict = play.verdict(settings, planned)
    judged = {t["payee"]: t["amount"] for t in (verdict.get("settlement") or {}).get("transfers", [])}
    if verdict["violations"] or judged != given:
        raise AssertionError(f"the offline judge disagrees with the fund's return at {session}: {verdict}")
    entries = {fund.pk: -planned["fund"]}
    for k, amount in given.items():
        entries[locked[player_specs[k]].pk] = amount
    [posted] = postings_write(
        casino=table.casino,
        actor=actor,
        postings=[Posting(TKind.FUND_RETURN, key, entries, memo=f"reserve fund of {table.name} returned")],
        accounts=accounts_by_pk(locked),
    )
    audit_record(
        actor=actor,
        action="tables.game_fund.return",
        target=session,
        after={"record": planned, "verdict": verdict, "transaction": posted.pk},
        casino=table.casino_id,
    )
    return posted


# ------------------------------------------------------------------------------------ the seating
def _last_coup(table: Table) -> GameCoup | None:
    return GameCoup.objects.filter(table=table).order_by("-number").first()


def _seating_after(
    last: GameCoup, play: GamePlay[Any, Any], seated: Sequence[str], fund: int
) -> Seating | None:
    """The seating the game gives after ``last``, the session's last coup (None: an open one)."""
    if last.state == GameCoup.State.VOID:
        return _seating_after_void(last, seated, fund)
    if last.state != GameCoup.State.SETTLED:
        return None
    state = coup_state(last)
    try:
        return play.next_seating(state, seated, fund)
    except StepRefused:  # the game sends the bank to a player who left or holds no chips
        order = [*last.seating["punters"], last.seating["banker"]]  # from the banker's left
        nominal = play.next_banker(state)
        start = order.index(nominal) if nominal in order else 0
        nxt = next((k for k in [*order[start:], *order[:start]] if k in seated), seated[0])
        return game_play.seating_from(nxt, seated, fund=fund)


def _seating_after_void(void: GameCoup, seated: Sequence[str], fund: int) -> Seating:
    """The seating after the voided coup ``void``: a void changes nothing about the bank
    (docs/games/at-the-table.md, "Voiding": nothing is settled), so the next coup is seated as the
    voided one was, by its banker (where the game sent the bank, or the one the croupier named:
    old baccarat's passed bank, the banker's recorded choice, RULES.md §11) and as he opened it
    (Landsknecht's bank after a take, its sum); a banker who left or holds no chips hands it on to
    the next in the voided coup's order who holds chips, a new bank."""
    order = [void.seating["banker"], *void.seating["punters"]]
    nxt = next((k for k in order if k in seated), seated[0])
    opening: dict[str, Any] = {}
    if nxt == void.seating["banker"]:
        opening = {k: void.seating[k] for k in ("opening", "previous") if k in void.seating}
    return game_play.seating_from(nxt, seated, fund=fund, **opening)


def seating_proposed(session: TableSession, *, banker: Player | None = None) -> Seating:
    """Who plays the next coup at ``session``'s table: the seated players in seat order, the bank
    where the game sends it after the last coup (or with ``banker``, or the first seated player).
    After a voided coup the bank stays where it was for that coup: its banker, as he opened it.

    A seated player who holds no chips (none, or a marker) is left out of the coup, and so, in
    Macao, is a punter who could not pay the three units a banker's 9 collects. Why, by the rules
    (docs/games/): a punter takes part in every one of the three games only by putting chips at
    risk — Macao deals each punter of the seating a card against an agreed stake ("Размер ставки
    определяются до начала игры"), Landsknecht's punters cover the banker's stake, old baccarat's
    lay theirs before the cards — so a player with nothing to stake has no part in the coup; dealt
    in, he would refuse the whole Macao start (its exposure check) or sit in the others' seating
    unable to act. He keeps his seat and plays again once he is bought in. The bank is not left
    out: the game's next banker without chips hands it on, as one who left does, to the next player
    in the last coup's order who holds chips; a banker the croupier names without chips, or a table
    where nobody else can play against the bank, is refused with a sentence saying so."""
    table = session.table
    play = table_play(table)
    everyone = [player_key(s.player_id) for s in _seated(session)]
    if len(everyone) < 2:
        raise ValidationError(gettext_noop("The game needs a banker and at least one other seated player."))
    holding = _holdings(table.casino_id, [pid for k in everyone if (pid := key_player_id(k)) is not None])

    def holds(key: str) -> int:
        return holding.get(key_player_id(key) or 0, 0)

    seated = [k for k in everyone if holds(k) > 0]
    fund = fund_balance(table) if table.game == Table.Game.LANDSKNECHT else 0
    if banker is not None:
        key = player_key(banker)
        if banker.casino_id != table.casino_id:  # never named: a name is another casino's data
            raise ValidationError(gettext_noop("This player belongs to another casino."))
        if key not in everyone:
            raise ValidationError(said("{player} is not seated at this table.", player=str(banker)))
        if key not in seated:
            raise ValidationError(game_banker_no_chips(banker.display_name))
    if not seated:
        raise ValidationError(GAME_NOBODY_HOLDS_CHIPS)
    last = _last_coup(table)
    proposed: Seating | None = None
    if last is not None and last.session_id == session.pk:
        proposed = _seating_after(last, play, seated, fund)
    if banker is not None:
        key = player_key(banker)
        if proposed is None or proposed.banker != key:
            proposed = game_play.seating_from(key, seated, fund=fund)
    seating = proposed or game_play.seating_from(seated[0], seated, fund=fund)
    if table.game == Table.Game.MACAO:
        # each punter is dealt in against the banker's 9: three units at risk from the first card
        try:
            at_risk = play.exposure(play.begin(house_settings(table), seating))
        except StepRefused:
            at_risk = {}
        seating = replace(seating, punters=tuple(p for p in seating.punters if holds(p) >= at_risk.get(p, 0)))
    if not seating.punters:
        # every game needs a punter with chips: Landsknecht's banker plays the fund only when the
        # punters at the table refuse his stake, and a table without a punter is a bad table
        raise ValidationError(GAME_NOBODY_HOLDS_CHIPS)
    return seating


def seating_sitting_out(session: TableSession, seating: Seating) -> list[Player]:
    """The seated players the coup of ``seating`` leaves out (no chips to play with), seat order."""
    playing = {seating.banker, *seating.punters}
    return [s.player for s in _seated(session) if player_key(s.player_id) not in playing]


def _holdings(casino_id: int, player_ids: Sequence[int]) -> dict[int, int]:
    """Each player's chips, his player account plus his reserve (as ledger.selectors.player_available),
    in one read; a player without accounts holds 0."""
    holding: dict[int, int] = {}
    for player_id, balance in Account.objects.filter(
        casino=casino_id, kind__in=[AKind.PLAYER, AKind.RESERVE], player__in=list(player_ids)
    ).values_list("player_id", "balance"):
        holding[player_id] = holding.get(player_id, 0) + balance
    return holding


def _players(keys: Sequence[str], casino_id: int) -> dict[str, Player]:
    ids = {k: key_player_id(k) for k in keys}
    found = Player.objects.in_bulk([i for i in ids.values() if i is not None])
    out = {k: found[i] for k, i in ids.items() if i is not None and i in found}
    if len(out) != len(keys) or any(p.casino_id != casino_id for p in out.values()):
        raise ValidationError(gettext_noop("Every player of a coup is a player of this casino."))
    return out


def _check_exposure(play: GamePlay[Any, Any], state: Any, players: Mapping[str, Player], casino: Any) -> None:
    """Refuse what a player could not pay: his chips must cover the most he can now lose."""
    at_risk = {key: most for key, most in play.exposure(state).items() if key in players and most > 0}
    if not at_risk:
        return
    # one read for everyone at risk (player account plus reserve, as ledger.selectors.player_available)
    holding = _holdings(casino.pk, [players[k].pk for k in at_risk])
    for key, most in sorted(at_risk.items()):
        player = players[key]
        holds = holding.get(player.pk, 0)
        if holds < most:
            raise ValidationError(
                said(
                    "{player} holds {holds} chips and could lose {most} on this coup: a buy-in at the "
                    "cage comes first.",
                    player=player.display_name,
                    holds=holds,
                    most=most,
                )
            )


# ------------------------------------------------------------------------------------ the first bank
def first_bank_draw_open(session: TableSession) -> bool:
    """Whether the players of ``session`` draw cards for its first bank: a Macao table whose first
    banker is chosen by lot (drawing cards is Macao's lot: "Игроки садятся по вытянутым картам.
    Сдачу начинает вытянувший самую младшую карту"), before the session's first coup; after it
    the bank passes to the banker's left."""
    return (
        session.table.game == Table.Game.MACAO
        and session.table.first_banker_method == Table.FirstBanker.LOT
        and not GameCoup.objects.filter(session=session).exists()
    )


def first_bank_drawn(session: TableSession, drawn: Mapping[Player, str]) -> tuple[Player, dict[str, str]]:
    """Who deals first at ``session``'s Macao table, by the cards its seated players drew: the
    lowest card, the ace counting one point as the game counts it (RULES.md §11), through the
    engine (older_games.engine.macao.lowest_drawn); and the cards as the record keeps them (by
    player key, their codes). Refused with a sentence, nothing written: a draw where the table
    does not draw, a player not seated, fewer than two cards, a card that is none, a tie for the
    lowest card (those players draw again)."""
    if not first_bank_draw_open(session):
        raise ValidationError(
            gettext_noop(
                "Cards are drawn for the first bank of a Macao session whose first banker is chosen "
                "by lot, before its first coup."
            )
        )
    seated = {s.player_id for s in _seated(session)}
    for player in drawn:
        if player.pk not in seated:
            raise ValidationError(said("{player} is not seated at this table.", player=str(player)))
    if len(drawn) < 2:
        raise ValidationError(gettext_noop("At least two seated players draw a card for the first bank."))
    by_key = {player_key(p): p for p in drawn}
    try:
        lowest = macao.lowest_drawn({player_key(p): card for p, card in drawn.items()})
    except macao.MacaoError as exc:
        raise ValidationError(why(exc)) from None
    if len(lowest) > 1:
        raise ValidationError(
            said(
                "{names} drew the lowest card: they draw again.",
                names=Listing(by_key[k].display_name for k in lowest),
            )
        )
    # the codes as every record writes them (10D is TD): a card that is none was refused above
    cards = {player_key(p): card_code(card) or card for p, card in drawn.items()}
    return by_key[lowest[0]], cards


# ------------------------------------------------------------------------------------ starting
@transaction.atomic
def game_coup_start(
    *,
    actor: Staff,
    session: TableSession,
    banker: Player | None = None,
    drawn: Mapping[Player, str] | None = None,
) -> GameCoupResult:
    """A new coup of the table's game, with the seating :func:`seating_proposed` gives. With
    ``drawn`` (Macao, the session's first coup: the card each seated player drew), the lowest card
    banks (:func:`first_bank_drawn`), and the cards are kept in the coup's start event."""
    session = lock_session(session)
    table = session.table
    check_croupier_at(actor, table)
    require_open(session)
    play = table_play(table)
    if GameCoup.objects.filter(table=table, state=GameCoup.State.OPEN).exists():
        raise CoupConflict("A coup is already being played at this table: finish or void it first.")
    cards_drawn: dict[str, str] | None = None
    if drawn is not None:
        if banker is not None:
            raise ValidationError(gettext_noop("Name the banker or draw cards for him, not both."))
        banker, cards_drawn = first_bank_drawn(session, drawn)
    unpaid = fund_dues_unpaid(session)
    if unpaid:
        raise ValidationError(unpaid_dues_refusal(unpaid))
    settings = house_settings(table)
    seating = seating_proposed(session, banker=banker)
    players = _players([seating.banker, *seating.punters], table.casino_id)
    try:
        state = play.begin(settings, seating)
    except StepRefused as exc:
        raise ValidationError(why(exc)) from None
    _check_exposure(play, state, players, table.casino)
    number = (GameCoup.objects.filter(table=table).aggregate(n=Max("number"))["n"] or 0) + 1
    now = timezone.now()
    coup = GameCoup.objects.create(
        table=table,
        session=session,
        number=number,
        game=table.game,
        house_settings=play.settings_dict(settings),
        seating={**asdict(seating), "punters": list(seating.punters)},
        banker=players[seating.banker],
        created_at=now,
        created_by=actor,
    )
    coup.table = table
    audit_record(
        actor=actor,
        action="tables.game_coup.start",
        target=coup,
        after={
            "game": coup.game,
            "number": number,
            "seating": coup.seating,
            "settings": coup.house_settings,
            # the cards drawn for the first bank, when the lowest named the banker (Macao)
            **({"drawn": cards_drawn} if cards_drawn is not None else {}),
        },
        rows=[coup],
    )
    return GameCoupResult(coup, state)


# ------------------------------------------------------------------------------------ a step
def _require_in_play(coup: GameCoup, expected_steps: int | None) -> None:
    """The coup takes a step: it is open, and the client saw its latest step (two tablets)."""
    if coup.state != GameCoup.State.OPEN:
        raise CoupConflict(
            f"Coup {coup.number} is over ({coup.get_state_display()}).", current_step=coup.step_count
        )
    if expected_steps is not None and expected_steps != coup.step_count:
        raise CoupConflict(
            f"Coup {coup.number} has {coup.step_count} steps, not {expected_steps}: "
            "another entry came first.",
            current_step=coup.step_count,
        )


def _append_step(
    *, actor: Staff, coup: GameCoup, payload: dict[str, Any], action: str, idempotency_key: str = ""
) -> GameStep:
    """The coup's next step row, its count moved on and its audit event, in the caller's transaction."""
    step = GameStep.objects.create(
        coup=coup,
        index=coup.step_count + 1,
        payload=payload,
        actor=actor,
        created_at=timezone.now(),
        idempotency_key=idempotency_key,
    )
    coup.step_count += 1
    GameCoup.objects.filter(pk=coup.pk, step_count=coup.step_count - 1).update(step_count=coup.step_count)
    audit_record(
        actor=actor,
        action=action,
        target=step,
        after={"coup": coup.pk, "index": step.index, "payload": payload},
        casino=coup.table.casino_id,
        rows=[coup, step],
    )
    return step


def coup_parties(coup: GameCoup, steps: Sequence[Mapping[str, Any]]) -> list[str]:
    """Everyone with a part in the coup: its seating (banker first), then the players its steps
    still in effect name (an old baccarat newcomer who joined), each once."""
    named = [p.get("player") for p in game_play.effective_steps(steps)]
    keys = [coup.seating["banker"], *coup.seating["punters"], *(k for k in named if isinstance(k, str))]
    return [k for k in dict.fromkeys(keys) if key_player_id(k) is not None]


def open_coup_part(session: TableSession, player: Player | int) -> tuple[GameCoup, bool] | None:
    """The open coup of an older game at ``session`` in which ``player`` banks, punts or staked
    (his chips are at risk until it settles), and whether the game lets him leave the table now
    (old baccarat's ``leave``); None if he has no part in one, or left it already."""
    if session.table.game not in OLDER_GAMES:
        return None
    coup = GameCoup.objects.filter(session=session, state=GameCoup.State.OPEN).first()
    if coup is None:
        return None
    key = player_key(player)
    steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    kept = game_play.effective_steps(steps)
    if key not in coup_parties(coup, steps) or {"kind": game_play.LEAVE, "player": key} in kept:
        return None
    options = game_play.play_for(coup.game).options(coup_state(coup, steps))
    return coup, any(o.kind == game_play.LEAVE and o.player == key for o in options)


def coup_newcomers(coup: GameCoup, parties: Sequence[str]) -> dict[str, Player]:
    """The players seated at the coup's table now who have no part in it (by key, seat order):
    those a step offered to a newcomer (``Option.newcomer``) may name."""
    taken = set(parties)
    return {
        key: seat.player for seat in _seated(coup.session) if (key := player_key(seat.player_id)) not in taken
    }


def _player_checked(
    play: GamePlay[Any, Any],
    state: Any,
    payload: Mapping[str, Any],
    players: dict[str, Player],
    newcomers: Callable[[], Mapping[str, Player]],
) -> Mapping[str, Any]:
    """A step that names its player (a screen sends the player of the control it came from) names
    the one the game expects: a card dealt to the wrong seat is refused, not recorded under a
    name the machine ignores; where the machine itself knows who (a Landsknecht card), the name
    is dropped. A step offered to a newcomer names a player seated at the table with no part in
    the coup yet; he joins ``players``."""
    who = payload.get("player")
    if who is None:
        return payload
    kind_options = [o for o in play.options(state) if o.kind == payload.get("kind")]
    if any(o.newcomer for o in kind_options) and who not in players:
        joining = newcomers().get(str(who))
        if joining is None:
            raise ValidationError(
                said(
                    "Only a player seated at this table with no part in the coup yet takes this step "
                    "({kind}).",
                    kind=Word(str(payload.get("kind")), "game step name"),
                )
            )
        players[str(who)] = joining
        return payload
    offered = {o.player for o in kind_options if not o.newcomer}
    if offered == {None}:
        return {k: v for k, v in payload.items() if k != "player"}
    if offered and who not in offered:

        def name(key: object) -> str:
            player = players.get(str(key))
            return player.display_name if player is not None else str(key)

        expected = Listing(sorted(name(k) for k in offered), sep=" or ")
        raise ValidationError(
            said(
                "This {kind} is not {who}'s now but {expected}'s.",
                kind=Word(str(payload.get("kind")), "game step name"),
                who=name(who),
                expected=expected,
            )
        )
    return payload


def _parties_named(coup: GameCoup, steps: Sequence[GameStep], payload: Mapping[str, Any]) -> list[int]:
    """The players the coup's seating, its steps or the step being recorded name (every one whose
    chips its settlement may move), read from the rows as they are, before they are vouched for:
    a row changed names at worst a player more, whose seat is then vouched for too."""
    seating = coup.seating if isinstance(coup.seating, dict) else {}
    punters = seating.get("punters")
    named = [
        seating.get("banker"),
        *(punters if isinstance(punters, list) else ()),
        *(row.payload.get("player") for row in steps if isinstance(row.payload, dict)),
        payload.get("player"),
    ]
    return sorted({pid for key in named if isinstance(key, str) and (pid := key_player_id(key)) is not None})


@transaction.atomic
def game_step_record(
    *,
    actor: Staff,
    coup: GameCoup | int,
    payload: Mapping[str, Any],
    expected_steps: int | None = None,
    idempotency_key: str = "",
) -> GameCoupResult:
    """Record one step (the game's JSON, docs/games/): applied through the machine or refused."""
    coup = lock_game_coup(coup)
    table = coup.table
    check_croupier_at(actor, table)
    if idempotency_key:
        earlier = GameStep.objects.filter(coup=coup, idempotency_key=idempotency_key).first()
        if earlier is not None:
            return GameCoupResult(coup, coup_state(coup), earlier)
    _require_in_play(coup, expected_steps)
    if not isinstance(payload, Mapping):
        raise ValidationError(gettext_noop("A step is a JSON object."))
    play = game_play.play_for(coup.game)
    step_rows = list(coup.steps.order_by("index"))
    # every step replays the coup's seating and steps, and the last one settles on them: each
    # must be what its event bound (one statement), or a seating or a step changed in the
    # database would be played on and settled unseen; and so must the seats of the players it
    # moves chips of (read by that same statement), or a seat inserted for a player who never sat
    # there would put his chips in the next coup's seating, or a newcomer's stake, and settle them
    game_coup_vouch(
        coup=coup,
        steps=step_rows,
        players=_parties_named(coup, step_rows, payload),
        current_step=coup.step_count,
    )
    steps = [row.payload for row in step_rows]
    before = coup_state(coup, steps)
    parties = coup_parties(coup, steps)
    players = _players(parties, table.casino_id)
    payload = _player_checked(play, before, payload, players, lambda: coup_newcomers(coup, parties))
    try:
        state = play.step(before, payload)
    except StepRefused as exc:
        raise ValidationError(why(exc)) from None
    _check_exposure(play, state, players, table.casino)
    clean = {k: v for k, v in payload.items() if k in ("kind", "player", "card", "amount", "decision")}
    step = _append_step(
        actor=actor, coup=coup, payload=clean, action="tables.game_coup.step", idempotency_key=idempotency_key
    )
    if play.finished(state):
        _settle(actor=actor, coup=coup, play=play, state=state, players=players)
        _leavers_unseat(actor=actor, coup=coup, steps=[*steps, clean])
    return GameCoupResult(coup, state, step)


def _leavers_unseat(
    *, actor: Staff | None, coup: GameCoup, steps: Sequence[Mapping[str, Any]] | None = None
) -> None:
    """The coup is over: the players who left the table during it (its ``leave`` steps still in
    effect) give up their seats now, their stakes settled with the coup (or returned by its void).
    Until then the seat stays his, so a ``leave`` taken back (a wrong button) undoes nothing else.
    ``steps``: the coup's recorded payloads, when the caller has them."""
    if steps is None:
        steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    leavers = {
        pid
        for p in game_play.effective_steps(steps)
        if p.get("kind") == game_play.LEAVE and (pid := key_player_id(str(p.get("player")))) is not None
    }
    if not leavers:
        return
    now = timezone.now()
    for seat in Seat.objects.select_for_update().filter(
        session=coup.session_id, player__in=leavers, left_at__isnull=True
    ):
        # the field changed, as the floor's seat_leave records it (tables.services.audited)
        before = fields_snapshot(seat, ["left_at"])
        rows_loaded(seat)  # its state as locked goes into its binding (audit.rows), as seat_leave's
        seat.left_at = now
        seat.save(update_fields=["left_at"])
        audit_record(
            actor=actor,
            action="tables.seat.leave",
            target=seat,
            before=before,
            after=fields_snapshot(seat, ["left_at"]),
            rows=[RowWritten(seat)],
        )


def settlement_entries(
    transfers: Sequence[Transfer], account_of: Callable[[str], int]
) -> dict[str, dict[int, int]]:
    """A finished coup's postings, by transaction kind: each one's entries (account id -> chips),
    ``account_of`` naming the account of a party (a player's key, :data:`FUND`, :data:`POOL`).

    Stakes into the tie pool are one posting (``pool_in``), its shares out another (``pool_out``),
    each only when it moves chips; everything else is the ``game_settlement``, posted even when
    nothing moves. ``verify_books`` re-derives a coup's postings with this same rule."""
    groups: dict[str, list[Transfer]] = {TKind.POOL_IN: [], TKind.POOL_OUT: [], TKind.GAME_SETTLEMENT: []}
    for t in transfers:
        into = (
            TKind.POOL_IN if t.payee == POOL else TKind.POOL_OUT if t.payer == POOL else TKind.GAME_SETTLEMENT
        )
        groups[into].append(t)
    out: dict[str, dict[int, int]] = {}
    for kind, moved in groups.items():
        entries: dict[int, int] = {}
        for t in moved:
            payer, payee = account_of(t.payer), account_of(t.payee)
            entries[payer] = entries.get(payer, 0) - t.amount
            entries[payee] = entries.get(payee, 0) + t.amount
        entries = {pk: a for pk, a in entries.items() if a}
        if entries or kind == TKind.GAME_SETTLEMENT:
            out[kind] = entries
    return out


def _settle(
    *,
    actor: Staff,
    coup: GameCoup,
    play: GamePlay[Any, Any],
    state: Any,
    players: Mapping[str, Player],
) -> None:
    """The finished coup's settlement as postings, its record kept, the offline judge consulted.

    Chips move between player accounts, the table's reserve fund (Landsknecht) and its tie pool
    (old baccarat): the pool's postings go in two transactions (stakes in, shares out) so the pool
    account shows them, and is empty again after. A player may end below zero only if chips left
    him between his stake and the settlement (a cash-out meanwhile): the exposure checks refuse
    every stake he could not pay, and the table is never held up by it; the marker shows."""
    transfers = play.transfers(state)
    game_play.settle_check(transfers)
    record = play.record(state)
    verdict = play.verdict(play.settings(coup.house_settings), record)
    judged = [
        Transfer(t["payer"], t["payee"], t["amount"])
        for t in ((verdict.get("settlement") or {}).get("transfers") or [])
    ]
    if verdict["violations"] or judged != list(transfers):
        # the machine refuses every illegal step, so the judge must agree: a bug, never the croupier's
        raise AssertionError(f"the offline judge disagrees with the live machine on {coup}: {verdict}")
    table = coup.table
    by_key: dict[str, Any] = {}
    specs = []
    for key in sorted({t.payer for t in transfers} | {t.payee for t in transfers}):
        spec = (
            account_spec(AKind.FUND, table=table)
            if key == FUND
            else account_spec(AKind.POOL, table=table)
            if key == POOL
            else account_spec(AKind.PLAYER, players[key])
        )
        by_key[key] = spec
        specs.append(spec)
    locked = accounts_lock(
        casino=table.casino,
        specs=specs,
        actor=actor,
        players={p.pk: p for p in players.values()},
        tables={table.pk: table},
    )
    postings = []
    for kind, entries in settlement_entries(transfers, lambda key: locked[by_key[key]].pk).items():
        key = f"game-coup:{coup.pk}:{kind}"
        if posting_find(key, casino=table.casino, kind=kind) is None:
            postings.append(
                Posting(kind, key, entries, memo=f"{coup} ({play.outcome(state)})", game_coup=coup)
            )
    overdraft = [a.pk for a in locked.values() if a.kind == AKind.PLAYER]
    postings_write(
        casino=table.casino,
        actor=actor,
        postings=postings,
        accounts=accounts_by_pk(locked),
        overdraft=overdraft,
    )
    outcome = play.outcome(state)
    game_coup_state_change(coup=coup, to=GameCoup.State.SETTLED, outcome=outcome, record=record)
    audit_record(
        actor=actor,
        action="tables.game_coup.settle",
        target=coup,
        after={"outcome": outcome, "record": record, "verdict": verdict},
        rows=[coup],
    )


# ------------------------------------------------------------------------------------ undo
@transaction.atomic
def game_step_undo(
    *, actor: Staff, coup: GameCoup | int, expected_steps: int | None = None, reason: str = ""
) -> GameCoupResult:
    """Take back the coup's last step still in effect (a mistyped card, a wrong button) while the
    coup is open: an ``undo`` step is appended (the record stays append-only and the screen shows
    both struck through), and the replay skips both. A settled coup is not undone: its settlement
    is posted (a pit boss reviews it); a coup with nothing to take back refuses."""
    coup = lock_game_coup(coup)
    table = coup.table
    check_croupier_at(actor, table)
    _require_in_play(coup, expected_steps)
    steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    kept = game_play.effective_steps(steps)
    if not kept:
        raise ValidationError(gettext_noop("There is no step to take back."))
    payload: dict[str, Any] = {"kind": game_play.UNDO, "of": dict(kept[-1])}
    if reason.strip():
        payload["reason"] = reason.strip()[:200]
    state = coup_state(coup, [*steps, payload])
    step = _append_step(actor=actor, coup=coup, payload=payload, action="tables.game_coup.undo")
    return GameCoupResult(coup, state, step)


# ------------------------------------------------------------------------------------ voiding
def game_coup_stakes(coup: GameCoup, steps: Sequence[Mapping[str, Any]] | None = None) -> int:
    """What the punters have at stake in ``coup`` on what has been entered: the most each could
    still lose, added up (the engine's exposure, the banker's own aside); what the casino's void
    limit is measured against. A coup whose steps cannot all be replayed any more (a row changed
    in the database: the void is its way out, and must not depend on them) is priced on the
    longest start of its steps that can be; one whose seating cannot be read, at nothing."""
    if steps is None:
        steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    replayable = game_steps_replayable(coup, steps)
    if replayable is None:
        return 0
    banker = player_key(coup.banker_id)
    exposure = game_play.play_for(coup.game).exposure(coup_state(coup, replayable))
    return sum(most for key, most in exposure.items() if key != banker)


#: what replaying a step row the application did not write can raise: the engine's refusal (a
#: ValueError), or a payload or seating of another shape altogether
_UNREPLAYABLE = (ValueError, TypeError, KeyError, AttributeError)


def game_steps_replayable(
    coup: GameCoup, steps: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]] | None:
    """The longest start of ``steps`` that the coup's game replays on its seating: all of them
    unless a row was changed in the database (the vouching refuses every step of such a coup: its
    void, its screens and its player's page read it through here); None when not even its seating
    can be replayed."""
    for count in range(len(steps), -1, -1):
        try:
            coup_state(coup, steps[:count])
        except _UNREPLAYABLE:
            continue
        return list(steps[:count])
    return None


@transaction.atomic
def game_coup_void(
    *,
    actor: Staff,
    coup: GameCoup | int,
    reason: str,
    expected_steps: int | None = None,
    approving: VoidRequest | int | None = None,
) -> GameCoup | VoidRequest:
    """End an unfinished coup with nothing settled (a player called away, a misdeal, a coup
    entered wrongly): the croupier of the table or a pit boss, with a reason, audited.
    ``expected_steps``: the step count the client saw (a stale screen's void is a conflict).

    A coup with more at stake than the casino's ``void_second_approval_above`` is not voided
    here: the answer is the ``VoidRequest`` that waits for a second pit boss
    (tables.services.void_requests); ``approving``: that request, approved by the second pit boss
    (tables.services.voids), lapsed when the coup ended meanwhile."""
    coup = lock_game_coup(coup)
    if not (is_croupier_at(actor, coup.table) or can_approve(actor, coup.table.casino_id)):
        if can_approve(actor) or has_role(actor, Role.CROUPIER):
            check_works_for(actor, coup.table.casino_id)  # one who voids elsewhere: 403 and why
        raise PermissionDenied("Only the table's croupier or a pit boss may void a coup.")
    check_independent_voider(actor, coup)
    request = None if approving is None else void_request_locked(approving, coup=coup)
    if request is not None:
        if coup.state != GameCoup.State.OPEN:
            return void_request_lapse(request=request)
        reason = request.reason
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError(gettext_noop("Say why the coup is void."))
    _require_in_play(coup, None if request is not None else expected_steps)
    steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    if request is None:
        stakes = game_coup_stakes(coup, steps)
        asked = void_gate(actor=actor, casino=coup.table.casino, coup=coup, stakes=stakes, reason=reason)
        if asked is not None:
            return asked
    game_coup_state_change(coup=coup, to=GameCoup.State.VOID, void_reason=reason[:300])
    after: dict[str, Any] = {"reason": coup.void_reason, "steps": coup.step_count}
    if request is not None:
        after |= void_request_approved(actor=actor, request=request)
    audit_record(actor=actor, action="tables.game_coup.void", target=coup, after=after, rows=[coup])
    _leavers_unseat(actor=actor, coup=coup, steps=game_steps_replayable(coup, steps) or [])
    return coup


def session_close_refusal(session: TableSession) -> str | None:
    """Why ``session`` cannot close now: a coup of its game in play (the floor's close asks), and
    who can void it: the croupier at his screen while no step is recorded; once one is, only one
    who recorded none (tables.permissions.check_independent_voider): a pit boss."""
    open_coup = GameCoup.objects.filter(session=session, state=GameCoup.State.OPEN).first()
    if open_coup is None:
        return None
    if GameStep.objects.filter(coup=open_coup).exists():
        return CLOSE_GAME_COUP_STEPS_RECORDED
    return CLOSE_GAME_COUP_IN_PLAY


def game_seat_leaving(*, actor: Staff, seat: Seat) -> bool:
    """The game's part of ``seat_leave`` (the session locked): refused while the player is in the
    coup in play and may not leave it; old baccarat's player leaves at any moment, his stake
    staying in the coup until it settles: the step is the coup's record of it, and the seat is
    given up when the coup ends (True). False: nothing of the game holds him."""
    part = open_coup_part(seat.session, seat.player_id)
    if part is None:
        return False
    coup, may_leave = part
    if not may_leave:
        raise ValidationError(said("This player is in the coup being played: finish or void it first."))
    game_step_record(
        actor=actor, coup=coup, payload={"kind": game_play.LEAVE, "player": player_key(seat.player_id)}
    )
    return True
