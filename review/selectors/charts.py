"""Reads for the charts page (docs/review.md, "Charts"): a casino's levy hold per gaming day
beside the odds engine's expectation, and the coups per hour of each of its tables over the last
24 hours. The SVG geometry is review/charts.py."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from fractions import Fraction

from django.db.models import Count, Sum
from django.db.models.functions import TruncHour

from review.selectors.dashboard import LevyHold
from tables.gaming_day import casino_calendar
from tables.models import Casino, Coup, Table, TableDay


@dataclass(frozen=True)
class DayHold(LevyHold):
    day: dt.date
    coups: int
    covered: int
    levy: int
    expected_levy: Fraction


def hold_by_gaming_day(*, casino: Casino, days: int, now: dt.datetime) -> list[DayHold]:
    """The last ``days`` gaming days of ``casino`` (today's included), oldest first, each with
    the coups settled in it: covered stakes, levy, and the expected levy (from the rollups,
    ``TableDay``: one row per table and day, whatever the number of coups)."""
    last = casino_calendar(casino).today(now)
    first = last - dt.timedelta(days=days - 1)
    totals = {
        r["gaming_day"]: r
        for r in TableDay.objects.filter(casino=casino, gaming_day__gte=first, gaming_day__lte=last)
        .values("gaming_day")
        .annotate(
            coups=Sum("coups"), covered=Sum("covered"), levy=Sum("levy"), expected=Sum("expected_levy_micro")
        )
        .order_by()
    }
    result = []
    for n in range(days):
        day = first + dt.timedelta(days=n)
        t = totals.get(day)
        if t is None:
            result.append(DayHold(day, 0, 0, 0, Fraction(0)))
        else:
            expected = Fraction(t["expected"], 1_000_000)
            result.append(DayHold(day, t["coups"], t["covered"], t["levy"], expected))
    return result


@dataclass(frozen=True)
class TableHours:
    table: Table
    hours: list[tuple[dt.datetime, int]]  # (hour start, local time; coups begun in it), oldest first

    @property
    def total(self) -> int:
        return sum(n for _, n in self.hours)


def coups_per_hour(*, casino: Casino, now: dt.datetime, hours: int = 24) -> list[TableHours]:
    """Coups begun in each of the last ``hours`` hours (the current one included), per table of
    ``casino`` that had one; hours in the casino's time zone."""
    tz = casino_calendar(casino).tz
    current = now.astimezone(tz).replace(minute=0, second=0, microsecond=0)
    starts = [current - dt.timedelta(hours=hours - 1 - n) for n in range(hours)]
    counts: dict[int, dict[dt.datetime, int]] = {}
    for table_id, hour, n in (
        Coup.objects.filter(shoe__table__casino=casino, shoe__imported=False, created_at__gte=starts[0])
        .annotate(hour=TruncHour("created_at", tzinfo=tz))
        .values("shoe__table_id", "hour")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("shoe__table_id", "hour", "n")
    ):
        counts.setdefault(table_id, {})[hour] = n
    tables = Table.objects.filter(pk__in=list(counts)).order_by("name", "pk")
    return [TableHours(t, [(h, counts[t.pk].get(h, 0)) for h in starts]) for t in tables]
