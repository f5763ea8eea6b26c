"""The report kinds and the one call that writes a report file: ``report_write``.

This is the seam between *what* a report holds (levy, fees, house win, audit trail, coup records,
each in CSV, XLSX, PDF or JSON Lines) and *how* it is produced (``reports.services`` runs it as a
``ReportRun`` through Celery, ``manage.py report`` in-process). The producer knows nothing of a
report's columns; a report knows nothing of runs, storage or Celery.

Inside: a builder per kind (reports/builders/) makes a format-neutral report (reports/model.py),
a writer per format (reports/writers/) lays it out. docs/reports.md describes every report.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import BinaryIO

from audit.anchors import anchor_publish
from reports.builders import ReportRequestError, Scope
from reports.builders.audit_trail import audit_trail_report
from reports.builders.cash_log import cash_log_report
from reports.builders.cash_reports import cash_reports_report
from reports.builders.coup_records import coup_records_report
from reports.builders.fees import fees_report
from reports.builders.house_win import house_win_report
from reports.builders.levy import levy_report
from reports.builders.player_ratings import player_ratings_report
from reports.model import RecordReport, Report
from reports.writers import csv as csv_writer
from reports.writers import jsonl as jsonl_writer
from reports.writers import pdf as pdf_writer
from reports.writers import xlsx as xlsx_writer
from tables.models import Casino, Table

__all__ = [
    "CONTENT_TYPES",
    "KINDS",
    "KindInfo",
    "Progress",
    "ReportRequest",
    "ReportRequestError",
    "ReportResult",
    "report_write",
]

#: progress(rows_done, rows_expected or None): called every few hundred rows
Progress = Callable[[int, int | None], None]

#: the longest period a report covers, in gaming days (a year, leap day and one more)
MAX_DAYS = 367


@dataclass(frozen=True, slots=True)
class ReportRequest:
    kind: str  # a key of KINDS
    fmt: str  # one of KINDS[kind].formats
    start: dt.date  # first gaming day, inclusive
    end: dt.date  # last gaming day, inclusive
    casino_id: int | None = None  # None: every casino (only for kinds with needs_casino=False)
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
    action: str = ""  # the audit action that records a report of this kind was taken
    #: who asks for it and takes its file: "export" (pit bosses, accountants: tables.export_coups)
    #: or "compliance" (the compliance role: compliance.review_cash)
    audience: str = "export"


#: the MIME type of each format
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
    "jsonl": "application/x-ndjson; charset=utf-8",
}

TABULAR = ("csv", "xlsx", "pdf")

KINDS: dict[str, KindInfo] = {
    k.slug: k
    for k in (
        KindInfo(
            slug="levy",
            title="Levy (percentage tax)",
            description="Per gaming day and table: coups settled, banker wins, covered stakes, levy; "
            "day, month-to-date and year-to-date totals.",
            formats=TABULAR,
            by_table=True,
            needs_casino=True,
            action="tables.banktax.export",
        ),
        KindInfo(
            slug="fees",
            title="Hourly fees and card money",
            description="Per session, player and billed hour: the fee or card money each player paid, "
            "with session and period totals.",
            formats=TABULAR,
            by_table=True,
            needs_casino=True,
            action="ledger.transaction.export",
        ),
        KindInfo(
            slug="house-win",
            title="House win",
            description="Levy, hourly fees and card money per table, gaming day and croupier shift.",
            formats=TABULAR,
            by_table=True,
            needs_casino=True,
            action="tables.housewin.export",
        ),
        KindInfo(
            slug="player-ratings",
            title="Player ratings",
            description="Per player, session and gaming day: time seated, coups played and banked, "
            "stakes, net result, levy and fees paid, and the house's theoretical revenue beside the actual.",
            formats=TABULAR,
            by_table=False,
            needs_casino=True,
            action="tables.player.rating_export",
        ),
        KindInfo(
            slug="audit-trail",
            title="Audit trail",
            description="Every event, with all it takes to re-verify the hash chain offline, ending with "
            "the chain's signed head. JSON Lines.",
            formats=("jsonl",),
            by_table=False,
            needs_casino=False,
            action="audit.auditevent.export",
        ),
        KindInfo(
            slug="coup-records",
            title="Coup records",
            description="One coup record per revealed coup, for manage.py validate_coups, ending with the "
            "audit chain's signed head. JSON Lines.",
            formats=("jsonl",),
            by_table=True,
            needs_casino=False,
            action="tables.coup.export",
        ),
        KindInfo(
            slug="cash-log",
            title="Cash-transaction log",
            description="Every cash transaction at the cage above the log threshold: player, direction, "
            "chips and their value, time, cashier; the period's totals per direction.",
            formats=TABULAR,
            by_table=False,
            needs_casino=True,
            action="compliance.cashlogentry.export",
            audience="compliance",
        ),
        KindInfo(
            slug="cash-reports",
            title="Cash-transaction reports to file",
            description="Per player, gaming day and direction above the report threshold: the day's total, "
            "filed or not, by whom and when.",
            formats=TABULAR,
            by_table=False,
            needs_casino=True,
            action="compliance.cashreport.export",
            audience="compliance",
        ),
    )
}


def request_scope(request: ReportRequest) -> Scope:
    """The request checked and resolved; ReportRequestError for one that cannot be produced."""
    info = KINDS.get(request.kind)
    if info is None:
        raise ReportRequestError(f"No report kind {request.kind!r}.")
    if request.fmt not in info.formats:
        raise ReportRequestError(f"No {request.kind} report in {request.fmt}.")
    if request.start > request.end:
        raise ReportRequestError("The period starts after it ends.")
    if (request.end - request.start).days + 1 > MAX_DAYS:
        raise ReportRequestError(f"A report covers at most {MAX_DAYS} gaming days.")
    casino = None
    if request.casino_id is not None:
        casino = Casino.objects.filter(pk=request.casino_id).first()
        if casino is None:
            raise ReportRequestError("No such casino.")
    elif info.needs_casino:
        raise ReportRequestError(f"A {info.title} report is of one casino: choose it.")
    table = None
    if request.table_id is not None:
        if not info.by_table:
            raise ReportRequestError(f"A {info.title} report covers every table.")
        table = Table.objects.select_related("casino").filter(pk=request.table_id).first()
        if table is None or (casino is not None and table.casino_id != casino.pk):
            raise ReportRequestError("No such table in this casino.")
        if casino is None:
            casino = table.casino  # a table's report is on its casino's gaming days
    return Scope(start=request.start, end=request.end, casino=casino, table=table, by_table=info.by_table)


def report_build(request: ReportRequest, scope: Scope) -> Report | RecordReport:
    """The format-neutral report of a checked request (the audit-trail kinds publish an anchor)."""
    if request.kind == "levy":
        return levy_report(scope)
    if request.kind == "fees":
        return fees_report(scope)
    if request.kind == "house-win":
        return house_win_report(scope)
    if request.kind == "player-ratings":
        return player_ratings_report(scope)
    if request.kind == "cash-log":
        return cash_log_report(scope)
    if request.kind == "cash-reports":
        return cash_reports_report(scope)
    # Every JSON Lines report carries the audit chains' signed heads (its casino's chain's, or every
    # chain's), all appended to the anchor file: a tail deleted later contradicts the reports
    # already handed out (docs/audit.md).
    anchors = anchor_publish()
    if request.kind == "audit-trail":
        return audit_trail_report(scope, anchors)
    return coup_records_report(scope, anchors)


def report_write(*, request: ReportRequest, out: BinaryIO, progress: Progress) -> ReportResult:
    """Write the whole report to ``out`` (a binary file opened for writing); return its row count.
    Raises ReportRequestError for a request it cannot produce, before writing anything."""
    scope = request_scope(request)
    report = report_build(request, scope)
    stream = report.records if isinstance(report, RecordReport) else report.lines
    # its query closed whatever happens: a writer that fails half-way leaves the stream suspended
    # in its fetch loop, held by the exception's frames until the garbage collector runs, with its
    # cursor open, and on SQLite an open read holds the database's read lock (the run's failure is
    # then not even written, and every other writer waits behind it)
    with contextlib.closing(stream) if isinstance(stream, Generator) else contextlib.nullcontext():
        if isinstance(report, RecordReport):
            rows = jsonl_writer.write(report, out, progress)
        elif request.fmt == "csv":
            rows = csv_writer.write(report, out, progress)
        elif request.fmt == "xlsx":
            rows = xlsx_writer.write(report, out, progress)
        else:
            rows = pdf_writer.write(report, out, progress)
    return ReportResult(rows=rows, chain_head=report.chain_head)
