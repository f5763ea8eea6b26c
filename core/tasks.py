"""Celery tasks of core: thin wrappers around its services."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from core.services.idempotency import idempotency_records_purge


@shared_task(name="core.purge_idempotency_records")
def purge_idempotency_records() -> int:
    """Daily: drop stored answers to requests older than the retention (idempotent by nature)."""
    days = settings.IDEMPOTENCY_RETENTION_DAYS
    return idempotency_records_purge(before=timezone.now() - dt.timedelta(days=days))
