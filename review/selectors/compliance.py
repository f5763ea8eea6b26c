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
from tables.permissions import in_casinos


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
