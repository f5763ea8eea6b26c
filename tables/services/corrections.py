"""Restore the game (docs/rules.md §9): the croupier submits the restored coup, a pit boss — never
anybody who recorded a step of the coup — approves or rejects it.

Nothing recorded is ever edited: a correction is a new ``CoupStep`` pointing at the first step it
corrects, approval and rejection are new steps pointing at the correction. Money follows the same
rule in the ledger: the restored settlement is posted provisionally when the correction is
submitted (the table pays it out), then reversed and posted for good on approval, or reversed on
rejection.
"""

from __future__ import annotations

from collections import Counter

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from django.utils.translation import gettext_noop

from audit.rows import RowSpec
from audit.services import audit_record
from chemin_de_fer.engine.coup import NeedsCards, Restored, Settlement
from chemin_de_fer.engine.interchange import restored_to_dict, settlement_to_dict
from core.sentence import Card, Listing, Sentence, Word, said
from core.types import Staff
from tables.engine_bridge import (
    cards_parse,
    coup_replay,
    coup_replay_trusted,
    coup_restore,
    coup_verdict,
    game_rows,
)
from tables.lifecycle import CoupConflict, coup_state_change
from tables.models import (
    VOIDABLE_COUP_STATES,
    BankTax,
    Coup,
    CoupStep,
    Shoe,
    ShoeCard,
    TableSession,
    VoidRequest,
)
from tables.money import floor as money
from tables.permissions import (
    check_can_approve,
    check_croupier_at,
    check_independent_reviewer,
    check_independent_voider,
)
from tables.selectors import restoration_shoe
from tables.services.banks import bank_after_coup, bank_kept_as_declared
from tables.services.coups import StepResult, step_append
from tables.services.locking import lock_coup
from tables.services.shoes import card_record, shoe_close_locked
from tables.services.void_requests import (
    void_gate,
    void_request_approved,
    void_request_lapse,
    void_request_locked,
)
from tables.services.vouching import coup_settlement_vouch
from tables.wording import (
    CLOSED_SHOE_RECORDED,
    PIT_BOSS_VOID_REFUSAL,
    VOID_FINAL_STATE,
    VOID_REASON_MISSING,
    closed_shoe_cards_gone,
    restoration_needs_cards,
)


def _restoration(coup: Coup, cards: list[str]) -> tuple[Restored, Settlement, list[CoupStep]]:
    rows = list(coup.steps.order_by("index"))
    # a restoration settles money on the coup's rows and its places, as the reveal does: a row
    # changed in the database since its event bound it is refused here too (nothing written; the
    # pit boss voids)
    coup_settlement_vouch(coup=coup, steps=rows, current_step=coup.step_count)
    state = coup_replay(coup, rows)
    restored = coup_restore(coup, state, tuple(cards))
    if isinstance(restored, NeedsCards):
        raise ValidationError({"cards": restoration_needs_cards(restored.needs_cards)})
    if len(restored.extra_cards) < len(cards):
        used = len(restored.extra_cards)
        raise ValidationError(
            {
                "cards": said(
                    "The restored game takes {used} card(s) from the shoe, not {given}.",
                    used=used,
                    given=len(cards),
                )
            }
        )
    settlement = coup_verdict(coup, state, shoe_next=tuple(cards)).settlement
    if settlement is None:  # only an imported history gets here: a live table refuses such bets
        raise ValidationError(
            gettext_noop("The bets exceeded the bank: the coup cannot be settled; a pit boss voids it.")
        )
    return restored, settlement, rows


def _cards_offered(coup: Coup, codes: list[str]) -> tuple[list[str], int]:
    """The cards the restoration takes as the next from the shoe, and how many of them are already
    on record. From an open shoe: the croupier's. From a closed one (``restoration_shoe``): the
    cards recorded after this coup in that shoe, as many as the restored game takes — the
    croupier gives none (or the same); only when the record runs out does he deal the rest, from
    the table's latest shoe, and otherwise a pit boss voids the coup."""
    state = coup_replay(coup, list(coup.steps.order_by("index")))
    shoe = restoration_shoe(coup=coup, state=state)
    if not shoe.closed:
        return codes, 0
    recorded = list(shoe.recorded)
    probe = coup_restore(coup, state, tuple(recorded))
    if isinstance(probe, Restored):
        taken = recorded[: len(probe.extra_cards)]
        if codes and codes != taken:
            if not taken:
                refusal = said(
                    "{recorded} (none), not the cards given.", recorded=Sentence(CLOSED_SHOE_RECORDED, {})
                )
            else:
                refusal = said(
                    "{recorded} ({cards}), not the cards given.",
                    recorded=Sentence(CLOSED_SHOE_RECORDED, {}),
                    cards=Listing((Card(c) for c in taken), sep=" "),
                )
            raise ValidationError({"cards": refusal})
        return taken, len(taken)
    if not shoe.can_deal:
        raise ValidationError({"cards": closed_shoe_cards_gone(coup.shoe.number, probe.needs_cards)})
    return [*recorded, *codes], len(recorded)


def _first_wrong(rows: list[CoupStep]) -> CoupStep:
    """The first step standing in the game that broke the rules (the one a correction corrects):
    not a mistyped step an amendment superseded."""
    standing = game_rows(rows)
    amendments = [r for r in rows if r.kind == CoupStep.Kind.AMEND]
    wrong = [r for r in sorted([*standing, *amendments], key=lambda r: r.index) if r.violations]
    if not wrong:
        wrong = [r for r in rows if r.violations]
    return wrong[0] if wrong else rows[0]


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
        raise CoupConflict(
            said(
                "This coup is {state}: there is nothing to restore.",
                state=Word(coup.state.replace("_", " "), "coup state"),
            )
        )
    codes = cards_parse(list(cards))
    codes, from_record = _cards_offered(coup, codes)
    restored, settlement, rows = _restoration(coup, codes)
    first_wrong = _first_wrong(rows)
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
    if from_record:  # from a closed shoe: the recorded cards are out already, only the rest are new
        taken = Counter()
    bound: list[RowSpec] = [coup, step]
    for card in restored.extra_cards[from_record:]:
        if taken[card]:
            taken[card] -= 1
            continue
        role = ShoeCard.Role.PLAYER if card in restored.player_cards[2:] else ShoeCard.Role.BANKER
        bound.append(card_record(shoe=coup.shoe, coup=coup, card=card, role=role))
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
    # a card the restored game took from the shoe may be the one that brings out the stop card:
    # the shoe ends with the coup it completes, as at the reveal (RULES.md §8), not one coup later
    shoe = coup.shoe
    shoe.refresh_from_db(fields=["stop_reached", "state"])
    if shoe.stop_reached and shoe.state == Shoe.State.OPEN:
        shoe_close_locked(actor=actor, shoe=shoe, reason="stop card reached")
    audit_record(
        actor=actor,
        action="tables.coup.correction_submit",
        target=coup,
        after={"index": step.index, "corrects": first_wrong.index, **step.payload},
        rows=bound,
    )
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))


def _pending_review(actor: Staff, coup: Coup) -> CoupStep:
    check_can_approve(actor, coup.shoe.table.casino_id)
    if coup.state != Coup.State.AWAITING_APPROVAL:
        raise CoupConflict(
            said(
                "This coup is {state}: no correction awaits approval.",
                state=Word(coup.state.replace("_", " "), "coup state"),
            )
        )
    correction = _latest_correction(coup)
    # separation of duties (issue 10): not only the correction's submitter, anyone who recorded a
    # step of this coup is a party to what is judged
    check_independent_reviewer(actor, coup, correction)
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
    bound: list[RowSpec] = [coup, step]
    if settlement.tax:
        bound.append(BankTax.objects.create(coup=coup, basis=settlement.covered, amount=settlement.tax))
    coup_state_change(coup=coup, to=Coup.State.SETTLED)
    audit_record(
        actor=actor,
        action="tables.coup.correction_approve",
        target=coup,
        after={"index": step.index, "correction": correction.index, "outcome": restored.outcome.value},
        rows=bound,
    )
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))


#: why a correction at a table since closed is not rejected, and the two ways on
CLOSED_TABLE_REJECT = gettext_noop(
    "The table has been closed since this correction was made: the croupier can no longer restore "
    "the coup at it. Approve the correction, or void the coup."
)


@transaction.atomic
def correction_reject(
    *, actor: Staff, coup: Coup | int, reason: str, idempotency_key: str = ""
) -> StepResult:
    """A pit boss rejects the restored coup: the provisional settlement is reversed and the coup
    waits for a new correction."""
    coup = lock_coup(coup)
    correction = _pending_review(actor, coup)
    if TableSession.objects.filter(pk=coup.shoe.session_id, closed_at__isnull=False).exists():
        # a rejected coup waits for the croupier to restore it again at its table: closed, its
        # screen no longer shows the coup, which could then only be voided (the refusal says so now)
        raise CoupConflict(CLOSED_TABLE_REJECT)
    if not reason.strip():
        raise ValidationError({"reason": gettext_noop("Say why the correction is rejected.")})
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
        rows=[coup, step],
    )
    rows = list(coup.steps.order_by("index"))
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))


def coup_stakes_covered(coup: Coup) -> int:
    """What is at stake in ``coup``: its bets standing (withdrawn and amended ones aside), up to
    the bank, which covers no more (what the casino's void limit is measured against)."""
    standing = coup.bets.filter(withdrawn=False).aggregate(total=Sum("amount"))["total"] or 0
    return min(int(standing), coup.bank)


@transaction.atomic
def coup_void(
    *,
    actor: Staff,
    coup: Coup | int,
    reason: str,
    idempotency_key: str = "",
    approving: VoidRequest | int | None = None,
) -> StepResult | VoidRequest:
    """A pit boss voids a coup that is not over, whatever holds it up (issue 9: no state without
    an exit): being played (a bet nobody can pay, a deal gone wrong), flagged and not restored
    (bets beyond the bank, cards no longer to be had), or restored and awaiting approval.

    Every stake is returned: the bets of a coup not settled never moved a chip; a provisional
    settlement is reversed (never refused for lack of chips: what a player can no longer give
    back is his marker). The bank stays as declared: the banker goes on with it or passes it
    (when the table already played on after a provisional result, the bank is where that result
    left it). The cards dealt stay dealt: consumed in the shoe, which is closed if they reached
    its stop card. The coup's steps stay; a new step says who voided it and why.

    A coup with more at stake than the casino's ``void_second_approval_above`` is not voided
    here: the answer is the ``VoidRequest`` that waits for a second pit boss
    (tables.services.void_requests). ``approving``: that request, when the second pit boss
    approves it (tables.services.voids.void_request_approve); a coup that ended meanwhile lapses
    it (the answer is the lapsed request)."""
    coup = lock_coup(coup)
    check_can_approve(actor, coup.shoe.table.casino_id, refusal=PIT_BOSS_VOID_REFUSAL)
    check_independent_voider(actor, coup)
    request = None if approving is None else void_request_locked(approving, coup=coup)
    if coup.state not in VOIDABLE_COUP_STATES:
        if request is not None:
            return void_request_lapse(request=request)
        raise CoupConflict(
            said(VOID_FINAL_STATE, state=Word(coup.state.replace("_", " "), "coup state")),
            current_step=coup.step_count,
        )
    if not reason.strip():
        raise ValidationError({"reason": VOID_REASON_MISSING})
    if request is None:
        casino = coup.shoe.table.casino
        asked = void_gate(
            actor=actor, casino=casino, coup=coup, stakes=coup_stakes_covered(coup), reason=reason.strip()
        )
        if asked is not None:
            return asked
    was = coup.state
    rows = list(coup.steps.order_by("index"))
    first_wrong = next((r for r in rows if r.violations), None)
    step = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.COUP_VOIDED,
        payload={"reason": reason.strip(), "was": was},
        corrects=first_wrong,
        idempotency_key=idempotency_key,
        after_index=rows[-1].index if rows else None,
    )
    if was == Coup.State.AWAITING_APPROVAL:
        money.coup_provisional_reverse(
            coup=coup, actor=actor, key=f"coup:{coup.pk}:voided:{step.index}", voiding=True
        )
    coup_state_change(coup=coup, to=Coup.State.VOID)
    # the bank stays as declared; a restored coup's provisional result had raised the continuation:
    # back to the minimum when he declared this bank (never below the bank itself)
    bank_kept_as_declared(actor=actor, coup=coup, minimum=rows[0].payload.get("minimum"))
    shoe = coup.shoe
    shoe.refresh_from_db(fields=["stop_reached", "state"])
    if was == Coup.State.OPEN and shoe.stop_reached and shoe.state == Shoe.State.OPEN:
        shoe_close_locked(actor=actor, shoe=shoe, reason="stop card reached")  # as the reveal would
    after = {"index": step.index, "reason": reason.strip(), "was": was}
    if request is not None:
        after |= void_request_approved(actor=actor, request=request)
    audit_record(actor=actor, action="tables.coup.void", target=coup, after=after, rows=[coup, step])
    # the void is the way out of steps no service could have left: it does not depend on them
    state, _ = coup_replay_trusted(coup, rows)
    return StepResult(coup=coup, step=step, state=state)
