"""What a cash move obliges the cage to do, from the policy's thresholds: pure arithmetic, no
database, so the thresholds' edges (one chip below, at, above) are tested exactly.

Values are compared in hundredths of the currency (chips times the value of one chip), thresholds
are whole units of the currency. The log and the report take what is *above* their threshold;
identification under the EU practice what is *at or above* it ("a transaction of 2,000 or more").
Cash in and cash out are never netted: the day's total is that of the move's own direction.
"""

from __future__ import annotations

from dataclasses import dataclass

CENTS = 100  # hundredths in a unit of the currency


@dataclass(frozen=True, slots=True)
class Thresholds:
    log: int | None  # a move worth more than this is logged (None: nothing is)
    report: int | None  # a day's total worth more than this opens a report and needs identification
    identification: int | None  # a move worth this or more needs identification
    chip_value_cents: int  # what one chip is worth, in hundredths of the currency


@dataclass(frozen=True, slots=True)
class Duties:
    log: bool  # write a log entry for this move
    report: bool  # the day's total in this direction is above the report threshold after it
    identification: bool  # the player must be identified before it
    value_cents: int  # what the move is worth
    day_total_after: int  # chips moved that gaming day in this direction, this move included
    day_total_value_cents: int  # what ``day_total_after`` is worth


def _above(value_cents: int, threshold: int | None) -> bool:
    return threshold is not None and value_cents > threshold * CENTS


def move_duties(*, thresholds: Thresholds, day_total_before: int, amount: int) -> Duties:
    """The duties of a move of ``amount`` chips after ``day_total_before`` chips moved the same way
    that gaming day."""
    value = amount * thresholds.chip_value_cents
    after = day_total_before + amount
    after_value = after * thresholds.chip_value_cents
    report = _above(after_value, thresholds.report)
    at_identification = thresholds.identification is not None and value >= thresholds.identification * CENTS
    return Duties(
        log=_above(value, thresholds.log),
        report=report,
        identification=report or at_identification,
        value_cents=value,
        day_total_after=after,
        day_total_value_cents=after_value,
    )
