"""Celery tasks of core: thin wrappers around its services."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from core.services import outbox
from core.task_retry import retry_broken_off


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
