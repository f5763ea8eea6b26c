"""A Monte Carlo run of an older game's odds, the same in every game: each game deals its own coups
and sums the banker's results; the run is their count, mean and standard error, checked against the
game's exact odds.

Pure Python, no Django, like every engine module.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt


@dataclass(frozen=True, slots=True)
class MonteCarlo:
    """``coups`` coups dealt: the banker's ``mean`` result per coup, in the unit the game's odds
    count in (Landsknecht: per chip at risk; old baccarat: per unit staked; Macao: in minimum
    stakes), and the ``stderr`` of that mean."""

    coups: int
    mean: float
    stderr: float

    @classmethod
    def of_sums(cls, coups: int, total: float, squares: float) -> MonteCarlo:
        """The run whose ``coups`` results sum to ``total`` and their squares to ``squares``: the
        sample mean and its standard error (the variance kept from going below zero by rounding)."""
        mean = total / coups
        var = max(squares / coups - mean * mean, 0.0)
        return cls(coups=coups, mean=mean, stderr=sqrt(var / coups))
