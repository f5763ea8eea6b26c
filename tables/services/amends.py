"""The croupier's typo, amended before the reveal (docs/table-workflow.md, "Amending a typo").

Steps are append-only: a bet amount or a card typed wrong is not edited but *superseded*. The
croupier records an ``amend`` step pointing at the wrong one (``supersedes``), with the value the
step really had and why. The wrong step stays in the history (struck through on the screens); the
replay (tables.engine_bridge.game_rows) plays the amendment in its place, so the engine, the
verdict, the settlement and the coup record all see the game as really played.

An amendment is one transaction, checked like the step it replaces and more:

- only before the reveal (after it, a wrong step is the pit boss's correction's business);
- only a bet (its amount, or who made it) or a dealt card; a reason is required;
- the amended step is checked at its place in the coup as if it were entered then (a bet is at
  most what was left of the bank, and affordable where borrowing is not allowed); then every later
  step is replayed with it: one that could no longer have happened refuses the amendment, naming
  the step (amend that one first, when it is a bet or a card); one that would now break the rules
  needs the croupier's confirmation, like any step against the rules;
- what the step wrote is replaced the same way, by a new row pointing at the old one: a bet
  (``Bet.replaces``; the old row is withdrawn) or a shoe card (``ShoeCard.replaces``, same
  position: the mistyped card goes back to the shoe's remaining cards, the real one is taken).

Every refusal raises before the first write, or inside the transaction that it rolls back:
nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils.translation import gettext_noop

from audit.rows import RowSpec, rows_loaded
from audit.services import audit_record
from chemin_de_fer.engine.coup import Violation
from chemin_de_fer.engine.machine import CoupProgress, IllegalStep, Move, apply, replay
from chemin_de_fer.engine.punters import PunterKind, parse_punter_key
from core.sentence import Sentence, said, why
from core.types import Staff
from tables.engine_bridge import coup_new_state, game_kind, game_payload, game_rows, step_from_row
from tables.lifecycle import CoupConflict
from tables.models import AMENDABLE_KINDS, Bet, Coup, CoupStep, ShoeCard
from tables.permissions import check_croupier_at
from tables.services.coups import (
    ConfirmationRequired,
    StepRequest,
    StepResult,
    _engine_step,
    coup_step_expected,
    step_append,
)
from tables.services.locking import lock_coup
from tables.services.shoes import card_amend
from tables.wording import (
    AMEND_AFTER_REVEAL,
    AMEND_NEEDS_REASON,
    AMEND_NO_CHANGE,
    AMEND_ONLY_BETS_AND_CARDS,
    amend_breaks_later_step,
)

#: a coup over without being played out: the reveal's sentence (AMEND_AFTER_REVEAL) would be untrue
AMEND_VOID = gettext_noop("This coup is void: no step of it can be amended.")
AMEND_WITHDRAWN = gettext_noop("The bank of this coup was withdrawn: no step of it can be amended.")


class AmendConfirmationRequired(ConfirmationRequired):
    """A later step breaks the rules once the typo is amended: amend only if it happened so
    (resend with confirm). ``state`` is the amended game, which the violation is worded with."""

    def __init__(self, violation: Violation, state: CoupProgress) -> None:
        super().__init__(violation)
        self.state = state


@dataclass(frozen=True)
class Amendment:
    """What the step really was. A bet: ``amount`` and/or who made it (``seat`` or ``spectator``;
    unchanged when not given). A card: ``card``."""

    amount: int | None = None
    seat: int | None = None
    spectator: int | None = None
    card: str | None = None


@transaction.atomic
def step_amend(
    *,
    actor: Staff,
    coup: Coup | int,
    index: int,
    amendment: Amendment,
    reason: str,
    expected_step: int | None = None,
    confirm: bool = False,
    idempotency_key: str = "",
) -> StepResult:
    """Amend step ``index`` of an open coup (see the module docstring). ``expected_step``, when
    given, is the step count the client last saw (a stale view is a conflict, like a step's)."""
    coup = lock_coup(coup)
    check_croupier_at(actor, coup.shoe.table)
    if coup.state != Coup.State.OPEN:
        raise CoupConflict(_over(coup), current_step=coup.step_count)
    coup_step_expected(coup, expected_step)
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": AMEND_NEEDS_REASON})
    rows = list(coup.steps.order_by("index"))
    target = _amendable(coup, rows, index)
    kind = Move(game_kind(target))
    standing = game_rows(rows)
    position = next(i for i, r in enumerate(standing) if r.pk == target.pk)
    steps = [step_from_row(game_kind(r), r.payload) for r in standing]
    start = coup_new_state(coup, rows)
    before = replay(start, steps[:position])
    as_recorded = replay(before, steps[position:])
    was = game_payload(target)

    bet: Bet | None = None
    if kind is Move.BET:
        request = _bet_request(kind, was, amendment)
        # the mistyped bet is taken back first, so the checks below see the player's chips
        # without it (a refusal rolls this back with the rest)
        bet = _standing_bet(coup, rows, target)
        rows_loaded(bet)  # its state before the amendment withdraws it, for its binding
        was_withdrawn = bet.withdrawn
        if not was_withdrawn:  # a banco took it back already: a bet is withdrawn once (the trigger)
            Bet.objects.filter(pk=bet.pk).update(withdrawn=True)
    else:
        if amendment.amount is not None or amendment.seat is not None or amendment.spectator is not None:
            raise ValidationError({"card": gettext_noop("A card step is amended with the card only.")})
        if not amendment.card:
            raise ValidationError({"card": gettext_noop("Which card was it?")})
        request = StepRequest(kind=kind, card=amendment.card)
    judged, bettor = _engine_step(coup, before, request, rows)
    new_step, payload = judged.step, judged.payload
    if payload == was:
        raise ValidationError(AMEND_NO_CHANGE)
    try:
        state = apply(before, new_step)
    except IllegalStep as exc:
        raise ValidationError(why(exc)) from None
    for later in standing[position + 1 :]:
        try:
            state = apply(state, step_from_row(game_kind(later), later.payload))
        except IllegalStep as exc:
            later_kind = game_kind(later)
            raise ValidationError(
                amend_breaks_later_step(
                    later.index,
                    CoupStep.Kind(later_kind).label,
                    why(exc),
                    amendable=later_kind in AMENDABLE_KINDS,
                )
            ) from None
    # what breaks the rules now that did not before (the same step number in both replays)
    fresh = tuple(v for n, v in state.violations if (n, v) not in as_recorded.violations)
    if fresh and not confirm:
        raise AmendConfirmationRequired(fresh[0], state)

    row = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.AMEND,
        payload={"kind": kind.value, **payload, "step": target.index, "reason": reason, "was": was},
        more_violations=fresh,
        supersedes=target,
        idempotency_key=idempotency_key,
    )
    # the flag follows the game as amended: a typo that made a step look wrong no longer flags it
    flagged = bool(state.violations)
    if flagged != coup.flagged:
        Coup.objects.filter(pk=coup.pk).update(flagged=flagged)
        coup.flagged = flagged
    bound: list[RowSpec] = [coup, row]
    if bet is not None:
        assert bettor is not None and request.amount is not None
        order = (Bet.objects.filter(coup=coup).aggregate(n=Max("betting_order"))["n"] or 0) + 1
        amended = Bet.objects.create(
            coup=coup,
            seat=bettor.seat,
            spectator=bettor.standing,
            amount=request.amount,
            betting_order=order,
            withdrawn=was_withdrawn,
            replaces=bet,
        )
        bound += [bet, amended]  # the mistyped bet, withdrawn, and the one that replaces it
    else:
        mistyped = _standing_card(coup, rows, target)
        bound.append(card_amend(shoe=coup.shoe, coup=coup, mistyped=mistyped, card=payload["card"]))
    audit_record(
        actor=actor,
        action="tables.coup.amend",
        target=coup,
        after={
            "index": row.index,
            "supersedes": target.index,
            "kind": kind.value,
            "was": was,
            "now": payload,
            "reason": reason,
            "violations": [v.code.value for v in fresh],
        },
        rows=bound,
    )
    return StepResult(coup=coup, step=row, state=state, violation=fresh[0] if fresh else None)


def _over(coup: Coup) -> str:
    """Why a coup no longer open is not amended: its hands are shown, or it ended without them
    (voided, or its bank withdrawn, maybe before any card was dealt)."""
    if coup.state == Coup.State.VOID:
        return AMEND_VOID
    if coup.state == Coup.State.WITHDRAWN:
        return AMEND_WITHDRAWN
    return AMEND_AFTER_REVEAL


def _amendable(coup: Coup, rows: list[CoupStep], index: int) -> CoupStep:
    """Step ``index`` of the coup, if it is a bet or a card standing in the game."""
    target = next((r for r in rows if r.index == index), None)
    if target is None:
        # "this coup": the one the URL or the screen names (its number at the table is not its id)
        missing = said("This coup has no step {index}.", index=index)
        raise ValidationError({"step": missing})
    later = next((r for r in rows if r.supersedes_id == target.pk), None)
    if later is not None:
        raise ValidationError(
            {
                "step": said(
                    "Step {index} was already amended by step {later}: amend step {later}.",
                    index=index,
                    later=later.index,
                )
            }
        )
    if game_kind(target) not in AMENDABLE_KINDS:  # an amendment's own kind is the step's it amends
        label = CoupStep.Kind(target.kind).label
        raise ValidationError(
            {
                "step": said(
                    "{only}: step {index} is '{label}'.",
                    only=Sentence(AMEND_ONLY_BETS_AND_CARDS, {}),
                    index=index,
                    label=Sentence(label, {}),
                )
            }
        )
    return target


def _bet_request(kind: Move, was: dict[str, Any], amendment: Amendment) -> StepRequest:
    if amendment.card is not None:
        raise ValidationError({"card": gettext_noop("A bet is amended with its amount or who made it.")})
    seat, spectator = amendment.seat, amendment.spectator
    if seat is None and spectator is None:  # the same punter
        who, number = parse_punter_key(was["punter"])
        seat, spectator = (number, None) if who is PunterKind.SEAT else (None, number)
    amount = amendment.amount if amendment.amount is not None else was["amount"]
    return StepRequest(kind=kind, amount=amount, seat=seat, spectator=spectator)


def _root(rows: list[CoupStep], row: CoupStep) -> CoupStep:
    """The step as first recorded, behind a chain of amendments."""
    by_id = {r.pk: r for r in rows}
    while row.supersedes_id is not None:
        row = by_id[row.supersedes_id]
    return row


def _standing_bet(coup: Coup, rows: list[CoupStep], target: CoupStep) -> Bet:
    """The bet row standing for ``target``: every bet step wrote one, in order, and each
    amendment replaced it with a new one."""
    root = _root(rows, target)
    nth = [r.pk for r in rows if r.kind == CoupStep.Kind.BET].index(root.pk)
    originals = Bet.objects.filter(coup=coup, banco=False, replaces__isnull=True).order_by("betting_order")
    bet = originals[nth]
    while (after := Bet.objects.filter(replaces=bet).first()) is not None:
        bet = after
    return bet


def _standing_card(coup: Coup, rows: list[CoupStep], target: CoupStep) -> ShoeCard:
    """The shoe card standing for ``target``: every card step recorded one, in order (before the
    reveal no correction has added any), and each amendment replaced it at the same position."""
    root = _root(rows, target)
    card_kinds = (CoupStep.Kind.CARD_TO_PLAYER, CoupStep.Kind.CARD_TO_BANKER)
    nth = [r.pk for r in rows if r.kind in card_kinds].index(root.pk)
    originals = ShoeCard.objects.filter(coup=coup, replaces__isnull=True).exclude(role=ShoeCard.Role.BURN)
    card = originals.order_by("position")[nth]
    while (after := ShoeCard.objects.filter(replaces=card).first()) is not None:
        card = after
    return card


__all__ = ["AmendConfirmationRequired", "Amendment", "step_amend"]
