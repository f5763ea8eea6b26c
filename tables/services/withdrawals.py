"""A declared bank that nobody takes (RULES.md §7; docs/table-workflow.md, "A bank nobody takes"):
every punter declines to bet, so the croupier withdraws the bank without a coup. The coup ends
``withdrawn`` — no deal, no settlement, no levy — and the bank stays in the table's bank
account: the banker keeps it for the next deal (same banker, same bank turn) or passes it
(``bank_pass`` returns its chips to him). The table never stalls on a bank nobody wants.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from audit.services import audit_record
from core.types import Staff
from tables.engine_bridge import banker_key, coup_replay
from tables.lifecycle import CoupConflict, coup_state_change
from tables.models import Bet, Coup, CoupStep, ShoeCard
from tables.permissions import check_croupier_at
from tables.services.banks import bank_kept_as_declared
from tables.services.coups import StepResult, coup_step_expected, step_append
from tables.services.locking import lock_coup
from tables.wording import BANK_WITHDRAW_BETS_STAND, BANK_WITHDRAW_CARDS_DEALT


@transaction.atomic
def coup_bank_withdraw(
    *,
    actor: Staff,
    coup: Coup | int,
    expected_step: int | None = None,
    idempotency_key: str = "",
) -> StepResult:
    """The croupier withdraws a declared bank nobody bet on: the coup ends ``withdrawn`` without a
    deal. Refused (nothing written) while a bet stands (banco included) or once a card was dealt:
    that coup is played out, or a pit boss voids it. ``expected_step``: the step count the
    client last saw (a stale view is refused, as for a step)."""
    coup = lock_coup(coup)
    check_croupier_at(actor, coup.shoe.table)
    if coup.state != Coup.State.OPEN:
        raise CoupConflict(
            f"This coup is {coup.state.replace('_', ' ')}: there is no bank to withdraw.",
            current_step=coup.step_count,
        )
    coup_step_expected(coup, expected_step)
    if Bet.objects.filter(coup=coup, withdrawn=False).exists():
        raise ValidationError(BANK_WITHDRAW_BETS_STAND)
    if ShoeCard.objects.filter(coup=coup).exists():
        raise ValidationError(BANK_WITHDRAW_CARDS_DEALT)
    rows = list(coup.steps.order_by("index"))
    payload = {"bank": coup.bank, "banker": banker_key(coup.bank_turn)}
    step = step_append(
        coup=coup,
        actor=actor,
        kind=CoupStep.Kind.BANK_WITHDRAWN,
        payload=payload,
        idempotency_key=idempotency_key,
    )
    # no money moves: the bank stays in the table's bank account for the next deal (or goes back
    # to the banker when he passes the bank); he keeps it at least as declared
    coup_state_change(coup=coup, to=Coup.State.WITHDRAWN)
    bank_kept_as_declared(actor=actor, coup=coup)
    audit_record(
        actor=actor,
        action="tables.coup.bank_withdraw",
        target=coup,
        after={"index": step.index, **payload},
        rows=[coup, step],
    )
    return StepResult(coup=coup, step=step, state=coup_replay(coup, rows))
