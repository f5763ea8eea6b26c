"""What the taker of a passed bank may put up (RULES.md §7), and where the stop card goes (§8)."""

from __future__ import annotations

import pytest

from chemin_de_fer.engine.bank_terms import BankTerms, auction_terms, passed_bank_terms
from chemin_de_fer.engine.profiles import BUILTIN, PassedBank
from core.cards import stop_card_refusal

OWN, CONTINUATION = PassedBank.OWN_BANK, PassedBank.CONTINUATION


def test_each_builtin_profile_says_what_a_passed_bank_asks() -> None:
    """RULES.md §7: casino, classic and club let the taker set his own bank; home asks for at
    least the continuation."""
    assert {slug: p.passed_bank for slug, p in BUILTIN.items()} == {
        "casino": OWN,
        "classic": OWN,
        "club": OWN,
        "home": CONTINUATION,
    }


@pytest.mark.parametrize(
    ("rule", "min_bank", "continuation", "limit", "terms"),
    [
        (OWN, 1, 195, None, BankTerms(1, None)),  # seed 000 a: his own bank, from the minimum
        (OWN, 1, 195, 5000, BankTerms(1, 5000)),  # ... up to the house limit
        (CONTINUATION, 2, 20, None, BankTerms(20, None)),  # seed 003: at least the continuation
        (CONTINUATION, 2, 1, None, BankTerms(2, None)),  # never below the profile minimum
    ],
)
def test_passed_bank_terms(rule, min_bank, continuation, limit, terms) -> None:
    got = passed_bank_terms(passed_bank=rule, min_bank=min_bank, continuation=continuation, house_limit=limit)
    assert got == terms


def test_the_refusals_of_a_range() -> None:
    terms = BankTerms(minimum=20, maximum=500)
    assert [terms.refusal(a) for a in (20, 500)] == [None, None]
    assert terms.refusal(19) == "The bank must be at least 20."
    assert terms.refusal(501) == "A bank may not exceed the house limit of 500."
    assert not terms.exact and BankTerms(1, None).refusal(10**12) is None


def test_an_auction_takes_the_bank_just_played_and_nothing_else() -> None:
    """RULES.md §7 (seed 000 b): a bank equal to the one just played."""
    terms = auction_terms(bank_just_played=100, min_bank=1, house_limit=None)
    assert (terms.minimum, terms.maximum, terms.exact) == (100, 100, True)
    assert terms.refusal(100) is None
    for amount in (99, 101):
        assert terms.refusal(amount) == "The bank goes to whoever puts up 100, the bank just played."
    # kept within the house limit and the minimum, should either have changed since
    assert auction_terms(bank_just_played=900, min_bank=1, house_limit=500).minimum == 500
    assert auction_terms(bank_just_played=1, min_bank=2, house_limit=None).minimum == 2


@pytest.mark.parametrize("from_bottom", [7, 8, 9, 10])
def test_a_stop_card_7_to_10_from_the_bottom_stands(from_bottom) -> None:
    """RULES.md §8."""
    assert stop_card_refusal(from_bottom, 312) is None


@pytest.mark.parametrize("from_bottom", [0, 3, 6, 11, 100])
def test_a_stop_card_elsewhere_is_refused(from_bottom) -> None:
    """RULES.md §8: 3 and 100 used to be accepted."""
    assert stop_card_refusal(from_bottom, 416) == (
        "The stop card goes 7 to 10 cards from the bottom of the shoe "
        f"(in this 416-card shoe: after card 406 to 409), not {from_bottom}."
    )
