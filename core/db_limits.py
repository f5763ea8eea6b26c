"""Database limits for the processes that serve web requests (PostgreSQL).

``lock_timeout`` and ``statement_timeout`` (settings ``DB_LOCK_TIMEOUT_MS``,
``DB_STATEMENT_TIMEOUT_MS``; 0 turns one off) are set on every connection the web process opens,
once, as it opens (casino/wsgi.py and casino/asgi.py call :func:`web_limits_enable`). A request that
waits longer than that for a lock is better refused — 503 ``lock_timeout``, nothing written,
"send it again" (core.errors, core.transient) — than left hanging with the croupier's tablet, and
a lock somebody holds for seconds is a bug to see in the logs. Celery workers and management
commands (migrations, imports) never load the WSGI module: they keep the server's defaults.

Behind a transaction pooler (``DATABASE_POOLER=pgbouncer-transaction``) a session setting would
land on whichever server connection ran it, and stay there for the next client the pooler hands it
to (a Celery worker's report would inherit the web's statement timeout) while this client's next
transaction runs on another server connection without it. There the limits are set at the start
of every transaction instead, local to it (``set_config(..., true)``, i.e. ``SET LOCAL``), by
:class:`TransactionLimitsWrapper` (the PostgreSQL backend, audit/backends/postgresql): every write
and every locking read runs in one, which is where a lock wait happens. A statement run outside a
transaction (a plain read in autocommit) then runs under the server's own defaults.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.backends.signals import connection_created

_SET_LIMITS = "SELECT set_config('lock_timeout', %s, {local}), set_config('statement_timeout', %s, {local})"


def _limits() -> list[str]:
    return [f"{int(settings.DB_LOCK_TIMEOUT_MS)}ms", f"{int(settings.DB_STATEMENT_TIMEOUT_MS)}ms"]


def pooled_per_transaction(connection: Any) -> bool:
    """Whether ``connection`` reaches PostgreSQL through a transaction pooler (its settings'
    ``DISABLE_SERVER_SIDE_CURSORS``, which casino/settings/base.py sets for DATABASE_POOLER)."""
    return bool(connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"))


def web_limits_set(connection: Any) -> None:
    """Set the web limits on ``connection``: a session-level setting lasting as long as the
    connection (CONN_MAX_AGE); behind a transaction pooler, the start of each of its transactions
    sets them instead (module docstring)."""
    if connection.vendor != "postgresql":
        return
    if pooled_per_transaction(connection):
        connection.web_limits_per_transaction = True
        return
    with connection.cursor() as cursor:
        cursor.execute(_SET_LIMITS.format(local="false"), _limits())


class TransactionLimitsWrapper:
    """Mixin for the PostgreSQL DatabaseWrapper: behind a transaction pooler, a transaction of a
    web process (``web_limits_per_transaction``) starts by setting the limits local to it."""

    #: set by web_limits_set on a web process's connection behind a transaction pooler
    web_limits_per_transaction = False

    def set_autocommit(
        self, autocommit: bool, force_begin_transaction_with_broken_autocommit: bool = False
    ) -> None:
        super().set_autocommit(  # type: ignore[misc]  # a mixin of Django's DatabaseWrapper
            autocommit,
            force_begin_transaction_with_broken_autocommit=force_begin_transaction_with_broken_autocommit,
        )
        if not autocommit and self.web_limits_per_transaction:
            # the first statement of the transaction (psycopg sends BEGIN before it): the limits
            # hold until its COMMIT or ROLLBACK, on whichever server connection the pooler lent
            with self.cursor() as cursor:  # type: ignore[attr-defined]
                cursor.execute(_SET_LIMITS.format(local="true"), _limits())


def _on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    web_limits_set(connection)


def web_limits_enable() -> None:
    """Set the web limits on every connection this process opens from now on."""
    connection_created.connect(_on_connection_created, dispatch_uid="core.db_limits.web")
