"""The stored results of ``verify_books`` (``BooksVerification``): a run is recorded when it starts
and finished once, each step audited. The checks themselves are ledger/books.py and
tables/money/books.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.services import audit_record
from audit.snapshot import model_snapshot
from ledger.books import BooksReport
from ledger.models import BooksVerification

#: a run still RUNNING after this long died with its worker: the next run marks it abandoned
STALE_AFTER = dt.timedelta(hours=6)

Status = BooksVerification.Status


def books_verification_start(
    *, requested_by: Any = None, now: dt.datetime | None = None
) -> BooksVerification | None:
    """Record that a verification starts; None when one is already running (the status guard: a
    task delivered twice, or a manual run during the nightly one, verifies once). A run left
    RUNNING for ``STALE_AFTER`` is marked abandoned first."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            stale = list(
                BooksVerification.objects.select_for_update().filter(
                    status=Status.RUNNING, started_at__lt=now - STALE_AFTER
                )
            )
            for run in stale:
                run.status, run.finished_at = Status.ABANDONED, max(now, run.started_at)
                run.save(update_fields=["status", "finished_at"])
                audit_record(
                    actor=None,
                    action="ledger.booksverification.abandon",
                    target=run,
                    after={"status": run.status},
                )
            if BooksVerification.objects.filter(status=Status.RUNNING).exists():
                return None
            run = BooksVerification.objects.create(
                requested_by=requested_by if getattr(requested_by, "is_authenticated", False) else None,
                started_at=now,
            )
            audit_record(actor=requested_by, action="ledger.booksverification.start", target=run, after=None)
            return run
    except IntegrityError:  # another run started between the check and the insert (one RUNNING row)
        return None


@transaction.atomic
def books_verification_finish(*, run: BooksVerification, report: BooksReport) -> BooksVerification:
    """Store what a run found and audit it (the counts, and the differences it kept)."""
    run.finished_at = max(timezone.now(), run.started_at)
    run.status = Status.OK if report.ok else Status.DIFFERENCES
    run.coups_checked = report.coups
    run.transactions_checked = report.transactions
    run.accounts_checked = report.accounts
    run.difference_count = report.difference_count
    run.differences = [d.as_dict() for d in report.differences]
    run.save()
    after = model_snapshot(run)
    after["differences"] = after["differences"][:50]  # the whole list is in the row
    audit_record(actor=run.requested_by, action="ledger.booksverification.finish", target=run, after=after)
    return run
