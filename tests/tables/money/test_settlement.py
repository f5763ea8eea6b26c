"""Coup money through the services: funding, settling, correcting and closing a bank."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db.models import Sum

from audit.models import AuditEvent
from chemin_de_fer.engine.coup import Outcome
from ledger import selectors
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables.money import banks
from tables.money import settlement as coup_money
from tables.money.floor import stake_check_affordable
from tests.ledger.builders import Rig, rig

pytestmark = pytest.mark.django_db

P, R, B = Account.Kind.PLAYER, Account.Kind.RESERVE, Account.Kind.BANK


def wallet(r: Rig, player) -> int:
    return selectors.account_balance(casino=r.casino, kind=P, player=player)


def reserve(r: Rig, player) -> int:
    return selectors.account_balance(casino=r.casino, kind=R, player=player)


def bank(r: Rig) -> int:
    return selectors.account_balance(casino=r.casino, kind=B, table=r.table)


def casino_total(r: Rig) -> int:
    return Account.objects.filter(casino=r.casino).aggregate(t=Sum("balance"))["t"]


def entries_of(txn: Transaction) -> dict[str, int]:
    return {e.account.name: e.amount for e in txn.entries.select_related("account")}


def test_the_home_rule_sheets_worked_example_posts_every_account() -> None:
    """Home: bank 20 covered 12 by two punters (7 and 5) -> reserve 8; the banker wins 12 and the
    bank holds 24, the next bank minimum; the punters lose 7 and 5."""
    r = rig("home", players=3, chips=100)
    banker, p1, p2 = r.players
    coup = r.coup(banker, 20)

    funded = banks.bank_fund(coup=coup, amount=20, actor=r.actor, key="coup:1:bank", borrowing=r.borrowing)
    assert (wallet(r, banker), reserve(r, banker), bank(r)) == (80, 0, 20)
    assert funded is not None
    assert entries_of(funded) == {
        f"player: {banker.display_name} (#{banker.pk})": -20,
        f"bank: {r.table.name} ({r.casino.name})": 20,
    }

    result = r.settlement(Outcome.BANKER, 20, [(p1, 7), (p2, 5)])
    assert (result.covered, result.uncovered, result.tax, result.next_bank_min) == (12, 8, 0, 24)
    settled = coup_money.coup_settle(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key="coup:1:settle",
        borrowing=r.borrowing,
    )
    assert settled.kind == "coup_settlement"
    assert wallet(r, banker) == 80
    assert reserve(r, banker) == 8
    assert bank(r) == 24 == result.next_bank_min
    assert (wallet(r, p1), wallet(r, p2)) == (93, 95)
    assert selectors.account_balance(casino=r.casino, kind=Account.Kind.CAGE) == -300
    assert selectors.account_balance(casino=r.casino, kind=Account.Kind.LEVY) == 0
    assert casino_total(r) == 0
    # one entry per account: the bank's +12 won and -8 to the reserve are one +4
    assert sorted(entries_of(settled).values()) == [-7, -5, 4, 8]
    assert entries_of(settled)[f"bank: {r.table.name} ({r.casino.name})"] == 4
    # the banker's own holdings: 80 + 8 + 24 = 112, his 100 and the 12 he won
    assert wallet(r, banker) + reserve(r, banker) + bank(r) == 112
    assert selectors.player_available(casino=r.casino, player=banker) == 88

    # the bank ends: bank and reserve go back to him
    closed = banks.bank_close(table=r.table, banker=banker, actor=r.actor, key="turn:1:close")
    assert (wallet(r, banker), reserve(r, banker), bank(r)) == (112, 0, 0)
    assert closed is not None and closed.kind == "bank_close" and casino_total(r) == 0


def test_casino_levy_and_a_lost_bank() -> None:
    r = rig("casino", players=3, chips=1000)
    banker, p1, p2 = r.players
    _, result = r.play(banker, 200, Outcome.BANKER, [(p1, 100), (p2, 60)])
    # 5 % of the covered 160 = 8; the uncovered 40 stays in the bank
    assert (result.tax, bank(r)) == (8, 200 + 160 - 8)
    assert selectors.account_balance(casino=r.casino, kind=Account.Kind.LEVY) == 8
    assert (wallet(r, banker), wallet(r, p1), wallet(r, p2)) == (800, 900, 940)

    coup2, _ = r.play(banker, 352, Outcome.PLAYER, [(p1, 300)])  # continuation: nothing added
    assert Transaction.objects.filter(coup=coup2, kind="bank_fund").count() == 0
    # p1 wins 300; the bank's other 52 go back to the banker with the bank
    assert (wallet(r, p1), wallet(r, banker), bank(r)) == (1200, 852, 0)
    assert casino_total(r) == 0


def test_stand_off_with_nothing_to_move_is_recorded_without_entries() -> None:
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    coup, result = r.play(banker, 50, Outcome.TIE, [(p1, 50)])
    txn = Transaction.objects.get(coup=coup, kind="coup_settlement")
    assert (txn.entries.count(), bank(r), result.next_bank_min) == (0, 50, 50)
    assert AuditEvent.objects.filter(
        action="ledger.transaction.coup_settlement", object_id=str(txn.pk)
    ).exists()


def test_uncovered_part_goes_to_the_reserve_in_every_outcome() -> None:
    r = rig("club", players=3, chips=100)
    banker, p1, _ = r.players
    r.play(banker, 30, Outcome.TIE, [(p1, 10)])
    assert (bank(r), reserve(r, banker)) == (10, 20)
    r.play(banker, 10, Outcome.PLAYER, [(p1, 10)])
    assert (bank(r), reserve(r, banker), wallet(r, banker), wallet(r, p1)) == (0, 0, 90, 110)


def test_house_limit_excess_goes_to_the_reserve() -> None:
    r = rig("casino", players=3, chips=1000, house_limit=300, levy_rate_bp=500)
    banker, p1, p2 = r.players
    _, result = r.play(banker, 200, Outcome.BANKER, [(p1, 100), (p2, 100)])
    # 200 + 200 - 10 = 390, capped at 300: 90 to the reserve
    assert (result.next_bank_min, bank(r), reserve(r, banker)) == (300, 300, 90)
    assert casino_total(r) == 0


def test_club_option_stand_reimbursement_is_folded_in() -> None:
    r = rig("club", players=4, chips=100)
    banker, active, other, _ = r.players
    coup = r.coup(banker, 30)
    banks.bank_fund(coup=coup, amount=30, actor=r.actor, key="k:bank", borrowing=r.borrowing)
    result = r.settlement(Outcome.BANKER, 30, [(active, 20), (other, 10)], reimbursing=active)
    coup_money.coup_settle(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key="k:settle",
        borrowing=r.borrowing,
    )
    assert (wallet(r, active), wallet(r, other), bank(r)) == (70, 100, 60)


def test_bank_fund_takes_the_reserve_when_the_player_account_is_short_and_refuses_beyond() -> None:
    r = rig("home", players=3, chips=100)
    banker, p1, _ = r.players
    r.play(banker, 100, Outcome.BANKER, [(p1, 40)])  # bank 80, reserve 60, wallet 0
    assert (wallet(r, banker), reserve(r, banker), bank(r)) == (0, 60, 80)
    coup = r.coup(banker, 130)
    banks.bank_fund(coup=coup, amount=50, actor=r.actor, key="raise", borrowing=r.borrowing)
    assert (wallet(r, banker), reserve(r, banker), bank(r)) == (0, 10, 130)

    coup2 = r.coup(banker, 200)
    with pytest.raises(ledger.InsufficientChips) as refused:
        banks.bank_fund(coup=coup2, amount=70, actor=r.actor, key="too-much", borrowing=r.borrowing)
    assert refused.value.messages == ["P1 has only 140 chips; a bank of 200 is refused."]
    assert (wallet(r, banker), reserve(r, banker), bank(r)) == (0, 10, 130)
    assert not Transaction.objects.filter(idempotency_key="too-much").exists()


def test_bank_fund_refuses_amounts_that_do_not_make_the_declared_bank() -> None:
    r = rig("casino", players=2, chips=100)
    banker, _ = r.players
    coup = r.coup(banker, 50)
    with pytest.raises(ValidationError, match="50 chips are to be added, not 30"):
        banks.bank_fund(coup=coup, amount=30, actor=r.actor, key="wrong", borrowing=r.borrowing)
    with pytest.raises(ValidationError, match="50 chips are to be added, not 0"):
        banks.bank_fund(coup=coup, amount=0, actor=r.actor, key="zero", borrowing=r.borrowing)
    right = banks.bank_fund(coup=coup, amount=50, actor=r.actor, key="right", borrowing=r.borrowing)
    assert right is not None and right.kind == "bank_fund"
    # replay: same transaction, nothing more moved
    again = banks.bank_fund(coup=coup, amount=50, actor=r.actor, key="right", borrowing=r.borrowing)
    assert again == Transaction.objects.get(idempotency_key="right") and bank(r) == 50
    # the same bank continued: nothing to add, whether given as the increase (0) or the bank (50)
    following = r.coup(banker, 50)
    assert (
        banks.bank_fund(coup=following, amount=0, actor=r.actor, key="next-0", borrowing=r.borrowing) is None
    )
    assert (
        banks.bank_fund(coup=following, amount=50, actor=r.actor, key="next-50", borrowing=r.borrowing)
        is None
    )
    assert Transaction.objects.filter(kind="bank_fund").count() == 1


def test_a_bank_still_holding_another_bankers_chips_is_refused() -> None:
    r = rig("casino", players=3, chips=100)
    first, second, _ = r.players
    r.play(first, 50, Outcome.TIE, [(second, 10)])
    r.end_turn()  # forgot bank_close
    coup = r.coup(second, 20)
    with pytest.raises(ValidationError, match="still holds 50 chips of P1"):
        banks.bank_fund(coup=coup, amount=20, actor=r.actor, key="x", borrowing=r.borrowing)


def test_settling_an_unfunded_bank_is_refused() -> None:
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    coup = r.coup(banker, 50)
    with pytest.raises(ValidationError, match="holds 0 chips but coup 1 was played for a bank of 50"):
        coup_money.coup_settle(
            coup=coup,
            settlement=r.settlement("banker", 50, [(p1, 10)]),
            punters=r.punters(),
            uncovered_to_reserve=False,
            house_limit=None,
            actor=r.actor,
            key="s",
            borrowing=r.borrowing,
        )


def test_a_coup_is_settled_once_whatever_the_key() -> None:
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    coup, result = r.play(banker, 50, Outcome.TIE, [(p1, 10)])
    with pytest.raises(ValidationError, match="already settled"):
        coup_money.coup_settle(
            coup=coup,
            settlement=result,
            punters=r.punters(),
            uncovered_to_reserve=False,
            house_limit=None,
            actor=r.actor,
            key="another key",
            borrowing=r.borrowing,
        )


def test_settlement_inconsistent_with_the_ledger_rules_is_refused() -> None:
    r = rig("home", players=2, chips=100)
    banker, p1 = r.players
    coup = r.coup(banker, 20)
    banks.bank_fund(coup=coup, amount=20, actor=r.actor, key="b", borrowing=r.borrowing)
    result = r.settlement("banker", 20, [(p1, 5)])
    with pytest.raises(ValueError, match="next bank is at least 10"):
        coup_money.coup_settle(
            coup=coup,
            settlement=result,
            punters=r.punters(),
            uncovered_to_reserve=False,
            house_limit=None,
            actor=r.actor,
            key="s",
            borrowing=r.borrowing,
        )


def _provisional(r: Rig, banker, bank_amount: int, outcome: str, bets) -> tuple:
    coup = r.coup(banker, bank_amount, state="awaiting_approval")
    banks.bank_fund(
        coup=coup, amount=bank_amount, actor=r.actor, key=f"coup:{coup.pk}:bank", borrowing=r.borrowing
    )
    result = r.settlement(outcome, bank_amount, bets)
    coup_money.coup_settle(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=r.profile.uncovered_to_reserve,
        house_limit=None,
        actor=r.actor,
        key=f"coup:{coup.pk}:correction:5",
        provisional=True,
        borrowing=r.borrowing,
    )
    return coup, result


def test_provisional_then_approved_replacement_moves_nothing_twice() -> None:
    r = rig("home", players=3, chips=100)
    banker, p1, p2 = r.players
    coup, result = _provisional(r, banker, 20, "banker", [(p1, 7), (p2, 5)])
    assert Transaction.objects.get(coup=coup, kind="coup_provisional").entries.count() == 4
    before = dict(Account.objects.values_list("pk", "balance"))

    final = coup_money.coup_settlement_replace(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key=f"coup:{coup.pk}:approved",
        borrowing=r.borrowing,
    )
    assert dict(Account.objects.values_list("pk", "balance")) == before  # net nothing
    reversal = Transaction.objects.get(coup=coup, kind="coup_reversal")
    provisional = Transaction.objects.get(coup=coup, kind="coup_provisional")
    assert reversal.reverses == provisional and reversal.idempotency_key.endswith(":approved:reverse")
    assert final.idempotency_key.endswith(":approved:settle") and final.kind == "coup_settlement"
    assert selectors.transaction_entries(txn=reversal) == {
        pk: -a for pk, a in selectors.transaction_entries(txn=provisional).items()
    }
    assert selectors.transaction_entries(txn=final) == selectors.transaction_entries(txn=provisional)
    # replay
    again = coup_money.coup_settlement_replace(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key=f"coup:{coup.pk}:approved",
        borrowing=r.borrowing,
    )
    assert again == final and Transaction.objects.filter(coup=coup).count() == 4


def test_replacement_with_another_outcome_moves_the_difference() -> None:
    r = rig("casino", players=3, chips=1000)
    banker, p1, p2 = r.players
    coup, _ = _provisional(r, banker, 100, "banker", [(p1, 60), (p2, 40)])
    assert (bank(r), wallet(r, p1)) == (195, 940)
    restored = r.settlement("player", 100, [(p1, 60), (p2, 40)])
    coup_money.coup_settlement_replace(
        coup=coup,
        settlement=restored,
        punters=r.punters(),
        uncovered_to_reserve=False,
        house_limit=None,
        actor=r.actor,
        key="approved",
        borrowing=r.borrowing,
    )
    assert (bank(r), wallet(r, p1), wallet(r, p2)) == (0, 1060, 1040)
    assert selectors.account_balance(casino=r.casino, kind=Account.Kind.LEVY) == 0
    assert casino_total(r) == 0


def test_rejected_correction_is_reversed_and_a_new_one_may_follow() -> None:
    r = rig("home", players=3, chips=100)
    banker, p1, p2 = r.players
    coup, _ = _provisional(r, banker, 20, "banker", [(p1, 7), (p2, 5)])
    coup_money.coup_provisional_reverse(coup=coup, actor=r.actor, key="rejected:6", borrowing=r.borrowing)
    assert (wallet(r, banker), reserve(r, banker), bank(r), wallet(r, p1)) == (80, 0, 20, 100)
    with pytest.raises(ValidationError, match="no provisional settlement to reverse"):
        coup_money.coup_provisional_reverse(coup=coup, actor=r.actor, key="rejected:7", borrowing=r.borrowing)
    second = r.settlement("player", 20, [(p1, 7), (p2, 5)])
    coup_money.coup_settle(
        coup=coup,
        settlement=second,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key="correction:8",
        provisional=True,
        borrowing=r.borrowing,
    )
    assert (wallet(r, p1), wallet(r, p2), bank(r), reserve(r, banker)) == (107, 105, 0, 8)
    assert casino_total(r) == 0


def test_correction_reviewed_after_the_bank_moved_on_settles_with_the_bankers_account() -> None:
    """Home: the restored result (punters win) ends the bank at once; the pit boss then rejects
    it: the reversal takes back from the punters and returns the banker's side to his account,
    where bank_close put his chips — his reserve is empty by then."""
    r = rig("home", players=3, chips=100)
    banker, p1, p2 = r.players
    coup, _ = _provisional(r, banker, 20, "player", [(p1, 7), (p2, 5)])
    r.close(banker)  # the table plays on: the bank is lost
    assert (wallet(r, banker), reserve(r, banker), bank(r)) == (88, 0, 0)
    coup_money.coup_provisional_reverse(coup=coup, actor=r.actor, key="rejected", borrowing=r.borrowing)
    assert (wallet(r, banker), wallet(r, p1), wallet(r, p2), bank(r)) == (100, 100, 100, 0)
    # a new correction, banker wins this time: his side goes to his account as well
    result = r.settlement("banker", 20, [(p1, 7), (p2, 5)])
    coup_money.coup_settle(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key="correction:2",
        provisional=True,
        borrowing=r.borrowing,
    )
    coup_money.coup_settlement_replace(
        coup=coup,
        settlement=result,
        punters=r.punters(),
        uncovered_to_reserve=True,
        house_limit=None,
        actor=r.actor,
        key="approved",
        borrowing=r.borrowing,
    )
    assert (wallet(r, banker), wallet(r, p1), wallet(r, p2), bank(r), reserve(r, banker)) == (
        112,
        93,
        95,
        0,
        0,
    )
    assert casino_total(r) == 0


def test_bet_check_affordable() -> None:
    home = rig("home", players=2, chips=10)
    _, p1 = home.players
    stake_check_affordable(casino=home.casino, player=p1, amount=6, already_staked=4)
    with pytest.raises(ledger.InsufficientChips, match="P2 has only 10 chips; a bet of 7 besides the 4"):
        stake_check_affordable(casino=home.casino, player=p1, amount=7, already_staked=4)
    # the rule reads no flag: the floor asks it only where the coup's rules forbid borrowing
    casino = rig("casino", players=2, chips=10)
    with pytest.raises(ledger.InsufficientChips, match="P2 has only 10 chips; a bet of 500 is refused"):
        stake_check_affordable(casino=casino.casino, player=casino.players[1], amount=500, already_staked=0)


def test_every_posting_is_audited_in_its_transaction() -> None:
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    coup, _ = r.play(banker, 50, Outcome.BANKER, [(p1, 20)])
    settled = Transaction.objects.get(coup=coup, kind="coup_settlement")
    event = AuditEvent.objects.get(action="ledger.transaction.coup_settlement", object_id=str(settled.pk))
    assert event.actor == r.actor
    assert event.after is not None
    assert {e["amount"] for e in event.after["entries"]} == set(
        selectors.transaction_entries(txn=settled).values()
    )
    assert event.after["coup"] == coup.pk
    posted = Transaction.objects.filter(casino=r.casino).count()
    assert AuditEvent.objects.filter(action__startswith="ledger.transaction.").count() == posted


def test_coup_transactions_selector() -> None:
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    coup, _ = r.play(banker, 50, Outcome.PLAYER, [(p1, 20)])
    assert [t.kind for t in selectors.coup_transactions(coup=coup)] == ["bank_fund", "coup_settlement"]
