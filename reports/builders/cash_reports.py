"""The reports to file (compliance, docs/compliance.md): one line per report of a player, gaming
day and direction whose day's total went above the report threshold, with whether it is filed, by
whom and when. The figures are the rows' own, as compliance's page shows them.

- ``total``: the player's chips that gaming day in that direction (every buy-in, or cash-out, at
  the cage, logged or not), brought up to date by each move until the report was filed: an open
  report's is the day's total so far, a filed one's the total it was filed with; ``value``: what
  they are worth at the casino's chip value.
- A day may have more than one report for a player and direction: cash after one is filed opens a
  supplementary report, whose total is the day's whole total again (the later line, ``opened_at``).
"""

from __future__ import annotations

from collections.abc import Iterator

from compliance.models import CashReport, Direction
from compliance.selectors import cash_reports
from reports.builders import Scope, in_english
from reports.builders.cash_log import DIRECTION_LABELS, money, policy_report
from reports.columns import DIRECTION, GAMING_DAY, PLAYER, PLAYER_ID, TRANSACTION_ID, VALUE
from reports.model import Column, ColumnType, Line, LineKind, Report, as_local

COLUMNS = (
    GAMING_DAY,
    PLAYER_ID,
    PLAYER,
    DIRECTION,
    Column("total", "Day's total", ColumnType.INT, 0.9),
    VALUE,
    Column("opened_at", "Opened", ColumnType.DATETIME, 1.5),
    Column("status", "Status", ColumnType.TEXT, 0.7),
    Column("filed_by", "Filed by", ColumnType.TEXT, 1.0),
    Column("filed_at", "Filed", ColumnType.DATETIME, 1.5),
    TRANSACTION_ID,
)


NOTE = (
    "A report's total is the player's day's total in its direction, up to date until it is filed; cash "
    "that day after a report is filed opens a supplementary report with the day's whole total. Cash in "
    "and cash out are never netted."
)


@in_english
def cash_reports_report(scope: Scope) -> Report:
    title = "Cash-transaction reports to file"
    return policy_report(scope, title=title, columns=COLUMNS, rows=cash_reports, lines=_lines, note=NOTE)


def _lines(scope: Scope, reports: Iterator[CashReport], currency: str) -> Iterator[Line]:
    counts = {CashReport.Status.OPEN: 0, CashReport.Status.FILED: 0}
    for r in reports:
        counts[CashReport.Status(r.status)] += 1
        yield Line(
            (r.gaming_day, r.player_id, r.player.display_name, DIRECTION_LABELS[Direction(r.direction)],
             r.total, money(r.total_value_cents, currency), as_local(r.opened_at, scope.tz), r.status,
             r.filed_by.get_username() if r.filed_by is not None else "", as_local(r.filed_at, scope.tz),
             r.transaction_id)
        )  # fmt: skip
    for status, count in counts.items():
        yield Line(
            ("period", None, f"{count} report(s)", None, None, None, None, status, None, None, None),
            LineKind.TOTAL,
        )
