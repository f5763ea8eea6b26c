"""Celery tasks of core: thin wrappers around its services."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from core.services import outbox
from core.services.idempotency import idempotency_records_purge
from core.services.logins import login_failures_purge, login_failures_summarise
from core.task_retry import retry_broken_off


@shared_task(name="core.purge_idempotency_records")
@retry_broken_off
def purge_idempotency_records() -> int:
    """Daily: drop stored answers to requests older than the retention (idempotent by nature)."""
    days = settings.IDEMPOTENCY_RETENTION_DAYS
    return idempotency_records_purge(before=timezone.now() - dt.timedelta(days=days))


@shared_task(name="core.summarise_login_failures")
@retry_broken_off
def summarise_login_failures() -> int:
    """Every few minutes: one audit event for the refused logins since the last (see
    core.services.logins), then forget summarised ones past LOGIN_FAILURE_RETENTION_DAYS."""
    summary = login_failures_summarise()
    days = settings.LOGIN_FAILURE_RETENTION_DAYS
    login_failures_purge(before=timezone.now() - dt.timedelta(days=days))
    return int(summary["count"]) if summary else 0


@shared_task(name="core.outbox_drain")
def outbox_drain() -> dict[str, int]:
    """Every minute (beat): send the Celery work the outbox still holds (broker down at commit)."""
    result = outbox.outbox_drain()
    return {"sent": result.sent, "failed": result.failed, "left": result.left}


@shared_task(name="core.purge_outbox")
@retry_broken_off
def purge_outbox() -> int:
    """Daily: forget outbox messages sent more than OUTBOX_RETENTION_DAYS ago (unsent ones stay)."""
    return outbox.outbox_purge(before=timezone.now() - dt.timedelta(days=settings.OUTBOX_RETENTION_DAYS))
