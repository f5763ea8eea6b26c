"""Reads for compliance's page (docs/compliance.md): a gaming day's cash-transaction log, the
reports still to file and those filed for that day, in the casinos the reader works for. The log
and the reports to file come a page at a time (``COMPLIANCE_PAGE_SIZE``), each list its own pages."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from compliance.models import CashLogEntry, CashReport
from compliance.selectors import cash_log, cash_reports
from tables.gaming_day import casino_calendar
from tables.models import Casino
from tables.permissions import in_casinos

#: rows of the log, and reports to file, a page shows
COMPLIANCE_PAGE_SIZE = 25

#: the query parameters naming each list's page
LOG_PAGE, TO_FILE_PAGE = "log_page", "to_file_page"


@dataclass(frozen=True, slots=True)
class CompliancePage:
    day: dt.date
    log: Page[CashLogEntry]  # the day's entries, newest first, a page of them
    # every report still open, oldest day first, a page of them; a supplementary one (the day's
    # earlier report filed) carries ``filed_before``: the total that one was filed with
    to_file: Page[CashReport]
    filed: list[CashReport]  # the day's reports already filed
    # the query string a link to another page of the log keeps (the day, the other list's page)
    log_query: str
    to_file_query: str  # the same for the reports to file


def compliance_page(
    *, casinos: frozenset[int] | None, day: dt.date, log_page: Any = 1, to_file_page: Any = 1
) -> CompliancePage:
    """The page of gaming day ``day``: the log's page ``log_page`` and the reports to file's page
    ``to_file_page`` (as typed in the address: a page past the last is the last, anything else
    not a page number the first)."""
    filed_before = (
        CashReport.objects.filter(
            player=OuterRef("player"),
            gaming_day=OuterRef("gaming_day"),
            direction=OuterRef("direction"),
            status=CashReport.Status.FILED,
        )
        .order_by("-pk")
        .values("total")[:1]
    )
    # (annotated: the rows stay CashReports, with ``filed_before`` besides)
    open_reports: QuerySet[CashReport] = cash_reports(
        casinos=casinos, status=CashReport.Status.OPEN
    ).annotate(filed_before=Subquery(filed_before))
    log = Paginator(cash_log(casinos=casinos, day=day), COMPLIANCE_PAGE_SIZE).get_page(log_page)
    to_file = Paginator(open_reports, COMPLIANCE_PAGE_SIZE).get_page(to_file_page)
    iso = day.isoformat()
    return CompliancePage(
        day=day,
        log=log,
        to_file=to_file,
        filed=list(cash_reports(casinos=casinos, start=day, end=day, status=CashReport.Status.FILED)),
        log_query=urlencode({"day": iso, TO_FILE_PAGE: to_file.number}),
        to_file_query=urlencode({"day": iso, LOG_PAGE: log.number}),
    )


def compliance_today(*, casinos: frozenset[int] | None, now: dt.datetime | None = None) -> dt.date:
    """The gaming day the page opens on: today's of the casinos the reader sees (``casinos``; None:
    every casino) when they are all on the same gaming day, as they always are when there is one
    or they share one boundary (one cut-off, one time zone): before the cut-off, the night's day
    still. Only when their days differ now (casinos in other time zones, other cut-offs), or he
    sees none, today by the calendar of no casino (midnight to midnight, UTC)."""
    now = now or timezone.now()
    seen = in_casinos(Casino.objects.order_by(), casinos, "pk").only("gaming_day_cutoff", "time_zone")
    days = {casino_calendar(casino).today(now) for casino in seen}
    if len(days) == 1:
        return days.pop()
    return casino_calendar(None).today(now)
