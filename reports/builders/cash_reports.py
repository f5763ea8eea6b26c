"""The reports to file (compliance, docs/compliance.md): one line per player, gaming day and
direction whose day's total went above the report threshold, with whether it is filed, by whom
and when.

- ``total``: the day's chips in that direction when the threshold was crossed (the move that
  crossed it included); ``value``: what they are worth at the casino's chip value.
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


NOTE = "One report per player, gaming day and direction; cash in and cash out are never netted."


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
