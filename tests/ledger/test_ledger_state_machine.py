"""Random play in all four profiles against the real services, on PostgreSQL, checking after
every step that the books hold:

- every transaction sums to zero (the deferred database trigger, fired on demand, and a query);
- the balances of each casino sum to zero, and chips in circulation (every account but the cage)
  change only through the cage: they equal the buy-ins minus the cash-outs;
- no account is below zero where it may not be; every balance is the sum of its entries;
- the levy account holds exactly the levies of the coups' current settlements, the fee account
  the hourly fees billed, the card-money account the card money charged.

Coups are settled with the engine (chemin_de_fer.engine.settlement.settle); some are flagged, settled
provisionally, and later approved (possibly with another outcome) or rejected and corrected.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from chemin_de_fer.engine.coup import Outcome, Settlement
from ledger import selectors
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables import models as m
from tables.money import banks
from tables.money import fees as money_fees
from tables.money import settlement as coup_money
from tables.money.floor import stake_check_affordable
from tests.factories import UserFactory
from tests.ledger.builders import Rig, rig

PROFILES = ("casino", "classic", "club", "home")
OUTCOMES = st.sampled_from([Outcome.BANKER, Outcome.PLAYER, Outcome.TIE])


@dataclass
class Pending:
    """A flagged coup settled provisionally, awaiting the pit boss."""

    rig: Rig
    coup: m.Coup
    bets: list[tuple[m.Player, int]]
    corrections: int = 1


@dataclass
class Books:
    """What the machine expects, per casino."""

    circulation: int = 0  # buy-ins - cash-outs
    levies: dict[int, int] = field(default_factory=dict)  # coup id -> levy of its live settlement
    fees: int = 0
    card_money: int = 0


def build_floor(actor) -> list[Rig]:
    """The four tables (one casino each), built once; every example starts from them with no
    chips anywhere and rolls back whatever it did."""
    hours_ago = timezone.now().replace(minute=0, second=0, microsecond=0) - dt.timedelta(hours=3)
    rigs = []
    for slug in PROFILES:
        options: dict[str, Any] = {}  # the casino's settings, as rig passes them on
        if slug == "casino":
            options = {"house_limit": 400}
        elif slug == "classic":  # this casino charges by time
            options = {
                "levy_mode": "hourly_fee",
                "hourly_fee_amount": 7,
                "hourly_fee_basis": "per_player_hour",
                "hourly_fee_billing": "pro_rata",
            }
        elif slug == "club":
            options = {"card_money_amount": 3}
        rigs.append(rig(slug, players=3, chips=None, actor=actor, opened_at=hours_ago, **options))
    classic = rigs[1]
    m.SessionPause.objects.create(
        session=classic.session,
        started_at=hours_ago + dt.timedelta(minutes=70),
        ended_at=hours_ago + dt.timedelta(minutes=95),
        started_by=actor,
        ended_by=actor,
    )
    seat = classic.seats[classic.players[2].pk]
    seat.left_at = hours_ago + dt.timedelta(minutes=100)
    seat.save(update_fields=["left_at"])
    return rigs


FLOOR: list[Rig] = []


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.rigs = FLOOR
        self.actor = self.rigs[0].actor
        self.books: dict[int, Books] = {}
        self.pending: list[Pending] = []
        self.keys = 0
        for r in self.rigs:
            r.turn, r.coups = None, 0
            self.books[r.casino.pk] = Books()
            for player in r.players:
                self._buy(r, player, 60)

    def teardown(self) -> None:
        transaction.set_rollback(True)
        self.atomic.__exit__(None, None, None)

    # ------------------------------------------------------------------------------- helpers
    def key(self) -> str:
        self.keys += 1
        return f"sm:{self.keys}"

    def _buy(self, r: Rig, player: m.Player, amount: int) -> None:
        ledger.cage_buy_in(casino=r.casino, player=player, amount=amount, actor=self.actor, key=self.key())
        self.books[r.casino.pk].circulation += amount

    def wallet(self, r: Rig, player: m.Player) -> int:
        return selectors.account_balance(casino=r.casino, kind="player", player=player)

    def holder(self, r: Rig) -> m.Player | None:
        return banks.bank_holder(table=r.table)

    def borrowing(self, r: Rig) -> bool:
        return r.table.profile.borrowing_allowed

    def settle(self, r: Rig, coup: m.Coup, result: Settlement, *, key: str, provisional: bool) -> None:
        coup_money.coup_settle(
            coup=coup,
            settlement=result,
            punters=r.punters(),
            uncovered_to_reserve=r.profile.uncovered_to_reserve,
            house_limit=r.casino.house_limit,
            actor=self.actor,
            key=key,
            provisional=provisional,
            borrowing=r.borrowing,
        )
        self.books[r.casino.pk].levies[coup.pk] = result.tax

    def after_coup(self, r: Rig, banker: m.Player, result: Settlement) -> None:
        """The table plays on with the result: a losing banker loses his bank."""
        if result.next_bank_min is None:
            r.close(banker)

    # --------------------------------------------------------------------------------- rules
    @rule(data=st.data(), which=st.integers(0, 3), outcome=OUTCOMES)
    def play_clean_coup(self, data, which: int, outcome: Outcome) -> None:
        self.play_coup(data, which, False, outcome)

    @rule(data=st.data(), which=st.integers(0, 3), outcome=OUTCOMES)
    def play_flagged_coup(self, data, which: int, outcome: Outcome) -> None:
        self.play_coup(data, which, True, outcome)

    def play_coup(self, data, which: int, provisional: bool, outcome: Outcome) -> None:
        r = self.rigs[which]
        holder = self.holder(r)
        in_bank = selectors.account_balance(casino=r.casino, kind="bank", table=r.table)
        if holder is None and r.turn is not None:
            r.end_turn()
        banker = holder or data.draw(st.sampled_from(r.players), label="banker")
        available = selectors.player_available(casino=r.casino, player=banker) + in_bank
        low = max(in_bank, r.table.profile.min_bank, 1)
        high = max(low, available if not self.borrowing(r) else available + 50)
        bank = data.draw(st.integers(low, high + 5), label="bank")
        # open until its money is posted: a coup that is over is frozen by the database
        coup = r.coup(banker, bank, state="open")
        try:
            banks.bank_fund(
                coup=coup,
                amount=coup.bank,
                actor=self.actor,
                key=f"coup:{coup.pk}:bank",
                borrowing=r.borrowing,
            )
        except ledger.InsufficientChips:
            event("bank refused")
            assert not self.borrowing(r) and bank > available
            m.Coup.objects.filter(pk=coup.pk).update(state="void", settled_at=None)
            return
        bets: list[tuple[m.Player, int]] = []
        room = bank
        for punter in [p for p in r.players if p.pk != banker.pk]:
            cap = room if self.borrowing(r) else min(room, self.wallet(r, punter))
            if cap < r.table.profile.min_bet or not data.draw(st.booleans(), label="bets"):
                continue
            amount = data.draw(st.integers(r.table.profile.min_bet, cap), label="stake")
            if not self.borrowing(r):
                stake_check_affordable(casino=r.casino, player=punter, amount=amount, already_staked=0)
            bets.append((punter, amount))
            room -= amount
        if not bets:
            m.Coup.objects.filter(pk=coup.pk).update(
                state="void", settled_at=None
            )  # nobody bet: the bank stays
            return
        result = r.settlement(outcome, bank, bets)
        key = f"coup:{coup.pk}:correction:1" if provisional else f"coup:{coup.pk}:settle"
        self.settle(r, coup, result, key=key, provisional=provisional)
        if provisional:
            m.Coup.objects.filter(pk=coup.pk).update(state="awaiting_approval")
        else:
            m.Coup.objects.filter(pk=coup.pk).update(state="settled", settled_at=timezone.now())
        event(f"{'provisional' if provisional else 'settled'} {outcome.value}")
        if provisional:
            self.pending.append(Pending(r, coup, bets))
        self.after_coup(r, banker, result)

    @precondition(lambda self: self.pending)
    @rule(data=st.data(), outcome=OUTCOMES)
    def approve(self, data, outcome: Outcome) -> None:
        item = data.draw(st.sampled_from(self.pending), label="pending")
        r, coup = item.rig, item.coup
        result = r.settlement(outcome, coup.bank, item.bets)
        in_play = coup_money._bank_still_in_play(coup_money._coup_context(coup))
        try:
            with transaction.atomic():
                coup_money.coup_settlement_replace(
                    coup=coup,
                    settlement=result,
                    punters=r.punters(),
                    uncovered_to_reserve=r.profile.uncovered_to_reserve,
                    house_limit=r.casino.house_limit,
                    actor=self.actor,
                    key=f"coup:{coup.pk}:approved",
                    borrowing=r.borrowing,
                )
        except ledger.InsufficientChips:
            event("approval refused")
            return  # the chips were spent meanwhile and may not be borrowed: refused, nothing moved
        event("approved, bank in play" if in_play else "approved after the bank moved on")
        self.books[r.casino.pk].levies[coup.pk] = result.tax
        self.pending.remove(item)

    @precondition(lambda self: self.pending)
    @rule(data=st.data(), outcome=OUTCOMES)
    def reject_and_correct(self, data, outcome: Outcome) -> None:
        item = data.draw(st.sampled_from(self.pending), label="pending")
        r, coup = item.rig, item.coup
        try:
            with transaction.atomic():
                coup_money.coup_provisional_reverse(
                    coup=coup,
                    actor=self.actor,
                    key=f"coup:{coup.pk}:rejected:{item.corrections}",
                    borrowing=r.borrowing,
                )
        except ledger.InsufficientChips:
            event("rejection refused")
            return
        event("rejected")
        self.books[r.casino.pk].levies[coup.pk] = 0
        item.corrections += 1
        result = r.settlement(outcome, coup.bank, item.bets)
        try:
            with transaction.atomic():
                self.settle(
                    r, coup, result, key=f"coup:{coup.pk}:correction:{item.corrections}", provisional=True
                )
        except ledger.InsufficientChips:
            self.books[r.casino.pk].levies[coup.pk] = 0
            self.pending.remove(item)  # left awaiting a correction the table cannot pay for now
            return

    @rule(which=st.integers(0, 3))
    def pass_bank(self, which: int) -> None:
        r = self.rigs[which]
        holder = self.holder(r)
        if holder is not None:
            r.close(holder)

    @rule(which=st.integers(0, 3), who=st.integers(0, 2), amount=st.integers(1, 120), buy=st.booleans())
    def cage(self, which: int, who: int, amount: int, buy: bool) -> None:
        r = self.rigs[which]
        player = r.players[who]
        if buy:
            self._buy(r, player, amount)
            return
        held = self.wallet(r, player)
        try:
            ledger.cage_cash_out(
                casino=r.casino, player=player, amount=amount, actor=self.actor, key=self.key()
            )
        except ledger.InsufficientChips:
            assert amount > held
            return
        assert amount <= held
        self.books[r.casino.pk].circulation -= amount

    @rule(hour=st.integers(0, 2), who=st.integers(0, 2), fee=st.booleans())
    def house_charge(self, hour: int, who: int, fee: bool) -> None:
        if not fee:
            self.card_money(who)
            return
        r = self.rigs[1]
        start = selectors.clock_hour_floor(r.session.opened_at) + dt.timedelta(hours=hour)
        bill = money_fees.hourly_fees_bill(session=r.session, hour_start=start, actor=self.actor)
        assert bill.failures == {}
        if not bill.already_billed:
            self.books[r.casino.pk].fees += bill.total

    def card_money(self, who: int) -> None:
        r = self.rigs[2]
        before = Transaction.objects.filter(kind="card_money").count()
        try:
            money_fees.card_money_charge(session=r.session, player=r.players[who], actor=self.actor)
        except ValidationError:
            return
        if Transaction.objects.filter(kind="card_money").count() > before:
            self.books[r.casino.pk].card_money += r.casino.card_money_amount

    # ---------------------------------------------------------------------------- invariants
    @invariant()
    def every_transaction_balances(self) -> None:
        with connection.cursor() as cursor:  # fire the deferred trigger now, then defer again
            cursor.execute("SET CONSTRAINTS ledger_entry_balanced IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ledger_entry_balanced DEFERRED")
        assert selectors.unbalanced_transactions() == []
        assert selectors.ledger_drift() == []

    @invariant()
    def casinos_balance_and_chips_enter_only_through_the_cage(self) -> None:
        totals: dict[int, dict[str, int]] = {}
        for casino, kind, total in Account.objects.values_list("casino_id", "kind").annotate(
            t=Sum("balance")
        ):
            totals.setdefault(casino, {})[kind] = total
        for r in self.rigs:
            books, by_kind = self.books[r.casino.pk], totals.get(r.casino.pk, {})
            assert sum(by_kind.values()) == 0
            assert sum(v for k, v in by_kind.items() if k != "cage") == books.circulation
            assert by_kind.get("levy", 0) == sum(books.levies.values())
            assert by_kind.get("fee", 0) == books.fees
            assert by_kind.get("card_money", 0) == books.card_money

    @invariant()
    def nothing_negative_that_may_not_be(self) -> None:
        negative = Account.objects.filter(balance__lt=0).exclude(kind="cage")
        assert not negative.exclude(kind="player").exists()
        # a marker (a player account below zero) only where the table's rules let players borrow
        assert not negative.filter(casino=self.rigs[3].casino).exists()


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db
def test_ledger_state_machine() -> None:
    FLOOR[:] = build_floor(UserFactory())
    run_state_machine_as_test(
        LedgerMachine,
        settings=settings(
            max_examples=25,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
            derandomize=False,
        ),
    )
