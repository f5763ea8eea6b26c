"""Celery tasks of the pit boss's back office: thin wrappers around one service."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from core.task_retry import retry_broken_off
from review.services import alerts_raise


@shared_task(name="review.alerts_raise")
@retry_broken_off
def alerts_raise_task() -> dict[str, int]:
    """Beat, every minute: raise the alerts of the conditions found since (idempotent)."""
    return {"raised": len(alerts_raise(now=timezone.now()))}
