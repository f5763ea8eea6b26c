"""Money passed between players (docs/flows.md): who won how much from whom, and whether a pair's
one-way flow looks arranged. Pure Python, no Django: the facts are plain dataclasses, read by
``review.selectors.flows`` from the settlements and the coups' steps, or made by a simulation.

Chemin de fer's players bank against each other: in each coup the banker faces every punter who
bet, and the settlement moves each punter's stake one way or the other (a ``Duel``). Summed, the
duels give a day's **flow matrix**, ``won[(a, b)]``: the chips ``a`` won from ``b``, net, so that
``won[(a, b)] == -won[(b, a)]``. Flows are gross of the levy (the levy is the house's, taken from
the banker's winnings as a whole, not from one punter).

A pair is **flagged** when, over a period, one side's net flow to the other exceeds the casino's
threshold **and** the losing side's play explains it beyond chance, by either test:

* **expectation given up** — at every option point the loser had while facing the winner, the
  engine's exact advice prices drawing and standing; the loser gave up ``margin`` (per chip)
  when he took the worse choice, 0 otherwise. ``G = sum(stake * given_up)`` in chips, ``stake``
  being the chips between the two in that coup. The **honest model**: a player who means no harm
  takes the worse choice at a point independently with probability ``slip`` (default 1/10: he
  plays the convention, misjudges, is tired), so ``G`` has mean ``slip * sum(stake * margin)`` and
  variance ``slip * (1 - slip) * sum((stake * margin) ** 2)``. Flagged when
  ``G - mean > z * sqrt(variance)`` (compared exactly, squared, in fractions), with at least
  ``min_points`` priced points of non-zero margin (one or two points say nothing);
* **a banker who plays differently against one punter** — his share of worse choices at option
  points in coups where the winner bet, against his share in coups where he did not: a
  two-proportion z-test, flagged above the same ``z``, with at least ``min_points`` on each side.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

#: the honest model's chance of taking the worse choice at an option point
HONEST_SLIP = Fraction(1, 10)
#: how many priced option points (of non-zero margin) a test needs before it may flag
MIN_POINTS = 5

Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Duel:
    """One punter's settlement against the bank in one coup: ``punter_net`` is what it moved to
    the punter (negative: he lost it to the banker)."""

    coup_id: int
    day: dt.date
    banker: int
    punter: int
    punter_net: int


@dataclass(frozen=True, slots=True)
class Choice:
    """One option point of ``chooser`` while facing ``opponent`` (the banker, for the punter who
    played the hand; each punter who bet, for the banker): ``stake`` the chips between the two in
    that coup, ``margin`` and ``given_up`` per chip (``chemin_de_fer.engine.choices``)."""

    coup_id: int
    chooser: int
    opponent: int
    side: Literal["player", "banker"]
    stake: int
    margin: Fraction
    given_up: Fraction

    @property
    def wrong(self) -> bool:
        return self.given_up > 0


def pair_nets(moves: Iterable[tuple[int, int, int]]) -> dict[Pair, int]:
    """``won[(a, b)]`` from ``(banker, punter, chips moved to the punter)`` moves: the chips ``a``
    won from ``b``, net, both directions kept (antisymmetric)."""
    won: dict[Pair, int] = defaultdict(int)
    for banker, punter, punter_net in moves:
        won[(punter, banker)] += punter_net
        won[(banker, punter)] -= punter_net
    return dict(won)


def one_way(won: dict[Pair, int]) -> dict[Pair, int]:
    """Each pair of ``won`` once, as ``(winner, loser): chips > 0``, in pair order."""
    return {pair: chips for pair, chips in sorted(won.items()) if chips > 0}


def flow_matrix(duels: Iterable[Duel]) -> dict[dt.date, dict[Pair, int]]:
    """Per gaming day, ``won[(a, b)]``: the chips ``a`` won from ``b`` net (both directions kept,
    antisymmetric; a pair whose duels cancel out stays, at 0)."""
    days: dict[dt.date, list[Duel]] = defaultdict(list)
    for d in duels:
        days[d.day].append(d)
    return {
        day: pair_nets((d.banker, d.punter, d.punter_net) for d in on_day)
        for day, on_day in sorted(days.items())
    }


def pair_flows(duels: Iterable[Duel]) -> dict[Pair, int]:
    """Over every day of ``duels``: each pair's net flow, once, as ``(winner, loser): chips > 0``."""
    return one_way(pair_nets((d.banker, d.punter, d.punter_net) for d in duels))


@dataclass(frozen=True, slots=True)
class Spread:
    """The expectation a loser gave up facing one opponent (chips), beside the honest model's."""

    points: int  # priced option points of non-zero margin
    wrong: int  # of which he took the worse choice
    given_up: Fraction
    mean: Fraction
    variance: Fraction

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def z(self) -> float | None:
        """How many honest standard deviations ``given_up`` lies above the honest mean."""
        return None if not self.variance else float(self.given_up - self.mean) / self.sd

    def beyond(self, z: Fraction, min_points: int) -> bool:
        """``given_up - mean > z * sd``, exactly (both sides squared, the left positive)."""
        excess = self.given_up - self.mean
        return self.points >= min_points and excess > 0 and excess * excess > z * z * self.variance


def given_up_spread(choices: Iterable[Choice], *, slip: Fraction = HONEST_SLIP) -> Spread:
    """The honest model's mean and variance of the chips given up at these points, and what was."""
    points = wrong = 0
    given_up = mean = variance = Fraction(0)
    for c in choices:
        if not c.margin:
            continue
        at_stake = c.stake * c.margin
        points += 1
        wrong += c.wrong
        given_up += c.stake * c.given_up
        mean += slip * at_stake
        variance += slip * (1 - slip) * at_stake * at_stake
    return Spread(points=points, wrong=wrong, given_up=given_up, mean=mean, variance=variance)


@dataclass(frozen=True, slots=True)
class Discrimination:
    """A banker's worse choices in coups where one punter bet, and in the others."""

    facing: int
    wrong_facing: int
    others: int
    wrong_others: int

    @property
    def z(self) -> float | None:
        """The two-proportion z statistic (None when either side is empty or nothing varies)."""
        n1, n2 = self.facing, self.others
        if not n1 or not n2:
            return None
        pooled = Fraction(self.wrong_facing + self.wrong_others, n1 + n2)
        var = pooled * (1 - pooled) * (Fraction(1, n1) + Fraction(1, n2))
        if not var:
            return None
        return float(Fraction(self.wrong_facing, n1) - Fraction(self.wrong_others, n2)) / math.sqrt(var)

    def beyond(self, z: Fraction, min_points: int) -> bool:
        found = self.z
        return self.facing >= min_points and self.others >= min_points and found is not None and found > z


def banker_discrimination(choices: Iterable[Choice], *, banker: int, punter: int) -> Discrimination:
    """``banker``'s option points (of non-zero margin) in the coups ``punter`` bet in, and in the rest."""
    by_coup: dict[int, bool] = {}  # one option point a coup at most: whether he took the worse
    facing: set[int] = set()
    for c in choices:
        if c.chooser != banker or c.side != "banker" or not c.margin:
            continue
        by_coup[c.coup_id] = c.wrong
        if c.opponent == punter:
            facing.add(c.coup_id)
    n1 = w1 = n2 = w2 = 0
    for coup_id, wrong in by_coup.items():
        if coup_id in facing:
            n1, w1 = n1 + 1, w1 + wrong
        else:
            n2, w2 = n2 + 1, w2 + wrong
    return Discrimination(facing=n1, wrong_facing=w1, others=n2, wrong_others=w2)


@dataclass(frozen=True, slots=True)
class Limits:
    """A casino's thresholds (``review.AlertSettings``): a flow strictly above ``flow`` chips, a
    statistic strictly above ``z``."""

    flow: int
    z: Fraction = Fraction(4)
    min_points: int = MIN_POINTS
    slip: Fraction = HONEST_SLIP


@dataclass(frozen=True, slots=True)
class Finding:
    """A pair flagged: ``loser``'s net ``flow`` to ``winner`` over the period, the coups they met
    in, the loser's expectation given up facing the winner, and (when the loser banked) how his
    choices depended on the winner's presence."""

    winner: int
    loser: int
    flow: int
    coups: tuple[int, ...]
    spread: Spread
    discrimination: Discrimination
    reasons: tuple[str, ...] = field(default=())


def pair_evidence(
    duels: Iterable[Duel], choices: Iterable[Choice], *, winner: int, loser: int, slip: Fraction = HONEST_SLIP
) -> tuple[tuple[int, ...], Spread, Discrimination]:
    """The coups the pair met in, the loser's spread facing the winner, the loser's discrimination."""
    coups = sorted({d.coup_id for d in duels if {d.banker, d.punter} == {winner, loser}})
    listed = list(choices)
    facing = [c for c in listed if c.chooser == loser and c.opponent == winner]
    return (
        tuple(coups),
        given_up_spread(facing, slip=slip),
        banker_discrimination(listed, banker=loser, punter=winner),
    )


def collusion_findings(duels: Iterable[Duel], choices: Iterable[Choice], limits: Limits) -> list[Finding]:
    """Every pair whose one-way flow exceeds ``limits.flow`` and whose loser's play explains it
    beyond chance (the module's two tests), the largest flow first."""
    duels, choices = list(duels), list(choices)
    found = []
    for (winner, loser), flow in pair_flows(duels).items():
        if flow <= limits.flow:
            continue
        coups, spread, discrimination = pair_evidence(
            duels, choices, winner=winner, loser=loser, slip=limits.slip
        )
        reasons = tuple(
            name
            for name, hit in (
                ("given_up", spread.beyond(limits.z, limits.min_points)),
                ("discrimination", discrimination.beyond(limits.z, limits.min_points)),
            )
            if hit
        )
        if reasons:
            found.append(Finding(winner, loser, flow, coups, spread, discrimination, reasons))
    return sorted(found, key=lambda f: (-f.flow, f.winner, f.loser))
