"""The report kinds and the one call that writes a report file: ``report_write``.

This is the seam between *what* a report holds (levy, fees, house win, audit trail, coup records,
each in CSV, XLSX, PDF or JSON Lines) and *how* it is produced (``reports.services`` runs it as a
``ReportRun`` through Celery, ``manage.py report`` in-process). The producer knows nothing of a
report's columns; a report knows nothing of runs, storage or Celery.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from audit.anchors import anchor_publish
from reports.exports import EXPORTS
from review.period import Period
from tables.models import Table

#: progress(rows_done, rows_expected or None): called every few hundred rows
Progress = Callable[[int, int | None], None]


@dataclass(frozen=True, slots=True)
class ReportRequest:
    kind: str  # a key of KINDS
    fmt: str  # one of KINDS[kind].formats
    start: dt.date  # first gaming day, inclusive
    end: dt.date  # last gaming day, inclusive
    casino_id: int | None = None  # None: every casino (only for kinds with by_casino=False)
    table_id: int | None = None  # only for kinds with by_table=True


@dataclass(frozen=True, slots=True)
class ReportResult:
    rows: int  # data rows written (headers and totals excluded)
    chain_head: str | None = None  # the audit chain head's hash written into the file, if any


@dataclass(frozen=True, slots=True)
class KindInfo:
    slug: str
    title: str
    description: str
    formats: tuple[str, ...]
    by_table: bool
    needs_casino: bool


class ReportRequestError(ValueError):
    """A request that cannot be produced (unknown kind or format, table not in the casino, …)."""


# The first kinds reuse the streaming exports (reports/exports.py), CSV and JSON Lines only.
_FROM_EXPORT = {
    "levy": "percentage-tax",
    "fees": "fees",
    "audit-trail": "audit-trail",
    "coup-records": "coup-records",
}

KINDS: dict[str, KindInfo] = {
    slug: KindInfo(
        slug=slug,
        title=EXPORTS[export].title,
        description=EXPORTS[export].description,
        formats=(EXPORTS[export].extension,),
        by_table=EXPORTS[export].by_table,
        needs_casino=False,
    )
    for slug, export in _FROM_EXPORT.items()
}


def report_write(*, request: ReportRequest, out: BinaryIO, progress: Progress) -> ReportResult:
    """Write the whole report to ``out`` (a binary file opened for writing); return its row count.
    Raises ReportRequestError for a request it cannot produce, before writing anything."""
    info = KINDS.get(request.kind)
    if info is None or request.fmt not in info.formats:
        raise ReportRequestError(f"No {request.kind} report in {request.fmt}.")
    export = EXPORTS[_FROM_EXPORT[request.kind]]
    table = Table.objects.get(pk=request.table_id) if request.table_id is not None else None
    anchors = anchor_publish() if export.anchored else []  # one per chain, the global one first
    lines = 0
    for chunk in export.rows(Period(start=request.start, end=request.end), table, anchors):
        out.write(chunk)
        lines += chunk.count(b"\n")
        progress(lines, None)
    data_rows = lines - (1 if request.fmt == "csv" else 0) - len(anchors)
    return ReportResult(rows=max(data_rows, 0), chain_head=anchors[0].hash if anchors else None)
