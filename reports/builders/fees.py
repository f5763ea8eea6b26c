"""The hourly-fee and card-money report: one line per player charged, per session and billed hour,
read through the floor's link from each fee posting to its session (``tables.FeePosting``), with a
total per session and the period's totals per kind.

- An **hourly fee** counts on the gaming day of the hour it bills (``hour_start``), whenever the
  worker posted it (the hour 05:00-06:00 belongs to the gaming day before, even if billed at
  06:05); **card money** on the gaming day it was charged (``posted_at``, when the player sat).
- A table-hour fee shared among several players gives one line per player (his share).
- ``amount``: the chips the player paid (his entry, negated).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reports.builders import Scope, gaming_day_sql, in_english, instant_read, rows_streamed, timed_report
from reports.columns import GAMING_DAY, PLAYER, PLAYER_ID, SESSION_ID, TABLE, TABLE_ID, TRANSACTION_ID
from reports.model import Column, ColumnType, Line, LineKind, Report, as_local
from tables.gaming_day import sql_date
from tables.models import Table

COLUMNS = (
    GAMING_DAY,
    TABLE_ID,
    TABLE,
    SESSION_ID,
    Column("kind", "Kind", ColumnType.TEXT, 0.9),
    Column("hour_start", "Hour billed", ColumnType.DATETIME, 1.5),
    Column("posted_at", "Posted", ColumnType.DATETIME, 1.5),
    PLAYER_ID,
    PLAYER,
    Column("amount", "Amount", ColumnType.INT, 0.9),
    TRANSACTION_ID,
)

KIND_LABELS = {"hourly_fee": "hourly fee", "card_money": "card money"}

def fees_sql() -> str:
    return f"""
SELECT {gaming_day_sql("COALESCE(fp.hour_start, t.posted_at)")} AS day, ss.table_id, tb.name,
       fp.session_id, fp.kind, fp.hour_start, t.posted_at, p.id, p.display_name, -e.amount, t.id
FROM tables_feeposting fp
JOIN ledger_transaction t ON t.id = fp.transaction_id
JOIN tables_tablesession ss ON ss.id = fp.session_id
JOIN tables_table tb ON tb.id = ss.table_id
JOIN ledger_entry e ON e.transaction_id = t.id
JOIN ledger_account a ON a.id = e.account_id AND a.kind = 'player'
JOIN tables_player p ON p.id = a.player_id
WHERE t.casino_id = %(casino)s
  AND COALESCE(fp.hour_start, t.posted_at) >= %(lo)s AND COALESCE(fp.hour_start, t.posted_at) < %(hi)s
  AND (CAST(%(table)s AS BIGINT) IS NULL OR ss.table_id = CAST(%(table)s AS BIGINT))
ORDER BY tb.name, ss.table_id, fp.session_id, COALESCE(fp.hour_start, t.posted_at), t.id, p.display_name, p.id
"""


@in_english
def fees_report(scope: Scope) -> Report:
    casino = scope.casino
    assert casino is not None
    facts = [
        (
            "Hourly fee",
            f"{casino.hourly_fee_amount} {casino.get_hourly_fee_basis_display()}, "
            f"{casino.get_hourly_fee_billing_display()}",
        ),
        ("Hourly-fee tables", _hourly_tables(casino, scope)),
        ("Card money", f"{casino.card_money_amount} per seated player and session"),
    ]
    notes = [
        "An hourly fee counts on the gaming day of the hour it bills; card money on the day it was charged.",
    ]
    return timed_report(
        scope,
        title="Hourly fees and card money",
        facts=facts,
        columns=COLUMNS,
        lines=_lines(scope, rows_streamed(fees_sql(), scope.sql_params())),
        notes=notes,
    )


def _hourly_tables(casino: Any, scope: Scope) -> str:
    """The tables billed by the hour now: their own levy mode, or their casino's (Table.levy_mode)."""
    tables = casino.tables.filter(Table.levy_mode_is(Table.LevyMode.HOURLY_FEE)).order_by("name", "pk")
    if scope.table is not None:
        tables = tables.filter(pk=scope.table.pk)
    return ", ".join(t.name for t in tables) or "none"


def _lines(scope: Scope, rows: Iterator[tuple[Any, ...]]) -> Iterator[Line]:
    tz = scope.tz
    totals = {"hourly_fee": 0, "card_money": 0}
    session: tuple[int, int, str] | None = None  # (session id, table id, table name)
    session_total = 0
    for day, table_id, table, session_id, kind, hour, posted, player_id, player, amount, txn in rows:
        if session is not None and session[0] != session_id:
            yield _session_total(session, session_total)
            session_total = 0
        session = (session_id, table_id, table)
        session_total += amount
        totals[kind] += amount
        yield Line(
            (sql_date(day), table_id, table, session_id, KIND_LABELS.get(kind, kind),
             as_local(instant_read(hour), tz), as_local(instant_read(posted), tz), player_id, player,
             amount, txn)
        )  # fmt: skip
    if session is not None:
        yield _session_total(session, session_total)
    for kind, label in KIND_LABELS.items():
        yield Line(
            ("period", None, "all tables", None, label, None, None, None, None, totals[kind], None),
            LineKind.TOTAL,
        )
    yield Line(
        ("period", None, "all tables", None, "all", None, None, None, None, sum(totals.values()), None),
        LineKind.TOTAL,
    )


def _session_total(session: tuple[int, int, str], total: int) -> Line:
    session_id, table_id, table = session
    return Line(
        (None, table_id, table, session_id, "session total", None, None, None, None, total, None),
        LineKind.SUBTOTAL,
    )
