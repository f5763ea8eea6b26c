"""Restore the game (docs/rules.md §9): the croupier submits the restored coup, a pit boss — never
the same person — approves or rejects it.

Nothing recorded is ever edited: a correction is a new ``CoupStep`` pointing at the first step it
corrects, approval and rejection are new steps pointing at the correction. Money follows the same
rule in the ledger: the restored settlement is posted provisionally when the correction is
submitted (the table pays it out), then reversed and posted for good on approval, or reversed on
rejection.
"""

from __future__ import annotations

from collections import Counter

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from audit.services import audit_record
from core.types import Staff
from tables.engine_bridge import cards_parse, coup_replay, coup_restore, coup_verdict
from tables.lifecycle import CoupConflict, coup_state_change
from tables.models import BankTax, Coup, CoupStep, ShoeCard
from tables.money import floor as money
from tables.permissions import check_can_approve, check_croupier_at
from tables.rules.coup import NeedsCards, Restored, Settlement
from tables.rules.interchange import restored_to_dict, settlement_to_dict
from tables.services.banks import bank_after_coup
from tables.services.coups import StepResult, step_append
from tables.services.locking import lock_coup
from tables.services.shoes import card_record
from tables.wording import SELF_REVIEW_REFUSAL


def _restoration(coup: Coup, cards: list[str]) -> tuple[Restored, Settlement, list[CoupStep]]:
    rows = list(coup.steps.order_by("index"))
    state = coup_replay(coup, rows)
    restored = coup_restore(coup, state, tuple(cards))
    if isinstance(restored, NeedsCards):
        n = restored.needs_cards
        cards_word = "card" if n == 1 else "cards"
        message = f"The restored game needs {n} more {cards_word} from the shoe: deal them."
        raise ValidationError({"cards": message})
    if len(restored.extra_cards) < len(cards):
        used = len(restored.extra_cards)
        raise ValidationError(
            {"cards": f"The restored game takes {used} card(s) from the shoe, not {len(cards)}."}
        )
    settlement = coup_verdict(coup, state, shoe_next=tuple(cards)).settlement
    if settlement is None:  # only an imported history gets here: a live table refuses such bets
        raise ValidationError("The bets exceeded the bank: the coup cannot be settled; a pit boss voids it.")
    return restored, settlement, rows


def _latest_correction(coup: Coup) -> CoupStep:
    step = coup.steps.filter(kind=CoupStep.Kind.CORRECTION).order_by("-index").first()
    assert step is not None  # only asked of a coup awaiting approval: a correction was submitted
    return step


@transaction.atomic
def correction_submit(
    *,
    actor: Staff,
    coup: Coup | int,
    cards: list[str] | tuple[str, ...] = (),
    idempotency_key: str = "",
) -> StepResult:
    """The croupier restores a flagged coup. ``cards`` are the cards dealt from the shoe to complete
    the restored game (the engine says how many it needs)."""
    coup = lock_coup(coup)
    check_croupier_at(actor, coup.shoe.table)
    if coup.state != Coup.State.AWAITING_CORRECTION:
        raise CoupConflict(f"This coup is {coup.state.replace('_', ' ')}: there is nothing to restore.")
    codes = cards_parse(list(cards))
    restored, settlement, rows = _restoration(coup, codes)
    first_wrong = next(r for r in rows if r.violations)
    step = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.CORRECTION,
        payload={
            "cards": codes,
            "restored": restored_to_dict(restored),
            "settlement": settlement_to_dict(settlement),
        },
        corrects=first_wrong,
        idempotency_key=idempotency_key,
    )
    # REVIEW-FIX: a card an earlier (rejected) correction of this coup already took from the shoe
    # is on the table: recording it again counted it twice (false impossible-card alarms, cards left).
    taken = Counter(c for r in rows if r.kind == CoupStep.Kind.CORRECTION for c in r.payload.get("cards", []))
    for card in restored.extra_cards:
        if taken[card]:
            taken[card] -= 1
            continue
        role = ShoeCard.Role.PLAYER if card in restored.player_cards[2:] else ShoeCard.Role.BANKER
        card_record(shoe=coup.shoe, coup=coup, card=card, role=role)
    money.coup_settle(
        coup=coup,
        settlement=settlement,
        actor=actor,
        key=f"coup:{coup.pk}:correction:{step.index}",
        provisional=True,
    )
    coup_state_change(coup=coup, to=Coup.State.AWAITING_APPROVAL)
    # the table plays on with the restored result: the bank continues or is lost by it
    bank_after_coup(
        actor=actor, coup=coup, outcome=restored.outcome.value, next_bank_min=settlement.next_bank_min
    )
    audit_record(
        actor=actor,
        action="tables.coup.correction_submit",
        target=coup,
        after={"index": step.index, "corrects": first_wrong.index, **step.payload},
    )
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))


def _pending_review(actor: Staff, coup: Coup) -> CoupStep:
    check_can_approve(actor)
    if coup.state != Coup.State.AWAITING_APPROVAL:
        raise CoupConflict(f"This coup is {coup.state.replace('_', ' ')}: no correction awaits approval.")
    correction = _latest_correction(coup)
    if correction.actor_id == actor.pk:
        raise PermissionDenied(SELF_REVIEW_REFUSAL)
    return correction


@transaction.atomic
def correction_approve(*, actor: Staff, coup: Coup | int, idempotency_key: str = "") -> StepResult:
    """A pit boss approves the restored coup: its settlement becomes final."""
    coup = lock_coup(coup)
    correction = _pending_review(actor, coup)
    # recomputed from the recorded steps, not read back from the stored payload
    restored, settlement, rows = _restoration(coup, correction.payload["cards"])
    step = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.CORRECTION_APPROVED,
        payload={"settlement": settlement_to_dict(settlement)},
        corrects=correction,
        idempotency_key=idempotency_key,
    )
    money.coup_settlement_replace(
        coup=coup, settlement=settlement, actor=actor, key=f"coup:{coup.pk}:approved"
    )
    if settlement.tax:
        BankTax.objects.create(coup=coup, basis=settlement.covered, amount=settlement.tax)
    coup_state_change(coup=coup, to=Coup.State.SETTLED)
    audit_record(
        actor=actor,
        action="tables.coup.correction_approve",
        target=coup,
        after={"index": step.index, "correction": correction.index, "outcome": restored.outcome.value},
    )
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))


@transaction.atomic
def correction_reject(
    *, actor: Staff, coup: Coup | int, reason: str, idempotency_key: str = ""
) -> StepResult:
    """A pit boss rejects the restored coup: the provisional settlement is reversed and the coup
    waits for a new correction."""
    coup = lock_coup(coup)
    correction = _pending_review(actor, coup)
    if not reason.strip():
        raise ValidationError({"reason": "Say why the correction is rejected."})
    step = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.CORRECTION_REJECTED,
        payload={"reason": reason.strip()},
        corrects=correction,
        idempotency_key=idempotency_key,
    )
    money.coup_provisional_reverse(coup=coup, actor=actor, key=f"coup:{coup.pk}:rejected:{step.index}")
    coup_state_change(coup=coup, to=Coup.State.AWAITING_CORRECTION)
    audit_record(
        actor=actor,
        action="tables.coup.correction_reject",
        target=coup,
        after={"index": step.index, "correction": correction.index, "reason": reason.strip()},
    )
    rows = list(coup.steps.order_by("index"))
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))


@transaction.atomic
def coup_void(
    *, actor: Staff, coup: Coup | int, reason: str, idempotency_key: str = ""
) -> StepResult:
    """A pit boss voids a flagged coup that cannot be restored (bets beyond the bank, cards no longer
    to be had): all bets are returned and the bank stays as it was declared — no money moves, the
    coup's steps stay, a new step says who voided it and why."""
    coup = lock_coup(coup)
    check_can_approve(actor)
    if coup.state != Coup.State.AWAITING_CORRECTION:
        raise CoupConflict(
            f"This coup is {coup.state.replace('_', ' ')}: only a coup awaiting its correction is voided."
        )
    if not reason.strip():
        raise ValidationError({"reason": "Say why the coup is voided."})
    rows = list(coup.steps.order_by("index"))
    first_wrong = next((r for r in rows if r.violations), None)
    step = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.COUP_VOIDED,
        payload={"reason": reason.strip()},
        corrects=first_wrong,
        idempotency_key=idempotency_key,
    )
    coup_state_change(coup=coup, to=Coup.State.VOID)
    audit_record(
        actor=actor,
        action="tables.coup.void",
        target=coup,
        after={"index": step.index, "reason": reason.strip()},
    )
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))
