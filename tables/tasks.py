"""Celery tasks for the game floor: thin wrappers around services."""

from __future__ import annotations

import datetime as dt
import logging

from celery import shared_task
from django.contrib.auth import get_user_model
from django.utils import timezone

from core.task_retry import retry_broken_off
from ledger.services.books import books_verification_finish, books_verification_start
from tables.models import TableSession
from tables.money import fees
from tables.money.books import books_verify

logger = logging.getLogger(__name__)


# The hourly-fee tasks keep the names they were registered under when the ledger billed fees: the
# beat schedule (settings CELERY_BEAT_SCHEDULE) and any message already queued name them.


@shared_task(name=fees.BILL_HOURLY_FEES_TASK)
@retry_broken_off
def bill_hourly_fees(session_id: int, hour_start_iso: str) -> dict[str, object]:
    """Bill one finished clock hour of one session (idempotent: a second run charges nothing)."""
    session = TableSession.objects.get(pk=session_id)
    bill = fees.hourly_fees_bill(session=session, hour_start=dt.datetime.fromisoformat(hour_start_iso))
    return {
        "session": session_id,
        "hour_start": hour_start_iso,
        "total": bill.total,
        "already_billed": bill.already_billed,
        "failures": {str(k): v for k, v in bill.failures.items()},
    }


@shared_task(name="ledger.bill_due_hourly_fees")
@retry_broken_off
def bill_due_hourly_fees(now_iso: str | None = None) -> int:
    """Beat: enqueue the billing of every finished hour of every session of an hourly-fee casino
    not yet marked billed. Returns how many hours were enqueued."""
    now = dt.datetime.fromisoformat(now_iso) if now_iso else timezone.now()
    due = fees.hourly_fee_hours_due(now=now)
    for session_id, hour_start in due:
        bill_hourly_fees.delay(session_id, hour_start.isoformat())
    if due:
        logger.info("hourly fees: %d session-hour(s) enqueued", len(due))
    return len(due)


@shared_task(name="books.verify")
def books_verify_task(requested_by_id: int | None = None) -> dict[str, object]:
    """Verify the books (scheduled by beat beside the audit chain's verification) and store the
    result (``BooksVerification``); differences are logged at ERROR for alerting. Skipped when a
    verification is already running (the status guard: a redelivered task verifies once)."""
    requested_by = (
        get_user_model().objects.filter(pk=requested_by_id).first() if requested_by_id is not None else None
    )
    run = books_verification_start(requested_by=requested_by)
    if run is None:
        logger.info("books verification skipped: one is already running")
        return {"skipped": True}
    report = books_verify()
    for difference in report.differences[:20]:
        logger.error("books DIFFER: %s", difference)
    run = books_verification_finish(run=run, report=report)
    return {
        "skipped": False,
        "ok": report.ok,
        "coups": report.coups,
        "transactions": report.transactions,
        "accounts": report.accounts,
        "differences": report.difference_count,
        "verification": run.pk,
    }


@shared_task(name="tables.rollups_refresh")
@retry_broken_off
def rollups_refresh_task() -> dict[str, object]:
    """Bring the per table-day rollups up to the audit trail's head (beat, every minute;
    idempotent: a redelivered run recomputes the same rows)."""
    from tables.services.rollups import rollups_refresh

    outcome = rollups_refresh()
    return {"events": outcome.events, "table_days": outcome.table_days, "to_seq": outcome.to_seq}
