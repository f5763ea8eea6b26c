"""Recording a coup step by step, every step checked by the rules engine as it is entered.

One step is one transaction: the table, shoe and coup rows are locked (tables.services.locking),
the coup's recorded steps are replayed through the engine, the new step is applied, and the step
row, its side effects (bets, cards seen, the settlement at the reveal) and its audit event are
written together — or nothing is.

Three kinds of refusal, each with nothing written:
- ``ValidationError``: the step cannot be recorded (bad card, bet above what is left of the bank,
  a fourth card…);
- ``CoupConflict``: the client's view is stale (another tablet moved the coup on) or the coup is
  over;
- ``ConfirmationRequired``: the step breaks the rules. If it did happen at the table the croupier
  confirms it, and it is recorded with its violation and the coup flagged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext_noop

from audit.rows import RowSpec, RowsWhere, RowWritten
from audit.services import audit_record
from chemin_de_fer.engine.coup import Outcome, Settlement, Verdict, Violation
from chemin_de_fer.engine.entry import Entry, EntryRefused, Judged, Punter, entry_judge
from chemin_de_fer.engine.entry import Table as EntryTable
from chemin_de_fer.engine.interchange import verdict_to_dict
from chemin_de_fer.engine.machine import CoupProgress, IllegalStep, Move, Step, apply, new_coup
from chemin_de_fer.engine.profiles import Side
from chemin_de_fer.engine.punters import seat_key, spectator_key
from core.atomic import service_atomic
from core.errors import DomainError
from core.sentence import said, why
from core.types import Staff
from tables import sql
from tables.engine_bridge import (
    banker_key,
    coup_replay,
    coup_verdict,
    snapshot_rules,
    table_rules_snapshot,
)
from tables.lifecycle import CoupConflict as CoupConflict  # re-exported: the refusal of this module
from tables.lifecycle import coup_state_change, coup_state_set
from tables.models import (
    UNFINISHED_COUP_STATES,
    BankShare,
    BankTax,
    BankTurn,
    Bet,
    Coup,
    CoupStep,
    Seat,
    Shoe,
    ShoeCard,
    Spectator,
    TableSession,
)
from tables.money import floor as money
from tables.services.banks import bank_after_coup, bank_continuation, bank_minimum_written
from tables.services.locking import lock_coup_with_steps, session_lock_at_table
from tables.services.rules_snapshots import rules_snapshot_keep
from tables.services.series import series_check_allows_coup
from tables.services.shoes import card_out_checked, card_record, shoe_close_locked
from tables.services.vouching import bank_rows_vouch, coup_settlement_vouch


class ConfirmationRequired(DomainError):
    """The step breaks the rules: record it only if it really happened (resend with confirm)."""

    status = 422
    code = "confirmation_required"

    def __init__(self, violation: Violation) -> None:
        super().__init__(f"{violation.code}: confirm that this happened at the table")
        self.violation = violation

    def body(self) -> dict[str, Any]:
        v = self.violation  # the same shape as a coup's violations in the API (ViolationOut)
        return {**super().body(), "violation": {"code": v.code.value, "side": v.side, "detail": v.detail}}


@dataclass(frozen=True)
class Caller:
    """One banco caller, by seat number or spectator id."""

    seat: int | None = None
    spectator: int | None = None
    suivi: bool = False


@dataclass(frozen=True)
class StepRequest:
    """A step as the croupier (or a smart shoe) enters it."""

    kind: Move
    amount: int | None = None
    seat: int | None = None  # bet: the seat number betting
    spectator: int | None = None  # bet: the spectator (id) betting
    card: str | None = None
    callers: tuple[Caller, ...] = ()
    # a spectator's bet (docs/rules.md §2): the croupier says every seated punter has had his turn
    # (those who have not bet pass), and, where the profile asks for it, that the banker consents
    seated_round_over: bool = False
    consent: bool = False


@dataclass(frozen=True)
class StepResult:
    coup: Coup
    step: CoupStep
    # the engine state after the step; where ``steps`` is given, it is their replay (the answer
    # is rendered from it, not replayed again: tables.selectors.coup_view)
    state: CoupProgress
    violation: Violation | None = None
    verdict: Verdict | None = None
    # every step row of the coup after this one, in order, with their actors, when the service
    # has them all at hand (it holds the coup's lock): the answer is rendered from them and from
    # ``coup`` (whose shoe, table and bank turn are loaded) instead of reading the coup again
    steps: list[CoupStep] | None = None


# --------------------------------------------------------------------------------- starting a coup
@service_atomic
def coup_start(
    *,
    actor: Staff,
    session: TableSession,
    amount: int,
    idempotency_key: str = "",
    rules: dict[str, Any] | None = None,
    first_coup_of_bank: bool | None = None,
    history: bool = False,
    session_locked: bool = False,
) -> StepResult:
    """The banker declares his bank: the coup begins with it (its first step).

    ``history`` (with ``rules`` and ``first_coup_of_bank``) is for an import of recorded history:
    the coup is judged under the rules the history names, what happened is recorded even where a
    live table would refuse it (flagged instead), and an earlier coup still awaiting its
    correction does not hold the table up — it did not, back then.

    ``session_locked``: the caller took this transaction's first locks itself, ``session`` open
    and its table locked and ``actor`` found on shift there
    (tables.services.locking.open_session_lock_at_table); the start takes none of its own.
    """
    if not session_locked:
        session = session_lock_at_table(actor=actor, session=session)
    table = session.table
    blocking = [Coup.State.OPEN] if history else UNFINISHED_COUP_STATES
    # the open shoe locked (the lock order's third) and everything else the start checks and
    # counts, read in one statement: its bank turn with the seat and player (the coup's banker), a
    # coup still in play, a pause, the series, the coup's number in its shoe (the shoe is locked:
    # no other coup starts in it meanwhile) and how many of its bank's coups were played
    read = sql.coup_start_read(session, blocking=blocking)
    shoe = read.shoe
    if shoe is None or shoe.session_id != session.pk:
        raise ValidationError(gettext_noop("Start a shoe first."))
    turn = read.turn
    if turn is None:
        raise ValidationError(gettext_noop("Nobody holds the bank: choose the banker first."))
    if read.pending is not None:
        pending_state, pending_number, pending_shoe = read.pending
        first = (
            gettext_noop("First finish coup {coup} of shoe {shoe}.")
            if pending_state == Coup.State.OPEN
            else gettext_noop("First restore coup {coup} of shoe {shoe}.")
        )
        raise ValidationError(said(first, coup=pending_number, shoe=pending_shoe))
    shoe.table = table  # the locked table (with its profile and casino), for the answer
    if read.paused:
        raise ValidationError(gettext_noop("The table is paused."))
    if not history:
        series_check_allows_coup(series=read.series)
    number = (read.last or 0) + 1
    # unless the caller says, whether it is its bank's first: a bank withdrawn (nobody bet) or a
    # coup voided was not played, so the next one is still the bank's first (its levy exemption,
    # RULES.md §6)
    if first_coup_of_bank is None:
        first_coup_of_bank = not read.played
    house = turn.started_how == BankTurn.Start.HOUSE
    # no levy on the house's own wins (docs/rules.md §2)
    snapshot = rules or table_rules_snapshot(table, levy=not house)
    state = new_coup(
        snapshot_rules(snapshot),
        minimum_bank=turn.required_minimum,
        house_limit=snapshot["house_limit"],
        first_coup_of_bank=first_coup_of_bank,
        historical=history,
    )
    banker = banker_key(turn)
    try:
        state = apply(state, Step(Move.BANK_DECLARED, amount=amount, punter=banker))
    except IllegalStep as exc:
        raise ValidationError({"amount": why(exc)}) from None
    # the money moves on the bank turn read (its player is the banker, its minimum the smallest
    # bank) and, on a bank's first coup where spectators share it, on their shares: each must be what
    # its events bound (one statement), or a turn handed to another player in the database funds
    # the bank from his chips (tables.services.vouching)
    shares: list[BankShare] = []
    if first_coup_of_bank and state.rules.profile.spectators_share_bank:
        shares = list(BankShare.objects.filter(turn=turn).select_related("spectator"))
    bank_rows_vouch(turn=turn, session=session, shares=shares)
    now = timezone.now()
    # only a recorded history gets one: a bank under the profile's minimum, flagged, not refused
    declared = [v.code.value for _, v in state.violations]
    coup = Coup.objects.create(
        shoe=shoe,
        number=number,
        banker=turn.player,
        bank=amount,
        bank_turn=turn,
        rules_snapshot_id=rules_snapshot_keep(content=snapshot),
        first_coup_of_bank=first_coup_of_bank,
        step_count=1,
        flagged=bool(declared),
        created_at=now,
    )
    payload: dict[str, Any] = {"amount": amount, "banker": banker, "minimum": turn.required_minimum}
    if history:
        payload["historical"] = True
    step = CoupStep.objects.create(
        coup=coup,
        index=1,
        kind=CoupStep.Kind.BANK_DECLARED,
        payload=payload,
        actor=actor,
        created_at=now,
        violations=declared,
        idempotency_key=idempotency_key,
    )
    # while a series runs, the bank is at most the banker's chips in it (the series the start read)
    money.bank_fund(coup=coup, actor=actor, series=None if history else read.series)
    audit_record(
        actor=actor,
        action="tables.coup.start",
        target=coup,
        after={
            "shoe": shoe.pk,
            "number": number,
            "banker": turn.player_id,
            "step": 1,
            **payload,
            **({"violations": declared} if declared else {}),
        },
        # both just INSERTed whole, and nothing of the start changes them after (the bank's funding
        # posts to the ledger): bound by the values sent, not read back
        rows=[RowWritten(coup), RowWritten(step)],
    )
    return StepResult(coup=coup, step=step, state=state, steps=[step])


def coup_step_expected(coup: Coup, expected_step: int | None) -> None:
    """The client saw the coup at ``expected_step`` (None: it does not say): a stale view is a
    conflict, answered with the step the coup is at."""
    if expected_step is not None and expected_step != coup.step_count:
        raise CoupConflict(
            f"Stale step: the coup is at step {coup.step_count}, not {expected_step}.",
            current_step=coup.step_count,
        )


# ------------------------------------------------------------------------------------- every step
@service_atomic
def coup_step_record(
    *,
    actor: Staff,
    coup: Coup | int,
    request: StepRequest,
    expected_step: int,
    confirm: bool = False,
    idempotency_key: str = "",
) -> StepResult:
    """Record one step of the coup. ``expected_step`` is the step count the client last saw."""
    # and checks he is the croupier on shift at its table; with the coup's step rows and their
    # actors (the answer shows who entered each step: StepResult.steps)
    coup, rows = lock_coup_with_steps(coup, croupier=actor)
    if coup.state != Coup.State.OPEN:
        raise CoupConflict(
            f"This coup is {coup.state.replace('_', ' ')}: no more steps.", current_step=coup.step_count
        )
    coup_step_expected(coup, expected_step)
    if request.kind is Move.BANK_DECLARED:
        raise ValidationError(gettext_noop("The bank is declared when the coup starts."))
    if request.kind is Move.REVEAL:
        # the money moves on these rows: each must be what its event bound (one statement), or a
        # step inserted, edited or deleted in the database would be settled unseen, and so would a
        # seat handed to another player, or the bank turn (the seats and spectators of the bets,
        # read by that same statement, and the bank turn and the banker's seat the lock loaded)
        coup_settlement_vouch(coup=coup, steps=rows, current_step=coup.step_count)
    state = coup_replay(coup, rows)
    judged, bettor = _engine_step(coup, state, request, rows)
    payload = judged.payload
    try:
        new_state = apply(state, judged.step)
    except IllegalStep as exc:
        raise ValidationError(why(exc)) from None
    fresh = new_state.violations[len(state.violations) :]
    violation = fresh[0][1] if fresh else None
    if violation is not None and not confirm:
        raise ConfirmationRequired(violation)

    verdict = None
    if request.kind is Move.REVEAL:
        verdict = coup_verdict(coup, new_state)
        payload["verdict"] = verdict_to_dict(verdict)
    # a bet's row and a card's are written with the step's (a banco withdraws the other bets first:
    # _banco_write, after the step)
    bet = bettor if bettor is not None and request.kind is not Move.BANCO else None
    row, written = step_append_with(
        coup=coup,
        actor=actor,
        kind=request.kind.value,
        payload=payload,
        role=_DEALT_TO.get(request.kind),
        bet=None if bet is None else _BetOffered(bet.seat, bet.standing, request.amount),
        violation=violation,
        idempotency_key=idempotency_key,
    )
    index = row.index
    # the rows this step writes, bound to its audit event (the coup's counters and state with them).
    # The step, a bet, a card and a levy are rows just INSERTed whole and never changed (append-only):
    # bound by the values sent, not read back. So is the coup: the locked instance takes every
    # change a step makes to its row (step_append's counter and flag, _alarm_check's alarm, the
    # reveal's state and settlement time, coup_state_change or _settled_write), and nothing else in
    # a step writes it (tests/tables/api/test_step_statements.py compares every binding with the
    # row committed).
    bound: list[RowSpec] = [RowWritten(coup), RowWritten(row)]
    if written is not None:
        bound.append(RowWritten(written))
    elif bettor is not None:
        bound.append(_banco_write(coup, bettor, new_state))
    if verdict is not None:
        tax = _reveal(actor=actor, coup=coup, verdict=verdict, state=new_state)
        if tax is not None:
            bound.append(RowWritten(tax))

    # the event names the step (its index and kind); what the step holds (payload, violation) is
    # the coupstep row, bound above by digest: a copy here would only double the bytes
    audit_record(
        actor=actor,
        action="tables.coup.step",
        target=coup,
        after={"index": index, "kind": request.kind.value},
        rows=bound,
    )
    return StepResult(
        coup=coup, step=row, state=new_state, violation=violation, verdict=verdict, steps=[*rows, row]
    )


def step_append(
    *,
    coup: Coup,
    actor: Staff,
    kind: str,
    payload: dict[str, Any],
    idempotency_key: str = "",
    violation: Violation | None = None,
    corrects: CoupStep | None = None,
    supersedes: CoupStep | None = None,
    more_violations: tuple[Violation, ...] = (),
    after_index: int | None = None,
) -> CoupStep:
    """Append the coup's next step (the caller holds the coup's lock): the append-only row, the
    step counter and the flag move together, so the counter always equals the last index.
    ``after_index``: the last index the coup's step rows hold, when the caller read them and they
    may run past the counter (a row inserted in the database: the void writes after it, never into
    its place)."""
    found = ([violation] if violation else []) + list(more_violations)
    step, flagged = _step_new(
        coup=coup, actor=actor, kind=kind, payload=payload, idempotency_key=idempotency_key, found=found,
        corrects=corrects, supersedes=supersedes, after_index=after_index,
    )
    # one statement for both where the database can: every step of every coup comes through here
    if not sql.step_insert_counted(step, flagged=flagged):
        _step_saved(step, flagged=flagged)
    coup.step_count, coup.flagged = step.index, flagged
    return step


#: the hand a card step deals to (ShoeCard.Role)
_DEALT_TO = {Move.CARD_TO_PLAYER: ShoeCard.Role.PLAYER, Move.CARD_TO_BANKER: ShoeCard.Role.BANKER}


@dataclass(frozen=True, slots=True)
class _BetOffered:
    """A bet's place (a seat, or a spectator standing) and amount, to be written with its step."""

    seat: Seat | None
    standing: Spectator | None
    amount: int | None


def step_append_with(
    *,
    coup: Coup,
    actor: Staff,
    kind: str,
    payload: dict[str, Any],
    role: str | None = None,
    bet: _BetOffered | None = None,
    idempotency_key: str = "",
    violation: Violation | None = None,
) -> tuple[CoupStep, ShoeCard | Bet | None]:
    """:func:`step_append`, and the row of its own the step writes (the caller holds the coup's
    lock, and its shoe's for a card): with ``role``, the card out of the shoe dealt to that hand
    (then the shoe's alarm and stop card as card_record checks them); with ``bet``, the bet's row.
    The step's row and that one in one statement where the database can (cards and bets are half
    a coup's steps)."""
    step, flagged = _step_new(
        coup=coup, actor=actor, kind=kind, payload=payload, idempotency_key=idempotency_key,
        found=[violation] if violation else [],
    )
    shoe, card = coup.shoe, str(payload.get("card", ""))
    seat_id = spectator_id = None
    dealt: tuple[ShoeCard, int] | None = None
    written: ShoeCard | Bet | None = None
    if role is not None:
        dealt = sql.step_card_insert(
            step, flagged=flagged, shoe=shoe, coup=coup, card=card, role=role, at=timezone.now()
        )
    elif bet is not None:
        assert bet.amount is not None  # a bet's amount is checked by _engine_step
        seat_id, spectator_id = bet.seat.pk if bet.seat else None, bet.standing.pk if bet.standing else None
        written = sql.step_bet_insert(
            step, flagged=flagged, seat_id=seat_id, spectator_id=spectator_id, amount=bet.amount
        )
    # a step with no row of its own, or a database with no data-modifying WITH: as step_append
    if step.pk is None and not sql.step_insert_counted(step, flagged=flagged):
        _step_saved(step, flagged=flagged)
    coup.step_count, coup.flagged = step.index, flagged
    if dealt is not None:
        written = dealt[0]
        card_out_checked(shoe=shoe, coup=coup, seen=dealt[0], copies=dealt[1] + 1, actor=actor)
    elif role is not None:
        written = card_record(shoe=shoe, coup=coup, card=card, role=role, actor=actor)
    elif bet is not None and written is None:
        assert bet.amount is not None
        written = sql.bet_insert(
            coup_id=coup.pk, seat_id=seat_id, spectator_id=spectator_id, amount=bet.amount, banco=False,
            banco_suivi=False,
        )
    return step, written


def _step_new(
    *,
    coup: Coup,
    actor: Staff,
    kind: str,
    payload: dict[str, Any],
    idempotency_key: str,
    found: list[Violation],
    corrects: CoupStep | None = None,
    supersedes: CoupStep | None = None,
    after_index: int | None = None,
) -> tuple[CoupStep, bool]:
    """The coup's next step row, not saved yet, and the coup's flag once it is written."""
    step = CoupStep(
        coup=coup,
        index=max(coup.step_count, after_index or 0) + 1,
        kind=kind,
        payload=payload,
        actor=actor,
        created_at=timezone.now(),
        violations=[v.code.value for v in found],
        corrects=corrects,
        supersedes=supersedes,
        idempotency_key=idempotency_key,
    )
    return step, coup.flagged or bool(found)


def _step_saved(step: CoupStep, *, flagged: bool) -> None:
    """The two statements of a step's write where the database has no data-modifying WITH."""
    step.save(force_insert=True)
    Coup.objects.filter(pk=step.coup_id).update(step_count=step.index, flagged=flagged)


def _reveal(*, actor: Staff, coup: Coup, verdict: Verdict, state: CoupProgress) -> BankTax | None:
    """The hands are shown: a clean coup is settled now; a flagged one waits to be restored.
    The levy row written, if any."""
    shoe = coup.shoe
    tax = None
    if verdict.violations:
        coup_state_change(coup=coup, to=Coup.State.AWAITING_CORRECTION)
    else:
        settlement = verdict.settlement
        assert settlement is not None  # live bets never exceed the bank: the engine refuses them
        money.coup_settle(coup=coup, settlement=settlement, actor=actor, key=f"coup:{coup.pk}:settle")
        tax = _settled_write(actor=actor, coup=coup, settlement=settlement, outcome=verdict.outcome.value)
    # ``shoe`` is the row lock_coup locked for this step, and every change of it in the step (a
    # card reaching the stop card, tables.services.shoes) was made on this same instance: it is
    # the shoe as it stands, with no need to read it again
    if shoe.stop_reached and shoe.state == Shoe.State.OPEN:
        shoe_close_locked(actor=actor, shoe=shoe, reason="stop card reached")
    return tax


def _settled_write(*, actor: Staff, coup: Coup, settlement: Settlement, outcome: str) -> BankTax | None:
    """What a settled coup writes once its money is posted: its levy's row, its state and
    settlement time, and its bank turn as bank_after_coup leaves it. On PostgreSQL the three in
    one statement (tables.sql.coup_settled_write) where the banker won or tied; a lost bank ends
    as bank_after_coup ends it. The levy's row written, if any."""
    levy = (settlement.covered, settlement.tax) if settlement.tax else None
    minimum = bank_continuation(coup=coup, outcome=outcome, next_bank_min=settlement.next_bank_min)
    coup_state_set(coup=coup, to=Coup.State.SETTLED)  # checked; written below
    written = sql.coup_settled_write(coup, levy=levy, minimum=minimum)
    if written is None:  # a database with no data-modifying WITH: one statement each, in order
        tax = BankTax.objects.create(coup=coup, basis=levy[0], amount=levy[1]) if levy else None
        coup.save(update_fields=["state", "settled_at"])
        bank_after_coup(actor=actor, coup=coup, outcome=outcome, next_bank_min=settlement.next_bank_min)
        return tax
    tax, changed = written
    if minimum is None:
        bank_after_coup(actor=actor, coup=coup, outcome=outcome, next_bank_min=settlement.next_bank_min)
    elif changed is not None:
        before, turn = changed
        bank_minimum_written(actor=actor, coup=coup, turn=turn, before=before)
    return tax


def _engine_step(
    coup: Coup, state: CoupProgress, request: StepRequest, rows: list[CoupStep]
) -> tuple[Judged, _Bettor | None]:
    """The engine's step for a request (one call: chemin_de_fer.engine.entry.entry_judge), on the
    people it names as the floor finds them, and the money's one question of a bet or a banco: can
    the one whose chips it engages (the bettor, the banco's winner) cover it? He is returned for
    the bet's row. ``rows``: the coup's step rows (a spectator's round said over holds for it)."""
    bettors: list[_Bettor] = []
    if request.kind is Move.BET:
        bettors = _bettors(coup, [Caller(seat=request.seat, spectator=request.spectator)])
    elif request.kind is Move.BANCO:
        bettors = _bettors(coup, request.callers)
    entry = Entry(
        request.kind,
        amount=request.amount,
        card=request.card,
        punters=tuple(who.punter for who in bettors),
        round_over=request.seated_round_over,
        # said once, it holds for the coup: with an earlier bet of it (the rows the step replayed;
        # only a bet reads it)
        round_said_before=request.kind is Move.BET
        and any(row.payload.get("seated_round_over") for row in rows if row.kind == CoupStep.Kind.BET),
        consent=request.consent,
    )
    banker_seat = _banker_seat(coup)
    table = coup.shoe.table
    try:
        judged = entry_judge(
            state,
            entry,
            table=EntryTable(banker_seat, table.seat_count, Side(table.profile.betting_from)),
            occupied=lambda: _occupied(coup),
            previous_banco=lambda: _previous_banco(coup),
        )
    except EntryRefused as refused:
        raise ValidationError({refused.field: refused.sentence}) from None
    engaged = next((who for who in bettors if who.punter == judged.punter), None)
    if engaged is not None:
        money.bet_check_affordable(
            coup=coup,
            player=engaged.player,
            amount=coup.bank if request.kind is Move.BANCO else judged.step.amount or 0,
            borrowing=state.rules.profile.borrowing_allowed,
            banco=request.kind is Move.BANCO,
        )
    return judged, engaged


@dataclass(frozen=True)
class _Bettor:
    """A bettor as the floor found him: the engine's punter, his player, his seat or standing."""

    punter: Punter
    player: Any
    seat: Seat | None
    standing: Spectator | None


def _bettors(coup: Coup, callers: tuple[Caller, ...] | list[Caller]) -> list[_Bettor]:
    """The people a bet or a banco names, by seat number or spectator id, as the floor finds them
    (seated, or standing, at this session now)."""
    return [_bettor(coup, seat=c.seat, spectator=c.spectator, suivi=c.suivi) for c in callers]


def _bettor(coup: Coup, *, seat: int | None, spectator: int | None, suivi: bool) -> _Bettor:
    if (seat is None) == (spectator is None):
        raise ValidationError(
            {"seat": gettext_noop("Give either the seat number or the spectator, not both.")}
        )
    session_id = coup.shoe.session_id
    if seat is not None:
        row = (
            Seat.objects.select_related("player")
            .filter(session_id=session_id, number=seat, left_at__isnull=True)
            .first()
        )
        if row is None:
            raise ValidationError({"seat": said("Nobody sits at seat {seat}.", seat=seat)})
        punter = Punter(seat_key(seat), seat, row.player.pk, str(row.player), suivi)
        return _Bettor(punter, row.player, row, None)
    assert spectator is not None  # one of seat and spectator (checked above)
    standing = (
        Spectator.objects.select_related("player")
        .filter(session_id=session_id, pk=spectator, left_at__isnull=True)
        .first()
    )
    if standing is None:
        raise ValidationError({"spectator": gettext_noop("No such spectator at this table.")})
    punter = Punter(spectator_key(standing.pk), None, standing.player.pk, str(standing.player), suivi)
    return _Bettor(punter, standing.player, None, standing)


def _banker_seat(coup: Coup) -> int | None:
    """The banker's seat number; None when the house banks (it holds no seat)."""
    seat = coup.bank_turn.seat
    return seat.number if seat is not None else None


def _occupied(coup: Coup) -> tuple[int, ...]:
    """The seats taken now at the coup's session (the engine asks, to rule on a spectator's turn)."""
    return tuple(
        Seat.objects.filter(session_id=coup.shoe.session_id, left_at__isnull=True).values_list(
            "number", flat=True
        )
    )


def _previous_banco(coup: Coup) -> tuple[int, Outcome] | None:
    """Who called banco on the session's previous coup (his player id) and how it ended; None if
    nobody did, or there is no previous coup (the engine asks, to rule on a suivi)."""
    previous = (
        Coup.objects.filter(shoe__session_id=coup.shoe.session_id)
        .exclude(pk=coup.pk)
        .order_by("-created_at", "-pk")
        .first()
    )
    if previous is None:
        return None
    banco = (
        Bet.objects.filter(coup=previous, banco=True, withdrawn=False)
        .select_related("seat", "spectator")
        .first()
    )
    reveal = previous.steps.filter(kind=CoupStep.Kind.REVEAL).first()
    if banco is None or reveal is None:
        return None
    punter = banco.seat or banco.spectator
    assert punter is not None  # bet_seat_xor_spectator
    return punter.player_id, Outcome(reveal.payload["verdict"]["outcome"])


def _banco_write(coup: Coup, who: _Bettor, state: CoupProgress) -> RowSpec:
    """Write the banco and say which rows it wrote: every bet of the coup (the others withdrawn,
    their rows kept and marked, so that the history is complete)."""
    Bet.objects.filter(coup=coup, withdrawn=False).update(withdrawn=True)
    sql.bet_insert(
        coup_id=coup.pk,
        seat_id=who.seat.pk if who.seat else None,
        spectator_id=who.standing.pk if who.standing else None,
        amount=coup.bank,
        banco=True,
        banco_suivi=state.banco_suivi,
    )
    return RowsWhere(Bet, "coup_id", coup.pk)
