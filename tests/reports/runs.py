"""Helpers of the report-run tests: requests, and a stand-in for report_write whose output the
tests know (the contents are reports.kinds', tested on their own)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, BinaryIO

from django.utils import timezone

from reports.kinds import ReportRequest, ReportResult

TODAY = timezone.localdate


def levy_request(**changes: Any) -> ReportRequest:
    today = timezone.localdate()
    values: dict[str, Any] = {"kind": "levy", "fmt": "csv", "start": today, "end": today, **changes}
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
