"""Exact odds: published Punto Banco figures, and independent naive enumerations.

The naive enumerations below deliberately share no code with ``chemin_de_fer.engine.odds`` or the tableau
module: the rules are re-typed from docs/rules.md, cards are dealt one at a time by a recursion that
asks "whose card is next?", and on synthetic shoes every *physical* card is told apart.
"""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.advice import advise_banker, advise_player
from chemin_de_fer.engine.odds import (
    Odds,
    expected_levy_at_rate,
    fresh_shoe,
    profile_odds,
    punto_banco_odds,
    shoe_odds,
)
from chemin_de_fer.engine.profiles import BUILTIN, CASINO, CLUB, NaturalTie
from chemin_de_fer.engine.tableau import Requirement, Tableau
from tests.chemin_de_fer.engine.strategies import unseen_counts

ROOT = Path(__file__).resolve().parents[3]

# ---------------------------------------------------------------------------------------------
# The published Punto Banco figures (e.g. Wizard of Odds, "Baccarat"), to six decimals.


@pytest.mark.parametrize(
    ("decks", "banker", "player", "tie"),
    [
        (8, "0.458597", "0.446247", "0.095156"),
        (6, "0.458653", "0.446279", "0.095069"),
    ],
)
def test_punto_banco_published_figures(decks: int, banker: str, player: str, tie: str) -> None:
    odds = punto_banco_odds(decks=decks)
    got = {"banker": odds.banker_win, "player": odds.player_win, "tie": odds.tie}
    want = {"banker": banker, "player": player, "tie": tie}
    for name, value in got.items():
        # exact rounding of the Fraction, both conventions agree on these figures
        assert round(value, 6) == Fraction(want[name]), name  # half-even
        assert Fraction(int(value * 10**6 + Fraction(1, 2)), 10**6) == Fraction(want[name]), name  # half-up
    assert odds.rounded()["banker_win"] == float(banker)


@pytest.mark.parametrize(("decks", "banker_edge", "player_edge"), [(8, "-0.010579", "-0.012351")])
def test_punto_banco_house_edges(decks: int, banker_edge: str, player_edge: str) -> None:
    """The well-known 1.06 % / 1.24 % edges: banker bet after 5 % commission, player bet."""
    odds = punto_banco_odds(decks=decks)
    assert round(odds.banker_ev_per_unit, 6) == Fraction(banker_edge)
    assert round(odds.banker_win - odds.player_win, 6) == -Fraction(player_edge)
    assert odds.expected_levy_per_unit == odds.banker_win * Fraction(5, 100)


ALL_CASES = [
    pytest.param(slug, decks, single, id=f"{slug}-{decks}-{'single' if single else 'several'}")
    for slug in BUILTIN
    for decks in (1, 6, 8, None)
    for single in (False, True)
]


@pytest.mark.parametrize(("slug", "decks", "single"), ALL_CASES)
def test_probabilities_sum_to_one_exactly(slug: str, decks: int | None, single: bool) -> None:
    odds = profile_odds(BUILTIN[slug], decks=decks, single_punter=single)
    assert odds.banker_win + odds.player_win + odds.tie == 1
    assert all(isinstance(x, Fraction) for x in (odds.banker_win, odds.player_win, odds.tie))
    rate = Fraction(odds.levy_bp, 10_000)
    assert odds.banker_ev_per_unit == odds.banker_win * (1 - rate) - odds.player_win
    assert odds.expected_levy_per_unit == odds.banker_win * rate


@pytest.mark.parametrize("decks", [1, 6, 8, None])
def test_punto_banco_sums_to_one(decks: int | None) -> None:
    odds = punto_banco_odds(decks=decks)
    assert odds.banker_win + odds.player_win + odds.tie == 1


def test_levy_only_for_percentage_profiles() -> None:
    assert profile_odds(CASINO, decks=8).levy_bp == 500
    for slug in ("classic", "club", "home"):
        odds = profile_odds(BUILTIN[slug], decks=8)
        assert odds.levy_bp == 0
        assert odds.expected_levy_per_unit == 0
        assert odds.banker_ev_per_unit == odds.banker_win - odds.player_win


def test_casino_on_a_fresh_8_deck_shoe_plays_like_punto_banco() -> None:
    """Measured fact: on a fresh 8-deck shoe every option the advice resolves (player on 5, banker
    3-vs-9 and 5-vs-4) comes out as Punto Banco's fixed choice, so the odds coincide exactly."""
    assert _triple(profile_odds(CASINO, decks=8)) == _triple(punto_banco_odds(decks=8))


def test_club_natural_standoff_infinite_deck() -> None:
    """Club: two naturals stand off. On an infinite deck the hands are independent, so the extra
    ties are exactly P(8 vs 9) + P(9 vs 8); the advice does not depend on naturals."""
    p8 = Fraction(sum(1 for a in range(13) for b in range(13) if (_pt(a) + _pt(b)) % 10 == 8), 169)
    p9 = Fraction(sum(1 for a in range(13) for b in range(13) if (_pt(a) + _pt(b)) % 10 == 9), 169)
    club = profile_odds(CLUB, decks=None)
    higher = profile_odds(dataclasses.replace(CLUB, natural_tie=NaturalTie.HIGHER_WINS), decks=None)
    assert club.tie - higher.tie == 2 * p8 * p9
    assert higher.banker_win - club.banker_win == p8 * p9
    assert higher.player_win - club.player_win == p8 * p9


def test_odds_views() -> None:
    odds = punto_banco_odds(decks=8)
    assert isinstance(odds, Odds)
    assert odds.basis == "8 decks exact"
    assert punto_banco_odds(decks=None).basis == "infinite deck"
    assert odds.banker_win_float == pytest.approx(0.458597, abs=5e-7)
    assert set(odds.exact()) == set(odds.rounded())
    assert Fraction(odds.exact()["tie"]) == odds.tie


def test_bad_shoes() -> None:
    with pytest.raises(ValueError, match="at least one deck"):
        profile_odds(CASINO, decks=0)
    with pytest.raises(ValueError, match="six cards"):
        shoe_odds((5, 0, 0, 0, 0, 0, 0, 0, 0, 0), None)


# ---------------------------------------------------------------------------------------------
# Naive Punto Banco, typed again from the rules: one card at a time.


def _pt(rank_index: int) -> int:
    """Rank index 0..12 (A..K) to points."""
    return rank_index + 1 if rank_index < 9 else 0


def _pb_banker_draws(banker: int, third: int | None) -> bool:
    if third is None:
        return banker <= 5
    return {
        0: True,
        1: True,
        2: True,
        3: third != 8,
        4: 2 <= third <= 7,
        5: 4 <= third <= 7,
        6: 6 <= third <= 7,
        7: False,
    }[banker]


def _pb_next(cards: tuple[int, ...]) -> str:
    """Given the point values dealt so far (P1 B1 P2 B2 P3? B3?), who gets the next card:
    "P", "B", or "end"? Knows nothing about probabilities."""
    if len(cards) < 4:
        return "PB"[len(cards) % 2]
    p = (cards[0] + cards[2]) % 10
    b = (cards[1] + cards[3]) % 10
    if p >= 8 or b >= 8:
        return "end"
    if len(cards) == 4:
        return "P" if p <= 5 else ("B" if b <= 5 else "end")
    if len(cards) == 5:
        player_drew = p <= 5
        third = cards[4] if player_drew else None
        return "B" if player_drew and _pb_banker_draws(b, third) else "end"
    return "end"


def _pb_winner(cards: tuple[int, ...]) -> str:
    p_cards = [cards[0], cards[2]]
    b_cards = [cards[1], cards[3]]
    p = (cards[0] + cards[2]) % 10
    if len(cards) >= 5:
        if p <= 5:
            p_cards.append(cards[4])
            if len(cards) == 6:
                b_cards.append(cards[5])
        else:
            b_cards.append(cards[4])
    pt, bt = sum(p_cards) % 10, sum(b_cards) % 10
    return "player" if pt > bt else "banker" if bt > pt else "tie"


def _naive_value_enumeration(counts: tuple[int, ...] | None) -> dict[str, Fraction]:
    """Recursive over card values; ``counts=None`` is the infinite deck (13 ranks, i.i.d.)."""
    totals = {"banker": Fraction(0), "player": Fraction(0), "tie": Fraction(0)}
    weights = [4, 1, 1, 1, 1, 1, 1, 1, 1, 1] if counts is None else list(counts)

    def deal(cards: tuple[int, ...], weight: int, denominator: int) -> None:
        if _pb_next(cards) == "end":
            totals[_pb_winner(cards)] += Fraction(weight, denominator)
            return
        pool = 13 if counts is None else sum(weights)
        for value in range(10):
            if weights[value]:
                w = weights[value]
                if counts is not None:
                    weights[value] -= 1
                deal((*cards, value), weight * w, denominator * pool)
                if counts is not None:
                    weights[value] += 1

    deal((), 1, 1)
    return totals


def test_infinite_deck_punto_banco_matches_naive_enumeration() -> None:
    naive = _naive_value_enumeration(None)
    odds = punto_banco_odds(decks=None)
    assert (odds.banker_win, odds.player_win, odds.tie) == (naive["banker"], naive["player"], naive["tie"])
    assert sum(naive.values()) == 1


@pytest.mark.parametrize(
    "counts",
    [
        (3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
        (2, 0, 1, 0, 2, 1, 0, 1, 1, 1),
        (0, 2, 2, 2, 0, 0, 1, 0, 0, 1),
    ],
)
def test_small_finite_shoes_match_naive_value_enumeration(counts: tuple[int, ...]) -> None:
    naive = _naive_value_enumeration(counts)
    odds = shoe_odds(counts, None)
    assert (odds.banker_win, odds.player_win, odds.tie) == (naive["banker"], naive["player"], naive["tie"])


# ---------------------------------------------------------------------------------------------
# Naive chemin de fer on a synthetic shoe of a few physical cards, options resolved by calling the
# *public* advice with what the chooser can see -- the plumbing of the information is what's tested.


def _codes(counts: tuple[int, ...]) -> list[str]:
    """Distinct physical cards with the given point counts (tens cycle through T, J, Q, K)."""
    ranks_by_point = {0: "TJQK", **{p: "A23456789"[p - 1] for p in range(1, 10)}}
    cards = []
    for point, count in enumerate(counts):
        for i in range(count):
            ranks = ranks_by_point[point]
            rank = ranks[i % len(ranks)]
            suit = "SHDC"[(i // len(ranks)) % 4]
            cards.append(rank + suit)
    assert len(set(cards)) == len(cards), "a synthetic shoe needs distinct cards"
    return cards


def _naive_chemin_de_fer(counts: tuple[int, ...], slug: str, single: bool) -> dict[str, Fraction]:
    profile = BUILTIN[slug]
    tableau = Tableau.for_profile(profile)
    levy = profile.tax_rate_bp if profile.levy_mode.value == "percentage" else 0
    shoe = _codes(counts)
    points = {c: (0 if c[0] in "TJQK" else "A23456789".index(c[0]) + 1) for c in shoe}
    standoff_naturals = profile.natural_tie is NaturalTie.STANDOFF
    totals = {"banker": Fraction(0), "player": Fraction(0), "tie": Fraction(0)}

    def unseen(excluded: list[str]) -> tuple[int, ...]:
        left = [0] * 10
        for c in shoe:
            if c not in excluded:
                left[points[c]] += 1
        return tuple(left)

    @cache
    def player_choice(p_cards: tuple[str, str]) -> bool:
        total = (points[p_cards[0]] + points[p_cards[1]]) % 10
        req = tableau.player_requirement(total, single_punter=single)
        if req is Requirement.OPTION:
            advice = advise_player(tableau, p_cards, single_punter=single, unseen=unseen(list(p_cards)))
            return advice.choice is Requirement.DRAW
        return req is Requirement.DRAW

    @cache
    def banker_choice(b_cards: tuple[str, str], third: str | None) -> bool:
        total = (points[b_cards[0]] + points[b_cards[1]]) % 10
        req = tableau.banker_requirement(total, None if third is None else points[third])
        if req is Requirement.OPTION:
            seen = [*b_cards] + ([] if third is None else [third])
            advice = advise_banker(tableau, b_cards, third, unseen=unseen(seen), levy_bp=levy)
            return advice.choice is Requirement.DRAW
        return req is Requirement.DRAW

    def finish(p: list[str], b: list[str], probability: Fraction) -> None:
        pt = sum(points[c] for c in p) % 10
        bt = sum(points[c] for c in b) % 10
        totals["player" if pt > bt else "banker" if bt > pt else "tie"] += probability

    n = len(shoe)
    for i1, c1 in enumerate(shoe):
        for i2, c2 in enumerate(shoe):
            for i3, c3 in enumerate(shoe):
                for i4, c4 in enumerate(shoe):
                    if len({i1, i2, i3, i4}) < 4:
                        continue
                    prob = Fraction(1, n * (n - 1) * (n - 2) * (n - 3))
                    p, b = [c1, c3], [c2, c4]
                    rest = [c for i, c in enumerate(shoe) if i not in (i1, i2, i3, i4)]
                    pt = (points[c1] + points[c3]) % 10
                    bt = (points[c2] + points[c4]) % 10
                    if pt >= 8 or bt >= 8:
                        if pt >= 8 and bt >= 8 and standoff_naturals:
                            totals["tie"] += prob
                        else:
                            finish(p, b, prob)
                        continue
                    if player_choice(tuple(sorted(p))):
                        for k, c5 in enumerate(rest):
                            p5 = prob / len(rest)
                            if banker_choice(tuple(sorted(b)), c5):
                                rest6 = rest[:k] + rest[k + 1 :]
                                for c6 in rest6:
                                    finish([*p, c5], [*b, c6], p5 / len(rest6))
                            else:
                                finish([*p, c5], b, p5)
                    elif banker_choice(tuple(sorted(b)), None):
                        for c5 in rest:
                            finish(p, [*b, c5], prob / len(rest))
                    else:
                        finish(p, b, prob)
    return totals


@pytest.mark.parametrize(
    ("slug", "single"),
    [("casino", False), ("classic", False), ("club", False), ("home", True)],
)
@pytest.mark.parametrize(
    "counts",
    [
        (2, 1, 0, 1, 1, 1, 0, 1, 0, 1),  # 8 cards
        (1, 0, 1, 2, 0, 1, 1, 0, 1, 0),  # 7 cards
    ],
)
def test_synthetic_shoe_with_advice_matches_naive_physical_enumeration(
    counts: tuple[int, ...], slug: str, single: bool
) -> None:
    naive = _naive_chemin_de_fer(counts, slug, single)
    odds = shoe_odds(counts, BUILTIN[slug], single_punter=single)
    assert sum(naive.values()) == 1
    assert (odds.banker_win, odds.player_win, odds.tie) == (naive["banker"], naive["player"], naive["tie"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    counts=unseen_counts(6, 7, most=2),
    slug=st.sampled_from(["casino", "club", "home"]),
)
def test_random_tiny_shoes_match_naive_physical_enumeration(counts: tuple[int, ...], slug: str) -> None:
    single = slug == "home"
    naive = _naive_chemin_de_fer(counts, slug, single)
    odds = shoe_odds(counts, BUILTIN[slug], single_punter=single)
    assert (odds.banker_win, odds.player_win, odds.tie) == (naive["banker"], naive["player"], naive["tie"])


# ---------------------------------------------------------------------------------------------
# Purity: the modules created for the odds import nothing from Django.

MODULES = ["chemin_de_fer/engine/advice.py", "chemin_de_fer/engine/odds.py"]


@pytest.mark.parametrize("path", MODULES)
def test_module_imports_nothing_from_django(path: str) -> None:
    tree = ast.parse((ROOT / path).read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    assert not any(name.split(".")[0] == "django" for name in imported)


def test_importing_the_modules_loads_no_django() -> None:
    code = (
        "import sys, chemin_de_fer.engine.advice, chemin_de_fer.engine.odds; print('django' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _triple(odds: Odds) -> tuple[Fraction, Fraction, Fraction]:
    return odds.banker_win, odds.player_win, odds.tie


def test_fresh_shoe_counts() -> None:
    assert fresh_shoe(8) == (128,) + (32,) * 9
    assert sum(fresh_shoe(1)) == 52


@pytest.mark.parametrize("decks", [1, 2, 6, 8, None])
def test_advised_casino_bank_never_worse_than_punto_banco(decks: int | None) -> None:
    """On these shoes the advised casino player plays exactly Punto Banco's rule, so the banker's
    model of him is right and choosing the better expectation at each of his options can only help
    the bank: its expectation is at least Punto Banco's banker-bet figure (same 5 % levy)."""
    casino = profile_odds(CASINO, decks=decks)
    assert casino.banker_ev_per_unit >= punto_banco_odds(decks=decks).banker_ev_per_unit


def test_the_expected_levy_is_computed_once_per_profile_and_deck_count(monkeypatch) -> None:
    calls = []
    real = profile_odds

    def counting(profile, *, decks):
        calls.append((profile.slug, decks))
        return real(profile, decks=decks)

    expected_levy_at_rate.cache_clear()
    monkeypatch.setattr("chemin_de_fer.engine.odds.profile_odds", counting)
    first = expected_levy_at_rate(CASINO, 8, 500)
    assert expected_levy_at_rate(CASINO, 8, 500) == first
    assert expected_levy_at_rate(CASINO, 8, 0) == 0  # no percentage levy: nothing to compute
    assert calls == [("casino", 8)]
    expected_levy_at_rate.cache_clear()
