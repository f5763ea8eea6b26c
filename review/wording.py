"""What only the pit boss's pages say: shares as percentages. The game's own wording (violation
codes, steps, refusals) is tables.wording, shared with the croupier's screens."""

from __future__ import annotations

from fractions import Fraction


def percent(value: Fraction | None, digits: int = 2) -> str:
    """A share as a percentage for the screen ("4.56 %"); "—" when undefined."""
    return "—" if value is None else f"{float(value) * 100:.{digits}f} %"
