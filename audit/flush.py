"""Where a transaction's audit events are appended (docs/audit.md, "Serialising writers"): read
off the connection's atomic blocks, by the writer (audit.services) and by what it keeps for the
bindings of rows (audit.rows)."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils.connection import ConnectionProxy


def connection_now() -> Any:
    """This thread's default connection, the wrapper itself (django.db.connection is a proxy that
    looks it up again at every attribute read: a bulk writer reads it tens of thousands of times)."""
    conn: Any = connection
    return conn._connections[conn._alias] if isinstance(conn, ConnectionProxy) else conn


def audit_flush_point(conn: Any) -> str | None:
    """Where this transaction's events are appended: ``""`` at COMMIT, a savepoint id when that
    savepoint (the outermost atomic block of the code, inside a test case's transaction) is
    released, None for "now" (a backend that does not defer, or no block of the code's own)."""
    # django.db.connection: its wrapper, looked up once here rather than by the proxy at every
    # attribute read below (this runs for each of a bulk writer's tens of thousands of events)
    if isinstance(conn, ConnectionProxy):
        conn = connection_now()
    if not getattr(conn, "audit_deferred", False):
        return None
    blocks = conn.atomic_blocks
    # the outermost block that is not a test case's (TestCase wraps every test in atomic blocks)
    first = next((i for i, block in enumerate(blocks) if not getattr(block, "_from_testcase", False)), None)
    if first is None:
        return None
    # savepoint_ids has one entry per block opened inside a transaction: all but the outermost
    # (unless autocommit was already off when it opened)
    index = first - (len(blocks) - len(conn.savepoint_ids))
    if index < 0:
        return "" if conn.commit_on_exit else None
    sid: str | None = conn.savepoint_ids[index]  # None: a block without a savepoint, no hook
    return sid
