"""Reads for compliance's page (docs/compliance.md): a gaming day's cash-transaction log, the
reports still to file and those filed for that day, in the casinos the reader works for."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from compliance.models import CashLogEntry, CashReport
from compliance.selectors import cash_log, cash_reports
from tables.gaming_day import casino_calendar
from tables.models import Casino


@dataclass(frozen=True, slots=True)
class CompliancePage:
    day: dt.date
    log: list[CashLogEntry]  # the day's entries, newest first
    to_file: list[CashReport]  # every report still open, oldest day first
    filed: list[CashReport]  # the day's reports already filed


def compliance_page(*, casinos: frozenset[int] | None, day: dt.date) -> CompliancePage:
    return CompliancePage(
        day=day,
        log=list(cash_log(casinos=casinos, day=day)),
        to_file=list(cash_reports(casinos=casinos, status=CashReport.Status.OPEN)),
        filed=list(cash_reports(casinos=casinos, start=day, end=day, status=CashReport.Status.FILED)),
    )


def compliance_today(*, casinos: frozenset[int] | None) -> dt.date:
    """The gaming day the page opens on: the reader's casino's today when he works for one,
    else today by the calendar of no casino (midnight to midnight, UTC)."""
    only = Casino.objects.get(pk=next(iter(casinos))) if casinos is not None and len(casinos) == 1 else None
    return casino_calendar(only).today(timezone.now())
