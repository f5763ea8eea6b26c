"""Celery tasks of the reports (thin: an id or a schedule's parameters in, one service called).

``reports.run`` is acknowledged only when it returns (``acks_late``) and given back to the broker
when its worker dies (``reject_on_worker_lost``): a worker killed mid-report has its message
redelivered, and the run, found "running", is written again from scratch. Both tasks go to the
``reports`` queue (settings.CELERY_TASK_ROUTES; docs/reports.md).
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from core.task_retry import retry_broken_off
from reports.kinds import KINDS, ReportRequest
from reports.schedules import preset_period
from reports.services import (
    REPORT_RUN_TASK,
    SCHEDULER,
    report_run_execute,
    report_run_schedule,
    report_runs_requeue_stalled,
)
from tables.gaming_day import casino_calendar
from tables.models import Casino

logger = logging.getLogger(__name__)


@shared_task(
    name=REPORT_RUN_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    # the database out of reach while claiming or finishing (a failover): try again a little later;
    # the run, found running, is written again from scratch (an error while writing fails the run)
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=5,
    max_retries=5,
)
def report_run_task(run_id: int) -> dict[str, object]:
    """Write run ``run_id``'s report (idempotent: a finished run is not written again)."""
    run = report_run_execute(run_id=run_id)
    if run is None:
        return {"run": run_id, "status": "missing"}
    return {"run": run.pk, "status": run.status, "rows": run.row_count, "sha256": run.sha256}


@shared_task(name="reports.scheduled", acks_late=True, reject_on_worker_lost=True)
def report_scheduled_task(
    *, casino_id: int, kinds: list[str], preset: str, schedule: str = "", fmt: str = "csv"
) -> list[int]:
    """Beat's report schedules (reports/schedules.py): the runs of ``kinds`` for the casino's
    ``preset`` period (yesterday, month or year to date, in its gaming days), asked for by the
    scheduler. Idempotent: a run being written is returned, not doubled. A kind not (or no more)
    known, or not in ``fmt``, is skipped with a warning rather than failing the others."""
    casino = Casino.objects.filter(pk=casino_id).first()
    if casino is None:
        logger.warning("report schedule %r: casino %s does not exist", schedule, casino_id)
        return []
    start, end = preset_period(preset, casino_calendar(casino), timezone.now())
    runs = []
    for kind in kinds:
        info = KINDS.get(kind)
        if info is None or fmt not in info.formats:
            logger.warning("report schedule %r: no %s report in %s, skipped", schedule, kind, fmt)
            continue
        request = ReportRequest(kind=kind, fmt=fmt, start=start, end=end, casino_id=casino.pk)
        runs.append(report_run_schedule(request=request, label=SCHEDULER).pk)
    return runs


@shared_task(name="reports.requeue_stalled")
@retry_broken_off
def report_runs_requeue_task() -> list[int]:
    """Beat, every REPORTS_REQUEUE_EVERY_SECONDS: runs whose worker stopped beating, queued again."""
    return report_runs_requeue_stalled()
