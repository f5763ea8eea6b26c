"""Signing in's periodic work: the refused logins summarised into the audit trail, the stored
answers to staff requests forgotten after their retention (their task names are the ones beat
has always scheduled)."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from access.services.idempotency import idempotency_records_purge
from access.services.logins import login_failures_purge, login_failures_summarise
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
    access.services.logins), then forget summarised ones past LOGIN_FAILURE_RETENTION_DAYS."""
    summary = login_failures_summarise()
    days = settings.LOGIN_FAILURE_RETENTION_DAYS
    login_failures_purge(before=timezone.now() - dt.timedelta(days=days))
    return int(summary["count"]) if summary else 0
