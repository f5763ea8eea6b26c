"""The money rules with one owner each (tables/money/rules.py): what a bank, a bet and a coup's
settlement move, from balances the caller holds. The live services, the batched importer and the
books check all ask them; here they are asked directly, with no database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pytest
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from chemin_de_fer.engine.coup import Settlement
from ledger.services import InsufficientChips, UnbalancedTransaction
from tables.money.rules import (
    BankSide,
    CoupAccounts,
    bank_close_entries,
    bank_close_memo,
    bank_fund_entries,
    bank_fund_memo,
    bank_increase,
    settlement_at_stake_check,
    settlement_entries,
    settlement_memo,
    settlement_punters,
    stake_check,
    to_banker_wallet,
)

if TYPE_CHECKING:
    from tables.models import Player


@dataclass
class Held:
    """An account as the rules read it: an id and a balance."""

    pk: int
    balance: int


@dataclass(frozen=True)
class Person:
    pk: int
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class CoupNo:
    number: int
    bank: int


# the rules read a player's id and name only: a stand-in, typed as the player it stands for
BANKER = cast("Player", Person(1, "Bruno"))
ALICE, BORIS = cast("Player", Person(2, "Alice")), cast("Player", Person(3, "Boris"))
BANK, WALLET, RESERVE, LEVY, A, B = 10, 11, 12, 13, 20, 21


def side(bank: int = 0, wallet: int = 0, reserve: int = 0) -> BankSide:
    return BankSide(bank=Held(BANK, bank), wallet=Held(WALLET, wallet), reserve=Held(RESERVE, reserve))


# ---------------------------------------------------------------------------------------- the bank
def test_a_bank_declared_below_what_the_bank_holds_is_refused() -> None:
    assert bank_increase(bank_balance=60, coup_bank=100) == 40
    assert bank_increase(bank_balance=100, coup_bank=100) == 0
    with pytest.raises(ValidationError, match=r"The bank holds 120 chips: a bank of 100 would lower it"):
        bank_increase(bank_balance=120, coup_bank=100)


def test_the_banker_pays_from_his_chips_then_from_his_reserve() -> None:
    entries = bank_fund_entries(
        side(bank=0, wallet=70, reserve=50), increase=100, coup=CoupNo(3, 100), banker=BANKER, borrowing=False
    )
    assert entries == {BANK: 100, WALLET: -70, RESERVE: -30}


def test_a_bank_the_banker_has_not_got_is_refused_unless_he_may_borrow() -> None:
    short = side(bank=10, wallet=40, reserve=20)
    with pytest.raises(InsufficientChips, match=r"Bruno has only 70 chips; a bank of 100 is refused\."):
        bank_fund_entries(short, increase=90, coup=CoupNo(3, 100), banker=BANKER, borrowing=False)
    # where he may borrow, his player account pays it all (below zero: his marker)
    assert bank_fund_entries(short, increase=90, coup=CoupNo(3, 100), banker=BANKER, borrowing=True) == {
        BANK: 90,
        WALLET: -90,
    }


def test_club_spectators_shares_are_part_of_the_bank_and_the_banker_puts_up_the_rest() -> None:
    entries = bank_fund_entries(
        side(wallet=100),
        increase=100,
        coup=CoupNo(1, 100),
        banker=BANKER,
        borrowing=False,
        shares={A: -30, B: -20},
    )
    assert entries == {BANK: 100, WALLET: -50, A: -30, B: -20}


@given(
    increase=st.integers(min_value=1, max_value=1_000),
    wallet=st.integers(min_value=-200, max_value=1_000),
    reserve=st.integers(min_value=0, max_value=1_000),
    borrowing=st.booleans(),
)
def test_a_bank_declared_balances_or_is_refused(
    increase: int, wallet: int, reserve: int, borrowing: bool
) -> None:
    """Whatever the balances, a declared bank either posts balanced entries that bring the bank up by
    ``increase`` without taking the reserve below zero, or is refused for lack of chips."""
    held = side(bank=0, wallet=wallet, reserve=reserve)
    try:
        entries = bank_fund_entries(
            held, increase=increase, coup=CoupNo(1, increase), banker=BANKER, borrowing=borrowing
        )
    except InsufficientChips:
        assert not borrowing and max(wallet, 0) + reserve < increase
        return
    assert sum(entries.values()) == 0 and 0 not in entries.values()
    assert entries[BANK] == increase
    assert reserve + entries.get(RESERVE, 0) >= 0
    if not borrowing:
        assert wallet + entries.get(WALLET, 0) >= min(wallet, 0)  # never deeper below zero


def test_a_bank_closed_returns_the_bank_and_the_reserve_to_the_banker() -> None:
    held = side(bank=140, wallet=5, reserve=60)
    assert bank_close_entries(held) == {BANK: -140, RESERVE: -60, WALLET: 200}
    assert bank_close_entries(side(bank=140)) == {BANK: -140, WALLET: 140}
    assert bank_close_entries(side(wallet=5)) == {}
    assert (
        bank_close_memo(held, banker=BANKER, table_name="Table 1")
        == "bank of Bruno at Table 1 closed: 140 from the bank, 60 from the reserve"
    )
    assert bank_fund_memo(coup=CoupNo(7, 300), banker=BANKER) == "coup 7: bank of 300 declared by Bruno"


# ----------------------------------------------------------------------------------------- a bet
@pytest.mark.parametrize(
    ("balance", "amount", "staked", "refused"),
    [
        (100, 60, 40, None),
        (100, 61, 40, "Alice has only 100 chips; a bet of 61 besides the 40 already staked is refused."),
        (50, 51, 0, "Alice has only 50 chips; a bet of 51 is refused."),
        (0, 1, 0, "Alice has only 0 chips; a bet of 1 is refused."),
    ],
)
def test_a_bet_is_covered_by_the_players_chips_with_what_he_has_at_stake(
    balance: int, amount: int, staked: int, refused: str | None
) -> None:
    if refused is None:
        stake_check(player=ALICE, balance=balance, amount=amount, already_staked=staked)
        return
    with pytest.raises(InsufficientChips) as error:
        stake_check(player=ALICE, balance=balance, amount=amount, already_staked=staked)
    assert error.value.messages == [refused]


# ------------------------------------------------------------------------------ a coup's settlement
def accounts(bank: int = 100) -> CoupAccounts:
    return CoupAccounts(
        by_spec={},
        punters={"seat-2": Held(A, 0), "seat-3": Held(B, 0)},
        bank=Held(BANK, bank),
        reserve=Held(RESERVE, 0),
        wallet=Held(WALLET, 0),
        levy=Held(LEVY, 0),
    )


def settled(**kw: Any) -> Settlement:
    base: dict[str, Any] = {
        "punters": {"seat-2": -60, "seat-3": -40},
        "banker_net": 95,
        "tax": 5,
        "covered": 100,
        "uncovered": 0,
        "next_bank_min": 195,
    }
    return Settlement(**{**base, **kw})


def test_a_settlement_that_disagrees_with_the_house_limit_is_not_posted() -> None:
    with pytest.raises(
        ValueError, match="leaves 150 chips in the bank but says the next bank is at least 195"
    ):
        settlement_entries(
            settlement=settled(), accounts=accounts(), uncovered_to_reserve=False, house_limit=150
        )


def test_a_bank_win_pays_the_levy_and_keeps_the_rest_in_the_bank() -> None:
    entries = settlement_entries(
        settlement=settled(), accounts=accounts(), uncovered_to_reserve=False, house_limit=None
    )
    assert entries == {A: -60, B: -40, BANK: 95, LEVY: 5}
    assert settlement_memo(settled(), coup_number=4) == "coup 4: bank wins, covered 100, levy 5"
    assert (
        settlement_memo(settled(), coup_number=4, restored=True)
        == "coup 4 restored: bank wins, covered 100, levy 5"
    )


def test_a_bank_above_the_house_limit_goes_to_the_reserve() -> None:
    # the engine says the banker goes on with the house limit; what is above it goes to his reserve
    entries = settlement_entries(
        settlement=settled(next_bank_min=150),
        accounts=accounts(),
        uncovered_to_reserve=False,
        house_limit=150,
    )
    assert entries == {A: -60, B: -40, BANK: 50, RESERVE: 45, LEVY: 5}


def test_once_the_bank_has_moved_on_the_bankers_side_is_his_player_account() -> None:
    entries = {A: -60, B: -40, BANK: 50, RESERVE: 45, LEVY: 5}
    assert to_banker_wallet(entries, accounts()) == {A: -60, B: -40, WALLET: 95, LEVY: 5}


def test_a_settlement_is_balanced_names_its_punters_and_never_the_banker() -> None:
    punters = {"seat-2": ALICE, "seat-3": BORIS}
    assert settlement_punters(settlement=settled(), punters=punters, banker=BANKER) == punters
    with pytest.raises(UnbalancedTransaction, match="does not sum to zero"):
        settlement_punters(settlement=settled(tax=6), punters=punters, banker=BANKER)
    with pytest.raises(ValidationError, match=r"No player given for punter\(s\) seat-3\."):
        settlement_punters(settlement=settled(), punters={"seat-2": ALICE}, banker=BANKER)
    with pytest.raises(ValidationError, match=r"Bruno cannot bet against their own bank\."):
        settlement_punters(settlement=settled(), punters={"seat-2": ALICE, "seat-3": BANKER}, banker=BANKER)


def test_a_coup_is_settled_against_the_bank_it_was_played_for() -> None:
    settlement_at_stake_check(settlement=settled(), bank_balance=100, table_name="Table 1", coup_number=4)
    with pytest.raises(
        ValidationError, match=r"The bank of Table 1 holds 90 chips but coup 4 was played for a bank of 100"
    ):
        settlement_at_stake_check(settlement=settled(), bank_balance=90, table_name="Table 1", coup_number=4)
