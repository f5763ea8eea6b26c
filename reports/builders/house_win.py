"""The house-win report: what the house earned at each table, per gaming day and croupier shift —
the levy, the hourly fees and the card money — with a total per day and for the period.

**Attribution.** Each amount has an instant: a levy the coup's settlement (``Coup.settled_at``), an
hourly fee the start of the hour it bills, card money its posting. It belongs to the gaming day of
that instant and to the croupier assigned to the table at that instant (``CroupierAssignment``
with ``shift_start <= instant < shift_end``); where shifts overlap (a relief), to the one that
started last; where nobody was assigned, to no croupier (an empty croupier and shift). A shared
table-hour fee counts whole (what the fee account received), at its table.

A house-banked table's own wins and losses are not the house's *win* in this sense (they are its
stake at the table) and are not counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model

from reports.builders import Scope, gaming_day_sql, in_english, instant_read, rows_all, timed_report
from reports.builders.levy import levy_awaiting_approval
from reports.columns import COUPS, GAMING_DAY, LEVY, TABLE, TABLE_ID
from reports.model import Column, ColumnType, Line, LineKind, Report, as_local
from tables.gaming_day import sql_date

COLUMNS = (
    GAMING_DAY,
    TABLE_ID,
    TABLE,
    Column("croupier", "Croupier", ColumnType.TEXT, 1.2),
    Column("shift_start", "Shift start", ColumnType.DATETIME, 1.5),
    Column("shift_end", "Shift end", ColumnType.DATETIME, 1.5),
    COUPS,
    LEVY,
    Column("hourly_fees", "Hourly fees", ColumnType.INT, 0.9),
    Column("card_money", "Card money", ColumnType.INT, 0.9),
    Column("house_win", "House win", ColumnType.INT, 1.0),
)


def _sql() -> str:
    users = get_user_model()._meta.db_table
    return f"""
WITH earned AS (
    SELECT s.table_id, c.settled_at AS at, 1 AS coups, COALESCE(bt.amount, 0) AS levy,
           0 AS fees, 0 AS cards
    FROM tables_coup c
    JOIN tables_shoe s ON s.id = c.shoe_id
    JOIN tables_table ct ON ct.id = s.table_id AND ct.casino_id = %(casino)s
    LEFT JOIN tables_banktax bt ON bt.coup_id = c.id
    WHERE c.state = 'settled' AND c.settled_at >= %(lo)s AND c.settled_at < %(hi)s
    UNION ALL
    SELECT ss.table_id, COALESCE(fp.hour_start, t.posted_at), 0, 0,
           CASE WHEN fp.kind = 'hourly_fee' THEN e.amount ELSE 0 END,
           CASE WHEN fp.kind = 'card_money' THEN e.amount ELSE 0 END
    FROM tables_feeposting fp
    JOIN ledger_transaction t ON t.id = fp.transaction_id
    JOIN tables_tablesession ss ON ss.id = fp.session_id
    JOIN ledger_entry e ON e.transaction_id = t.id
    JOIN ledger_account a ON a.id = e.account_id AND a.kind IN ('fee', 'card_money')
    WHERE t.casino_id = %(casino)s
      AND COALESCE(fp.hour_start, t.posted_at) >= %(lo)s AND COALESCE(fp.hour_start, t.posted_at) < %(hi)s
),
-- the assignment on shift at each instant, as a correlated sub-select (PostgreSQL and SQLite alike;
-- a LATERAL join would say the same on PostgreSQL only)
placed AS (
    SELECT x.table_id, x.at, x.coups, x.levy, x.fees, x.cards,
           (SELECT a.id FROM tables_croupierassignment a
             WHERE a.table_id = x.table_id AND a.shift_start <= x.at AND x.at < a.shift_end
             ORDER BY a.shift_start DESC, a.id DESC LIMIT 1) AS assignment_id
    FROM earned x
)
SELECT {gaming_day_sql("x.at")} AS day, x.table_id, tb.name, u.username, ca.shift_start, ca.shift_end,
       sum(x.coups), sum(x.levy), sum(x.fees), sum(x.cards)
FROM placed x
JOIN tables_table tb ON tb.id = x.table_id
LEFT JOIN tables_croupierassignment ca ON ca.id = x.assignment_id
LEFT JOIN {users} u ON u.id = ca.user_id
WHERE tb.casino_id = %(casino)s
  AND (CAST(%(table)s AS BIGINT) IS NULL OR x.table_id = CAST(%(table)s AS BIGINT))
GROUP BY 1, 2, 3, 4, 5, 6, ca.id
ORDER BY 1, tb.name, x.table_id, ca.shift_start NULLS FIRST, ca.id NULLS FIRST
"""


@in_english
def house_win_report(scope: Scope) -> Report:
    casino = scope.casino
    assert casino is not None
    rate = casino.levy_rate_bp
    notes = [
        "House win = levy + hourly fees + card money. A levy counts at the coup's settlement, an hourly "
        "fee at the start of the hour it bills, card money when charged; each goes to the croupier "
        "assigned to the table at that instant (the latest-started shift where shifts overlap, none "
        "where nobody was assigned).",
    ]
    return timed_report(
        scope,
        title="House win",
        facts=[
            ("Levy rate", f"{rate} basis points = {rate / 100:.2f} %"),
            # a corrected coup's levy counts once approved: said here as in the levy report, so
            # that the house win reconciles with the ledger's levy account
            ("Awaiting approval", levy_awaiting_approval(casino.pk)),
        ],
        columns=COLUMNS,
        lines=_lines(scope, rows_all(_sql(), scope.sql_params())),
        notes=notes,
    )


def _lines(scope: Scope, rows: list[tuple[Any, ...]]) -> Iterator[Line]:
    tz = scope.tz
    period = [0, 0, 0, 0]
    day_total: list[int] = [0, 0, 0, 0]
    current = None
    for row in rows:
        day, table_id, table, croupier, start, end, coups, levy, fees, cards = row
        day = sql_date(day)
        if current is not None and day != current:
            yield _total(current, day_total, LineKind.SUBTOTAL)
            day_total = [0, 0, 0, 0]
        current = day
        sums = [int(coups), int(levy), int(fees), int(cards)]
        day_total = [a + b for a, b in zip(day_total, sums, strict=True)]
        period = [a + b for a, b in zip(period, sums, strict=True)]
        yield Line(
            (day, table_id, table, croupier or "", as_local(instant_read(start), tz),
             as_local(instant_read(end), tz), *sums, sums[1] + sums[2] + sums[3])
        )  # fmt: skip
    if current is not None:
        yield _total(current, day_total, LineKind.SUBTOTAL)
    yield _total("period", period, LineKind.TOTAL)


def _total(day: Any, sums: list[int], kind: LineKind) -> Line:
    return Line((day, None, "all tables", "", None, None, *sums, sum(sums[1:])), kind)
