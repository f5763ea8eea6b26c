"""Reads that may go to a PostgreSQL read replica (docs/scaling.md).

Off unless ``READ_REPLICA_ALIAS`` names a configured database (``READ_REPLICA_URL`` sets one up),
and even then only for code that asks, inside ``replica_reads()``: the back office's long reads
(report runs, the pit's dashboard and charts), which tolerate the replica's lag of a second or so.
Everything else, the croupier's steps and every read that decides a write, stays on the primary.

A read inside a transaction on the primary also stays there: it must see that transaction's own
writes, and a replica would answer from before them.

The replica is asked first whether it is fit to answer (:func:`replica_health`): a standby that
does not answer within ``READ_REPLICA_CONNECT_TIMEOUT`` seconds, or whose replay is more than
``READ_REPLICA_MAX_LAG_SECONDS`` behind what it has received, is passed over and the block's reads
go to the primary instead; the block learns why (``ReplicaReads.fallback``) so a page can say its
figures came from the primary. The answer is kept ``READ_REPLICA_CHECK_SECONDS`` per process: the
check is one short connection every few seconds, not one a page.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

logger = logging.getLogger(__name__)

# The standby's lag as the standby sees it: 0 when it has replayed everything it received (an
# idle primary sends nothing, and the time since the last replayed commit is then no lag at all);
# else the age of the last transaction it replayed (NULL: none replayed since it started). A
# server not in recovery (a promoted standby, or the tests' mirror of the primary) lags by nothing.
_LAG_SQL = """
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0.0
    WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0.0
    ELSE EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())::float8
END
"""


@dataclass(frozen=True, slots=True)
class ReplicaHealth:
    """Whether a replica may answer reads now, and if not why."""

    #: "ok"; "down": it did not answer; "lagging": its replay is too far behind (or unknown)
    state: Literal["ok", "down", "lagging"]
    #: the lag in seconds the check measured (None when it is down or the lag is unknown)
    lag_seconds: float | None = None

    @property
    def usable(self) -> bool:
        return self.state == "ok"


@dataclass(slots=True)
class ReplicaReads:
    """One ``replica_reads()`` block: where its reads went, and why not to the replica if not."""

    #: the replica's health when a read of the block first asked for it (None: nobody asked, or
    #: no replica is configured)
    health: ReplicaHealth | None = None
    #: the database aliases the block's reads were sent to
    served_by: set[str] = field(default_factory=set)

    @property
    def fallback(self) -> ReplicaHealth | None:
        """The replica's health when the block's reads fell back to the primary because of it."""
        return self.health if self.health is not None and not self.health.usable else None


_replica_reads: ContextVar[ReplicaReads | None] = ContextVar("replica_reads", default=None)

# (host, port, dbname) -> (monotonic time of the check, its answer); one dict a process, shared by
# its threads (gunicorn's), hence the lock
_checked: dict[tuple[str, str, str], tuple[float, ReplicaHealth]] = {}
_checked_lock = threading.Lock()


@contextmanager
def replica_reads() -> Iterator[ReplicaReads]:
    """Inside this block, reads may be answered by the read replica (when one is configured and
    fit to answer); the block's :class:`ReplicaReads` says afterwards whether they fell back."""
    reads = ReplicaReads()
    token = _replica_reads.set(reads)
    try:
        yield reads
    finally:
        _replica_reads.reset(token)


def replica_alias() -> str | None:
    """The replica's alias when one is configured, else None."""
    alias = getattr(settings, "READ_REPLICA_ALIAS", "")
    return alias if alias and alias in settings.DATABASES else None


def _target(alias: str) -> tuple[str, str, str]:
    db = settings.DATABASES[alias]
    return (str(db.get("HOST") or ""), str(db.get("PORT") or ""), str(db.get("NAME") or ""))


def _probe(alias: str) -> ReplicaHealth:
    """Connect to ``alias`` on a connection of its own (never the one its reads use: a probe must
    not open or break it, nor count among its queries) and measure its lag."""
    import psycopg

    db = settings.DATABASES[alias]
    timeout = float(settings.READ_REPLICA_CONNECT_TIMEOUT)
    params: dict[str, Any] = {
        "dbname": db.get("NAME") or "postgres",
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
        "host": db.get("HOST") or None,
        "port": db.get("PORT") or None,
        "connect_timeout": max(1, round(timeout)),  # libpq takes whole seconds, 1 at least
    }
    try:
        with psycopg.connect(**{k: v for k, v in params.items() if v is not None}) as conn:
            # a standby that accepts the connection and then hangs is as good as down; set_config
            # local to the probe's transaction (a pooler may hand the server connection on)
            conn.execute("SELECT set_config('statement_timeout', %s, true)", [f"{int(timeout * 1000)}ms"])
            row = conn.execute(_LAG_SQL).fetchone()
    except psycopg.Error as error:
        logger.warning("read replica %r did not answer (%s): reads go to the primary", alias, error)
        return ReplicaHealth("down")
    lag = None if row is None or row[0] is None else float(row[0])
    if lag is None or lag > float(settings.READ_REPLICA_MAX_LAG_SECONDS):
        logger.warning(
            "read replica %r is %s behind (limit %s s): reads go to the primary",
            alias,
            "an unknown time" if lag is None else f"{lag:.1f} s",
            settings.READ_REPLICA_MAX_LAG_SECONDS,
        )
        return ReplicaHealth("lagging", lag)
    return ReplicaHealth("ok", lag)


def replica_health(alias: str) -> ReplicaHealth:
    """``alias``'s health, checked at most once every ``READ_REPLICA_CHECK_SECONDS`` per process
    and database server."""
    key, now = _target(alias), time.monotonic()
    with _checked_lock:
        cached = _checked.get(key)
    if cached is not None and now - cached[0] < float(settings.READ_REPLICA_CHECK_SECONDS):
        return cached[1]
    health = _probe(alias)
    with _checked_lock:
        _checked[key] = (time.monotonic(), health)
    return health


def replica_health_forget() -> None:
    """Forget every check made (the next read checks again): for tests, and after a failover."""
    with _checked_lock:
        _checked.clear()


class ReadReplicaRouter:
    """Django database router: reads to the replica inside ``replica_reads()``, all else primary."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        reads = _replica_reads.get()
        alias = replica_alias()
        if alias is None or reads is None:
            return None
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return None
        if reads.health is None:
            # once a block: all its reads come from one database, so a page's figures agree
            reads.health = replica_health(alias)
        chosen = alias if reads.health.usable else DEFAULT_DB_ALIAS
        reads.served_by.add(chosen)
        return chosen

    def db_for_write(self, model: type[Any], **hints: Any) -> str | None:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        return True  # one database, two copies of it: rows from either relate

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        # the replica is a copy, migrated by replication from the primary; so is an alias the test
        # settings declare a mirror of another (casino/settings/test.py: replica, standby)
        mirror = settings.DATABASES.get(db, {}).get("TEST", {}).get("MIRROR")
        return False if db == replica_alias() or mirror else None


def replica_fallback_notice(reads: ReplicaReads) -> str:
    """What a page says when its reads fell back to the primary ("" when they did not)."""
    from django.utils.translation import gettext as _

    fallback = reads.fallback
    if fallback is None:
        return ""
    if fallback.state == "down":
        return _("The read replica did not answer: these figures were read from the primary database.")
    if fallback.lag_seconds is None:
        return _("The read replica is behind: these figures were read from the primary database.")
    return _(
        "The read replica is %(seconds)s s behind: these figures were read from the primary database."
    ) % {"seconds": f"{fallback.lag_seconds:.0f}"}
