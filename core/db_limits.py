"""Database limits for the processes that serve web requests (PostgreSQL).

``lock_timeout`` and ``statement_timeout`` (settings ``DB_LOCK_TIMEOUT_MS``,
``DB_STATEMENT_TIMEOUT_MS``; 0 turns one off) are set on every connection the web process opens,
once, as it opens (casino/wsgi.py and casino/asgi.py call :func:`web_limits_enable`). A request that
waits longer than that for a lock is better refused — 503 ``lock_timeout``, nothing written,
"send it again" (core.errors, core.transient) — than left hanging with the croupier's tablet, and
a lock somebody holds for seconds is a bug to see in the logs. Celery workers and management
commands (migrations, imports) never load the WSGI module: they keep the server's defaults.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.backends.signals import connection_created


def web_limits_set(connection: Any) -> None:
    """Set the web limits on ``connection`` (a session-level setting: it lasts as long as the
    connection, CONN_MAX_AGE)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('lock_timeout', %s, false), set_config('statement_timeout', %s, false)",
            [f"{int(settings.DB_LOCK_TIMEOUT_MS)}ms", f"{int(settings.DB_STATEMENT_TIMEOUT_MS)}ms"],
        )


def _on_connection_created(sender: Any, connection: Any, **kwargs: Any) -> None:
    web_limits_set(connection)


def web_limits_enable() -> None:
    """Set the web limits on every connection this process opens from now on."""
    connection_created.connect(_on_connection_created, dispatch_uid="core.db_limits.web")
