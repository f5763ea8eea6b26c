"""Readiness checks behind /readyz: each answers "ok" or a short reason, never raises.

/healthz (liveness) asks none of them: see core.views."""

from __future__ import annotations

from django.conf import settings
from django.db import DatabaseError, connection
from kombu import Connection

from core.services.outbox import outbox_backlog

IN_PROCESS = "in-process"


def database_status() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            row = cursor.fetchone()
    except DatabaseError as exc:
        return f"error: {type(exc).__name__}"
    return "ok" if row and row[0] == 1 else "error: unexpected answer"


def broker_status() -> str:
    """A real connection to the broker, or "in-process" when tasks run eagerly without one."""
    url = settings.CELERY_BROKER_URL
    if not url:
        return IN_PROCESS
    timeout = settings.HEALTHZ_BROKER_TIMEOUT
    try:
        with Connection(url, connect_timeout=timeout, transport_options={"socket_timeout": timeout}) as conn:
            # max_retries=1: a health probe must answer quickly, not wait out kombu's backoff.
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:  # any failure means "broker unusable"; the type is the useful detail
        return f"error: {type(exc).__name__}"
    return "ok"


def outbox_status() -> dict[str, object] | str:
    """The outbox backlog (unsent messages, the oldest one's age), or the error that hid it."""
    try:
        return outbox_backlog()
    except DatabaseError as exc:
        return f"error: {type(exc).__name__}"
