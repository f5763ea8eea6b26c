"""Advice at option points: hand-checked expectations, naive cross-checks, properties.

The naive references below re-type the opponent model from the module docstring (tableau where it
binds, Punto Banco at his options) and enumerate *physical* cards one by one, sharing no code with
``chemin_de_fer.engine.advice`` beyond the public entry points under test.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.advice import (
    ASSUMPTION,
    Advice,
    AdviceError,
    advise_banker,
    advise_player,
    player_policy,
)
from chemin_de_fer.engine.profiles import BUILTIN, CASINO, CLASSIC, CLUB, HOME, Profile
from chemin_de_fer.engine.tableau import PUNTO_BANCO, Requirement, Tableau
from tests.chemin_de_fer.engine.strategies import unseen_counts

DRAW, STAND = Requirement.DRAW, Requirement.STAND
BankerRule = Callable[[int, int | None], bool]
EIGHT_DECKS = (128,) + (32,) * 9
#: one card of each point 0..9 for hands: points -> a card code
CARD = {0: "TS", 1: "AS", 2: "2S", 3: "3S", 4: "4S", 5: "5S", 6: "6S", 7: "7S", 8: "8S", 9: "9S"}
CARD_POINTS = {code: points for points, code in CARD.items()}
#: infinite deck: probability of each point value
Q = {v: Fraction(4 if v == 0 else 1, 13) for v in range(10)}


def _hand(total: int, first: int = 0) -> tuple[str, str]:
    """Two cards making ``total``, the first worth ``first``."""
    return CARD[first], CARD[(total - first) % 10]


def _without(counts: tuple[int, ...], *values: int) -> tuple[int, ...]:
    left = list(counts)
    for v in values:
        left[v] -= 1
    return tuple(left)


# ---------------------------------------------------------------------------------------------
# The opponent model, re-typed


def _pb_banker_draws(banker: int, third: int | None) -> bool:
    """Punto Banco's fixed banker rule."""
    if third is None:
        return banker <= 5
    if banker <= 2:
        return True
    if banker == 3:
        return third != 8
    if banker == 4:
        return 2 <= third <= 7
    if banker == 5:
        return 4 <= third <= 7
    if banker == 6:
        return third in (6, 7)
    return False


def _modelled_banker(slug: str) -> BankerRule:
    """The banker the player's advice assumes: club must draw on 0-4 and is free (PB row) on 5-7;
    the others' options (3-vs-9, 5-vs-4) are resolved as Punto Banco does, so they play PB."""
    if slug == "club":
        return lambda b, third: True if b <= 4 else _pb_banker_draws(b, third)
    return _pb_banker_draws


def _cmp(a: int, b: int) -> int:
    return (a > b) - (a < b)


# ---------------------------------------------------------------------------------------------
# Hand-checked values on an infinite deck


def test_player_standing_on_7_infinite_deck_by_hand() -> None:
    """Player stands on 7 against a Punto Banco banker, infinite deck, written out case by case:
    banker natural -> lose; banker 7 -> stand-off; banker 6 -> stands, player wins; banker 0-5
    draws one card and the new total is compared with 7."""
    ev = Fraction(0)
    for a in range(10):
        for b in range(10):
            p = Q[a] * Q[b]
            bt = (a + b) % 10
            if bt >= 8:
                ev -= p
            elif bt == 7:
                pass
            elif bt == 6:
                ev += p
            else:
                for v in range(10):
                    ev += p * Q[v] * _cmp(7, (bt + v) % 10)
    advice = advise_player(Tableau.for_profile(HOME), _hand(7), single_punter=True, unseen=None)
    assert advice.ev_stand == ev
    assert advice.choice is STAND
    assert advice.basis == "infinite"
    # to six places, for the documentation
    assert round(ev, 6) == Fraction("0.287665")


def test_player_on_5_infinite_deck_both_ways_by_hand() -> None:
    def ev(draws: bool) -> Fraction:
        total = Fraction(0)
        for a in range(10):
            for b in range(10):
                p = Q[a] * Q[b]
                bt = (a + b) % 10
                if bt >= 8:
                    total -= p
                    continue
                thirds = range(10) if draws else [None]
                for c in thirds:
                    pc = p * (Q[c] if c is not None else 1)
                    pt = 5 if c is None else (5 + c) % 10
                    if _pb_banker_draws(bt, c):
                        total += sum(pc * Q[v] * _cmp(pt, (bt + v) % 10) for v in range(10))
                    else:
                        total += pc * _cmp(pt, bt)
        return total

    advice = advise_player(Tableau.for_profile(CASINO), _hand(5), single_punter=False, unseen=None)
    assert (advice.ev_draw, advice.ev_stand) == (ev(True), ev(False))
    assert advice.choice is DRAW  # drawing on 5 is better against the Punto Banco banker
    assert advice.margin == ev(True) - ev(False) > 0


def test_banker_3_against_9_infinite_deck_by_hand() -> None:
    """Banker 3, player drew a 9: his hidden pair is no natural and 0-5 (he drew), so his total is
    (h + 9) % 10 for h in 0..5, with h distributed as the two-card totals, renormalised."""
    weights = {h: Fraction(0) for h in range(6)}
    for a in range(10):
        for b in range(10):
            if (a + b) % 10 <= 5:
                weights[(a + b) % 10] += Q[a] * Q[b]
    norm = sum(weights.values(), Fraction(0))
    win = Fraction(95, 100)

    def value(bank: int, player: int) -> Fraction:
        c = _cmp(bank, player)
        return win if c > 0 else Fraction(-1) if c < 0 else Fraction(0)

    stand = sum(w * value(3, (h + 9) % 10) for h, w in weights.items()) / norm
    draw = sum(
        (w * Q[v] * value((3 + v) % 10, (h + 9) % 10) for h, w in weights.items() for v in range(10)),
        Fraction(0),
    )
    draw /= norm
    advice = advise_banker(Tableau.for_profile(CASINO), _hand(3), "9H", unseen=None, levy_bp=500)
    assert (advice.ev_draw, advice.ev_stand) == (draw, stand)
    assert advice.chooser == "banker"
    assert advice.choice is DRAW


# ---------------------------------------------------------------------------------------------
# Naive finite references over physical cards


def _physical(counts: tuple[int, ...]) -> list[int]:
    return [v for v, n in enumerate(counts) for _ in range(n)]


def _naive_player(total: int, counts: tuple[int, ...], banker_draws: BankerRule) -> tuple[Fraction, Fraction]:
    cards = _physical(counts)
    idx = range(len(cards))
    stand: list[Fraction] = []
    draw: list[Fraction] = []
    for i, j in permutations(idx, 2):
        bt = (cards[i] + cards[j]) % 10
        rest = [k for k in idx if k not in (i, j)]
        if bt >= 8:
            stand.append(Fraction(-1))
            draw.append(Fraction(-1))
            continue
        if banker_draws(bt, None):
            stand.append(Fraction(sum(_cmp(total, (bt + cards[k]) % 10) for k in rest), len(rest)))
        else:
            stand.append(Fraction(_cmp(total, bt)))
        outcomes = Fraction(0)
        for k in rest:
            pt = (total + cards[k]) % 10
            if banker_draws(bt, cards[k]):
                rest2 = [m for m in rest if m != k]
                outcomes += Fraction(sum(_cmp(pt, (bt + cards[m]) % 10) for m in rest2), len(rest2))
            else:
                outcomes += _cmp(pt, bt)
        draw.append(outcomes / len(rest))
    return sum(draw, Fraction(0)) / len(draw), sum(stand, Fraction(0)) / len(stand)


def _naive_banker(
    total: int, third: int | None, counts: tuple[int, ...], levy_bp: int
) -> tuple[Fraction, Fraction]:
    cards = _physical(counts)
    idx = range(len(cards))
    win = Fraction(10_000 - levy_bp, 10_000)

    def value(bank: int, player: int) -> Fraction:
        c = _cmp(bank, player)
        return win if c > 0 else Fraction(-1) if c < 0 else Fraction(0)

    stand: list[Fraction] = []
    draw: list[Fraction] = []
    for i, j in permutations(idx, 2):
        h = (cards[i] + cards[j]) % 10
        if h >= 8 or (h <= 5) != (third is not None):  # he would have shown / done otherwise
            continue
        pt = h if third is None else (h + third) % 10
        rest = [k for k in idx if k not in (i, j)]
        stand.append(value(total, pt))
        draw.append(sum((value((total + cards[k]) % 10, pt) for k in rest), Fraction(0)) / len(rest))
    return sum(draw, Fraction(0)) / len(draw), sum(stand, Fraction(0)) / len(stand)


@settings(max_examples=60, deadline=None)
@given(
    counts=unseen_counts(4, 10, most=3),
    total=st.integers(1, 7),
    slug=st.sampled_from(["casino", "club", "home"]),
)
def test_player_advice_matches_naive_enumeration(counts: tuple[int, ...], total: int, slug: str) -> None:
    tableau = Tableau.for_profile(BUILTIN[slug])
    single = slug == "home"
    if tableau.player_requirement(total, single_punter=single) is not Requirement.OPTION:
        total = 5  # the option every tableau has
    advice = advise_player(tableau, _hand(total), single_punter=single, unseen=counts)
    assert (advice.ev_draw, advice.ev_stand) == _naive_player(total, counts, _modelled_banker(slug))
    _check_choice(advice, PUNTO_BANCO.player[0][total])


@settings(max_examples=60, deadline=None)
@given(
    counts=unseen_counts(3, 10, most=3),
    total=st.integers(3, 7),
    third=st.one_of(st.none(), st.integers(0, 9)),
    levy_bp=st.sampled_from([0, 500]),
)
def test_banker_advice_matches_naive_enumeration(
    counts: tuple[int, ...], total: int, third: int | None, levy_bp: int
) -> None:
    tableau = Tableau.for_profile(CLUB)  # free at 5-7 whatever the player did
    total = max(total, 5)
    third_card = None if third is None else CARD[third]
    try:
        naive = _naive_banker(total, third, counts, levy_bp)
    except ZeroDivisionError:  # no hidden hand fits the convention: covered by the fallback test
        return
    advice = advise_banker(tableau, _hand(total), third_card, unseen=counts, levy_bp=levy_bp)
    assert (advice.ev_draw, advice.ev_stand) == naive
    _check_choice(advice, PUNTO_BANCO.banker[total][10 if third is None else third])


def _check_choice(advice: Advice, conventional: Requirement) -> None:
    """The advised option's expectation is never below the other; ties go to the convention."""
    chosen, other = (
        (advice.ev_draw, advice.ev_stand) if advice.choice is DRAW else (advice.ev_stand, advice.ev_draw)
    )
    assert chosen >= other
    if chosen == other:
        assert advice.choice is conventional
    assert -1 <= advice.ev_draw <= 1
    assert -1 <= advice.ev_stand <= 1


# ---------------------------------------------------------------------------------------------
# Properties on real shoes


@settings(max_examples=25, deadline=None)
@given(
    removed=st.lists(st.integers(0, 9), max_size=200),
    first=st.integers(0, 9),
    total=st.sampled_from([1, 2, 3, 4, 5, 6, 7]),
)
def test_player_advice_on_part_dealt_shoe(removed: list[int], first: int, total: int) -> None:
    counts = list(EIGHT_DECKS)
    for v in removed:
        if counts[v] > 0:
            counts[v] -= 1
    cards = _hand(total, first)
    assume(all(counts[CARD_POINTS[c]] > 0 for c in cards) and counts[CARD_POINTS[cards[0]]] > 1)
    unseen = _without(tuple(counts), *(CARD_POINTS[c] for c in cards))
    advice = advise_player(Tableau.for_profile(HOME), cards, single_punter=True, unseen=unseen)
    _check_choice(advice, PUNTO_BANCO.player[0][total])
    assert advice.basis == "shoe"


@pytest.mark.parametrize("total", [5])
@pytest.mark.parametrize("first", range(10))
def test_player_advice_depends_on_the_total_only(total: int, first: int) -> None:
    """The cards themselves are known, not unseen: only their total and ``unseen`` matter."""
    tableau = Tableau.for_profile(CASINO)
    reference = advise_player(tableau, _hand(total), single_punter=False, unseen=EIGHT_DECKS)
    assert advise_player(tableau, _hand(total, first), single_punter=False, unseen=EIGHT_DECKS) == reference


@pytest.mark.parametrize(
    ("profile", "total", "third", "expected"),
    [
        (CASINO, 3, 9, DRAW),
        (CASINO, 5, 4, DRAW),
        (HOME, 5, 4, DRAW),
        (CLUB, 6, None, DRAW),  # the player stood: he holds 6 or 7, standing on 6 cannot win
        (CLUB, 7, None, STAND),
        (CLUB, 5, None, DRAW),
        (CLUB, 6, 6, DRAW),  # hand T+6; a close call (-0.1479 against -0.1530)
        (CLUB, 6, 0, STAND),  # the player holds 0-5 after a ten: a sure win
        (CLUB, 7, 7, STAND),
    ],
)
def test_banker_advice_on_a_fresh_8_deck_shoe(
    profile: Profile, total: int, third: int | None, expected: Requirement
) -> None:
    seen = [total] if third is None else [total, third]
    unseen = _without(EIGHT_DECKS, 0, *seen)  # his hand is (0, total)
    advice = advise_banker(
        Tableau.for_profile(profile),
        _hand(total),
        None if third is None else CARD[third].replace("S", "H"),
        unseen=unseen,
        levy_bp=profile.tax_rate_bp,
    )
    assert advice.choice is expected
    assert advice.basis == "shoe"


@pytest.mark.parametrize(
    ("total", "expected"),
    [(1, DRAW), (2, DRAW), (3, DRAW), (4, DRAW), (5, DRAW), (6, STAND), (7, STAND)],
)
def test_home_single_punter_on_a_fresh_shoe(total: int, expected: Requirement) -> None:
    unseen = _without((96,) + (24,) * 9, 0, total)  # six decks, his hand (0, total)
    advice = advise_player(Tableau.for_profile(HOME), _hand(total), single_punter=True, unseen=unseen)
    assert advice.choice is expected


# ---------------------------------------------------------------------------------------------
# Ties, levy, errors


TENS_ONLY = (6, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def test_tie_goes_to_convention_player() -> None:
    """Nothing but tens unseen: the player's total cannot change, the banker holds 0 and draws to
    0. Drawing and standing are both a sure win, so the convention decides."""
    on_5 = advise_player(Tableau.for_profile(CASINO), _hand(5), single_punter=False, unseen=TENS_ONLY)
    assert on_5.ev_draw == on_5.ev_stand == 1
    assert on_5.choice is DRAW
    on_6 = advise_player(Tableau.for_profile(HOME), _hand(6), single_punter=True, unseen=TENS_ONLY)
    assert on_6.ev_draw == on_6.ev_stand == 1
    assert on_6.choice is STAND


def test_tie_goes_to_convention_banker() -> None:
    """Tens only: the player's hidden pair is 0, he drew a 9; the banker's 3 loses either way."""
    advice = advise_banker(Tableau.for_profile(CASINO), _hand(3), "9H", unseen=TENS_ONLY, levy_bp=500)
    assert advice.ev_draw == advice.ev_stand == -1
    assert advice.choice is DRAW  # Punto Banco draws at 3 against 9


def test_banker_falls_back_when_the_convention_is_refuted() -> None:
    """Unseen: three tens and two fives; the player stood. No hidden pair makes 6-7, so he must have
    used his option on 5 (T+5): the banker's 6 standing wins surely; drawing wins with a ten (2/3)
    and loses with the five (1/3)."""
    unseen = (3, 0, 0, 0, 0, 2, 0, 0, 0, 0)
    advice = advise_banker(Tableau.for_profile(CLUB), _hand(6), None, unseen=unseen)
    assert advice.ev_stand == 1
    assert advice.ev_draw == Fraction(1, 3)
    assert advice.choice is STAND


def test_banker_advice_with_no_consistent_hand_is_an_error() -> None:
    with pytest.raises(AdviceError, match="consistent"):
        advise_banker(Tableau.for_profile(CLUB), _hand(6), None, unseen=TENS_ONLY)


def test_levy_scales_banker_wins_only() -> None:
    tableau = Tableau.for_profile(CASINO)
    args = (tableau, _hand(3), "9H")
    unseen = _without(EIGHT_DECKS, 0, 3, 9)
    free = advise_banker(*args, unseen=unseen, levy_bp=0)
    taxed = advise_banker(*args, unseen=unseen, levy_bp=500)
    everything = advise_banker(*args, unseen=unseen, levy_bp=10_000)
    assert taxed.ev_draw < free.ev_draw
    assert everything.ev_draw <= 0 and everything.ev_stand <= 0
    # the player's expectation ignores the levy
    p_args = (tableau, _hand(5))
    assert advise_player(*p_args, single_punter=False, unseen=None, levy_bp=500) == advise_player(
        *p_args, single_punter=False, unseen=None
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda t: advise_player(t, ("4S", "4H"), single_punter=False, unseen=None), "natural"),
        (lambda t: advise_player(t, _hand(3), single_punter=False, unseen=None), "no option"),
        (lambda t: advise_player(t, _hand(6), single_punter=False, unseen=None), "no option"),
        (lambda t: advise_player(t, ("XX", "4H"), single_punter=False, unseen=None), "bad card"),
        (lambda t: advise_player(t, _hand(5), single_punter=False, unseen=(1, 2)), "ten non-negative"),
        (lambda t: advise_player(t, _hand(5), single_punter=False, unseen=(3,) + (0,) * 9), "cannot"),
        (lambda t: advise_banker(t, ("9S", "TH"), None, unseen=None), "natural"),
        (lambda t: advise_banker(t, _hand(4), "5H", unseen=None), "no option"),
        (lambda t: advise_banker(t, _hand(3), "ZZ", unseen=None), "bad card"),
        (lambda t: advise_banker(t, _hand(3), "9H", unseen=None, levy_bp=20_000), "levy_bp"),
    ],
)
def test_errors(call: Callable[[Tableau], Advice], message: str) -> None:
    with pytest.raises(AdviceError, match=message):
        call(Tableau.for_profile(CASINO))


def test_banco_free_play_opens_every_point() -> None:
    tableau = Tableau.for_profile(dataclasses.replace(CASINO, banco_free_play=True))
    with pytest.raises(AdviceError):
        advise_player(tableau, _hand(2), single_punter=False, unseen=None)
    on_2 = advise_player(tableau, _hand(2), single_punter=False, unseen=None, banco=True)
    assert on_2.choice is DRAW
    assert advise_banker(tableau, _hand(7), "7H", unseen=None, banco=True).choice is STAND


@pytest.mark.parametrize("profile", [CASINO, CLASSIC, CLUB, HOME])
def test_every_tableau_binds_the_player_as_punto_banco(profile: Profile) -> None:
    """Why the banker's advice needs no ``single_punter``: the modelled player is Punto Banco's."""
    assert player_policy(Tableau.for_profile(profile)) == tuple(t <= 5 for t in range(8))


def test_advice_is_frozen_and_carries_the_assumption() -> None:
    advice = advise_player(Tableau.for_profile(CASINO), _hand(5), single_punter=False, unseen=None)
    assert advice.assumption == ASSUMPTION
    assert "Punto Banco" in ASSUMPTION
    with pytest.raises(dataclasses.FrozenInstanceError):
        advice.choice = STAND  # type: ignore[misc]  # assigning to a frozen field is what is tested
    assert not hasattr(advice, "__dict__")
