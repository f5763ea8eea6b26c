"""The pure money-flow detector (tables/flows.py, docs/flows.md): the flow matrix, the honest
spread of the expectation given up, a banker's discrimination, the thresholds."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.flows import (
    Choice,
    Discrimination,
    Duel,
    Limits,
    banker_discrimination,
    collusion_findings,
    flow_matrix,
    given_up_spread,
    pair_flows,
)

D1, D2 = dt.date(2026, 3, 1), dt.date(2026, 3, 2)


def test_the_matrix_says_who_won_what_from_whom_per_day() -> None:
    duels = [
        Duel(1, D1, banker=1, punter=2, punter_net=-100),  # 1 wins 100 from 2
        Duel(1, D1, banker=1, punter=3, punter_net=-40),
        Duel(2, D1, banker=1, punter=2, punter_net=30),  # 2 wins back 30
        Duel(3, D2, banker=2, punter=1, punter_net=-5),
    ]
    assert flow_matrix(duels) == {
        D1: {(2, 1): -70, (1, 2): 70, (3, 1): -40, (1, 3): 40},
        D2: {(1, 2): -5, (2, 1): 5},
    }
    assert pair_flows(duels) == {(1, 2): 65, (1, 3): 40}


M = Fraction(1, 50)


def _points(n: int, wrong: int, *, stake: int = 100, margin: Fraction = M) -> list[Choice]:
    return [
        Choice(
            i, chooser=2, opponent=1, side="player", stake=stake, margin=margin, given_up=margin * (i < wrong)
        )
        for i in range(n)
    ]


def test_the_honest_spread_of_the_expectation_given_up() -> None:
    spread = given_up_spread(_points(10, 10))
    # ten points of 2 chips each at stake: all given up (20), honest 1/10 of it (2), variance
    # 10 * 0.1 * 0.9 * 2 ** 2 = 3.6
    assert (spread.points, spread.wrong) == (10, 10)
    assert (spread.given_up, spread.mean, spread.variance) == (20, 2, Fraction(18, 5))
    assert spread.z == pytest.approx(18 / 3.6**0.5)
    # a point of no margin says nothing: left out
    assert given_up_spread([*_points(3, 0), *_points(2, 2, margin=Fraction(0))]).points == 3


@pytest.mark.parametrize(
    ("n", "wrong", "flagged"),
    [
        (4, 4, False),  # too few points, however wrong
        (5, 3, False),  # z = (6 - 1) / sqrt(1.8) = 3.73
        (5, 4, True),  # z = (8 - 1) / sqrt(1.8) = 5.22
        (40, 8, False),  # z = (16 - 8) / sqrt(14.4) = 2.11
        (40, 12, True),  # z = (24 - 8) / sqrt(14.4) = 4.22
        (40, 0, False),  # the advice followed every time: below the honest mean
    ],
)
def test_the_expectation_test_at_four_deviations(n: int, wrong: int, flagged: bool) -> None:
    assert given_up_spread(_points(n, wrong)).beyond(Fraction(4), 5) is flagged


def _banker_points(facing: tuple[int, int], others: tuple[int, int]) -> list[Choice]:
    """The banker (1)'s points: ``facing`` (points, wrong) in coups where 2 bet, ``others`` elsewhere."""
    found = []
    for i in range(facing[0]):
        for punter in (2, 3):
            found.append(Choice(i, 1, punter, "banker", 50, M, M * (i < facing[1])))
    for i in range(others[0]):
        found.append(Choice(1000 + i, 1, 3, "banker", 50, M, M * (i < others[1])))
    return found


@pytest.mark.parametrize(
    ("facing", "others", "expected", "flagged"),
    [
        ((10, 9), (30, 0), Discrimination(10, 9, 30, 0), True),
        ((10, 1), (30, 3), Discrimination(10, 1, 30, 3), False),
        ((4, 4), (30, 0), Discrimination(4, 4, 30, 0), False),  # too few facing him
    ],
)
def test_a_banker_who_plays_otherwise_against_one_punter(
    facing: tuple[int, int], others: tuple[int, int], expected: Discrimination, flagged: bool
) -> None:
    found = banker_discrimination(_banker_points(facing, others), banker=1, punter=2)
    assert found == expected
    assert found.beyond(Fraction(4), 5) is flagged


def _pair_night(flow: int) -> tuple[list[Duel], list[Choice]]:
    """2 loses ``flow`` chips to 1's bank in ten coups, giving up the expectation at each."""
    duels = [Duel(i, D1, banker=1, punter=2, punter_net=-(flow // 10) - (i < flow % 10)) for i in range(10)]
    return duels, _points(10, 10)


@pytest.mark.parametrize(("flow", "flagged"), [(9_999, False), (10_000, False), (10_001, True)])
def test_the_flow_threshold_one_chip_below_at_and_above(flow: int, flagged: bool) -> None:
    duels, choices = _pair_night(flow)
    assert sum(d.punter_net for d in duels) == -flow
    found = collusion_findings(duels, choices, Limits(flow=10_000))
    assert [(f.winner, f.loser, f.flow, f.reasons) for f in found] == (
        [(1, 2, flow, ("given_up",))] if flagged else []
    )


def test_a_big_flow_from_honest_play_is_not_flagged() -> None:
    duels, _ = _pair_night(50_000)
    assert collusion_findings(duels, _points(10, 1), Limits(flow=10_000)) == []


duel = st.builds(
    Duel,
    coup_id=st.integers(1, 50),
    day=st.sampled_from([D1, D2]),
    banker=st.integers(1, 5),
    punter=st.integers(1, 5),
    punter_net=st.integers(-1_000, 1_000),
).filter(lambda d: d.banker != d.punter)


@settings(max_examples=200, deadline=None)
@given(st.lists(duel, max_size=40))
def test_the_matrix_is_antisymmetric_and_sums_to_the_settlements(duels: list[Duel]) -> None:
    matrix = flow_matrix(duels)
    settled: dict[tuple[dt.date, int], int] = defaultdict(int)
    for d in duels:
        settled[(d.day, d.punter)] += d.punter_net
        settled[(d.day, d.banker)] -= d.punter_net
    for day, won in matrix.items():
        for (a, b), chips in won.items():
            assert won[(b, a)] == -chips
        row: dict[int, int] = defaultdict(int)
        for (a, _), chips in won.items():
            row[a] += chips
        assert {p: c for p, c in row.items()} == {p: c for (d, p), c in settled.items() if d == day}
    flows = pair_flows(duels)
    assert all(chips > 0 for chips in flows.values())
    assert not any((b, a) in flows for (a, b) in flows)
