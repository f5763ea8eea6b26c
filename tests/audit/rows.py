"""What the rows' check (audit.row_verify) says of a row, spelled out from the events themselves,
for the tests that tamper with rows and assert the exact differences."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction

from audit.models import GLOBAL_CHAIN, AuditEvent


def bound_by(table: str, pk: int) -> AuditEvent:
    """The latest event that binds row ``pk`` of ``table`` (read from every event's ``rows``)."""
    found = [
        event
        for event in AuditEvent.objects.exclude(rows=None).order_by("id")
        if any(r[0] == table and r[1] == pk for r in event.rows or ())
    ]
    assert found, f"no event binds {table} row {pk}"
    return found[-1]


def _event(event: AuditEvent) -> str:
    where = "the global chain" if event.chain == GLOBAL_CHAIN else f"chain {event.chain}"
    return f"event seq {event.seq} of {where}"


def row_changed(table: str, pk: int, *columns: str, event: AuditEvent | None = None) -> str:
    """``{table} row {pk}: column(s) … differ(s) from what event … bound``."""
    event = event or bound_by(table, pk)
    word, verb = ("column", "differs") if len(columns) == 1 else ("columns", "differ")
    return f"{table} row {pk}: {word} {', '.join(columns)} {verb} from what {_event(event)} bound"


def row_unbound(table: str, pk: int) -> str:
    return f"{table} row {pk}: no audit event binds this row (written outside the application)"


def row_gone(table: str, pk: int, event: AuditEvent) -> str:
    return f"{table} row {pk}: the row is gone, {_event(event)} bound it"


def books_line(row_difference: str) -> str:
    """The same difference as ``verify_books`` lists it (``subject [audit row]: detail``)."""
    subject, detail = row_difference.split(": ", 1)
    return f"{subject} [audit row]: {detail}"


def superuser_sql(sql: str, params: list[Any]) -> None:
    """A superuser's write, the append-only triggers switched off for it."""
    if connection.vendor == "postgresql":
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            cursor.execute(sql, params)
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")
        return
    # SQLite: the triggers dropped for the statement and put back (their SQL kept by SQLite)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        triggers = cursor.fetchall()
        for name, _ in triggers:
            cursor.execute(f'DROP TRIGGER "{name}"')
        cursor.execute(sql, params)
        for _, sql_text in triggers:
            cursor.execute(sql_text)
