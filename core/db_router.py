"""Reads that may go to a PostgreSQL read replica (docs/scaling.md).

Off unless ``READ_REPLICA_ALIAS`` names a configured database (``READ_REPLICA_URL`` sets one up),
and even then only for code that asks, inside ``replica_reads()``: the back office's long reads
(report runs, the pit's dashboard and charts), which tolerate the replica's lag of a second or so.
Everything else, the croupier's steps and every read that decides a write, stays on the primary.

A read inside a transaction on the primary also stays there: it must see that transaction's own
writes, and a replica would answer from before them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

_replica_reads: ContextVar[bool] = ContextVar("replica_reads", default=False)


@contextmanager
def replica_reads() -> Iterator[None]:
    """Inside this block, reads may be answered by the read replica (when one is configured)."""
    token = _replica_reads.set(True)
    try:
        yield
    finally:
        _replica_reads.reset(token)


def replica_alias() -> str | None:
    """The replica's alias when one is configured, else None."""
    alias = getattr(settings, "READ_REPLICA_ALIAS", "")
    return alias if alias and alias in settings.DATABASES else None


class ReadReplicaRouter:
    """Django database router: reads to the replica inside ``replica_reads()``, all else primary."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        alias = replica_alias()
        if alias is None or not _replica_reads.get():
            return None
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return None
        return alias

    def db_for_write(self, model: type[Any], **hints: Any) -> str | None:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return True  # one database, two copies of it: rows from either relate

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        # the replica is a copy, migrated by replication from the primary
        return False if db == replica_alias() else None
