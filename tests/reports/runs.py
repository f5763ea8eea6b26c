"""Helpers of the report-run tests: requests, and a stand-in for report_write whose output the
tests know (the contents are reports.kinds', tested on their own)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, BinaryIO

from django.utils import timezone

from reports.kinds import ReportRequest, ReportResult
from reports.models import ReportRun
from reports.services import report_run_execute, report_run_schedule
from tables.models import Casino
from tests.factories import CasinoFactory

TODAY = timezone.localdate


REPORTS_CASINO = "Casino des rapports"


def reports_casino_id() -> int:
    """The one casino of these tests' requests (levy, fees and house win are per casino): the same
    on every call, so two calls make the same request."""
    casino = Casino.objects.filter(name=REPORTS_CASINO).first() or CasinoFactory(name=REPORTS_CASINO)
    return casino.pk


def levy_request(**changes: Any) -> ReportRequest:
    today = timezone.localdate()
    values: dict[str, Any] = {"kind": "levy", "fmt": "csv", "start": today, "end": today, **changes}
    if "casino_id" not in changes and values["kind"] in ("levy", "fees", "house-win"):
        values["casino_id"] = reports_casino_id()
    return ReportRequest(**values)


def fake_writer(lines: int = 3, during: Callable[[], None] | None = None) -> Callable[..., ReportResult]:
    """report_write's stand-in: ``lines`` known lines, progress after each, ``during`` mid-way."""

    def write(*, request: ReportRequest, out: BinaryIO, progress: Any) -> ReportResult:
        for n in range(lines):
            out.write(f"{request.kind},{n}\n".encode())
            progress(n + 1, lines)
            if during is not None and n == lines // 2:
                during()
        return ReportResult(rows=lines)

    return write


def fake_bytes(kind: str = "levy", lines: int = 3) -> bytes:
    return b"".join(f"{kind},{n}\n".encode() for n in range(lines))


def day(offset: int = 0) -> dt.date:
    return timezone.localdate() + dt.timedelta(days=offset)


def runs_finished_and_waiting(casino: Casino) -> tuple[ReportRun, ReportRun]:
    """Today's levy report written for ``casino`` (a finished run with its file) and a coup-records
    report waiting for a worker: what the screens' tests show on the reports page."""
    today = timezone.localdate()
    finished = report_run_schedule(
        request=ReportRequest(kind="levy", fmt="csv", start=today, end=today, casino_id=casino.pk),
        enqueue=False,
    )
    report_run_execute(run_id=finished.pk)
    finished.refresh_from_db()
    assert finished.status == ReportRun.Status.FINISHED, finished.error
    waiting = report_run_schedule(
        request=ReportRequest(kind="coup-records", fmt="jsonl", start=today, end=today), enqueue=False
    )
    return finished, waiting
