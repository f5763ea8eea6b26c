"""Reads for the charts page (docs/review.md, "Charts"): a casino's levy hold per gaming day
beside the odds engine's expectation, and the coups per hour of each of its tables over the last
24 hours. The SVG geometry is review/charts.py."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import Count, DateTimeField, ExpressionWrapper, F, Sum, Value
from django.db.models.functions import TruncDate, TruncHour

from review.selectors.dashboard import expected_levy_per_unit
from review.wording import percent
from tables.gaming_day import casino_calendar
from tables.models import BankTax, Bet, Casino, Coup, Table
from tables.rules.profiles import profile_from_dict


@dataclass(frozen=True)
class DayHold:
    day: dt.date
    coups: int
    covered: int
    levy: int
    expected_levy: Fraction  # Σ covered * the engine's expected levy per unit, per (profile, decks, rate)

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.levy, self.covered) if self.covered else None

    @property
    def expected(self) -> Fraction | None:
        return self.expected_levy / self.covered if self.covered else None

    @property
    def hold_display(self) -> str:
        return percent(self.hold, 3)

    @property
    def expected_display(self) -> str:
        return percent(self.expected, 3)


def _gaming_day(field: str, casino: Casino) -> TruncDate:
    """The gaming day of ``field`` in SQL: the local date of the instant less the cut-off (so
    05:59 belongs to the day before with a 06:00 cut-off). Across a DST change the local cut-off
    moves by the hour the clocks did, as in ``GamingCalendar.day_of``."""
    calendar = casino_calendar(casino)
    shift = dt.timedelta(
        hours=calendar.cutoff.hour, minutes=calendar.cutoff.minute, seconds=calendar.cutoff.second
    )
    shifted = ExpressionWrapper(F(field) - Value(shift), output_field=DateTimeField())
    return TruncDate(shifted, tzinfo=calendar.tz)


def hold_by_gaming_day(*, casino: Casino, days: int, now: dt.datetime) -> list[DayHold]:
    """The last ``days`` gaming days of ``casino`` (today's included), oldest first, each with
    the coups settled in it: covered stakes, levy, and the expected levy."""
    calendar = casino_calendar(casino)
    last = calendar.today(now)
    first = last - dt.timedelta(days=days - 1)
    start, end = calendar.bounds(first, last)
    coups = Coup.objects.filter(
        state=Coup.State.SETTLED, settled_at__gte=start, settled_at__lt=end, shoe__table__casino=casino
    )
    groups = (
        Bet.objects.filter(coup__in=coups, withdrawn=False)
        .annotate(day=_gaming_day("coup__settled_at", casino))
        .values("day", "coup__shoe__decks", "coup__rules")
        .annotate(covered=Sum("amount"), coups=Count("coup", distinct=True))
        .order_by()
    )
    levies = dict(
        BankTax.objects.filter(coup__in=coups)
        .annotate(day=_gaming_day("coup__settled_at", casino))
        .values("day")
        .annotate(levy=Sum("amount"))
        .order_by()
        .values_list("day", "levy")
    )
    totals: dict[dt.date, dict[str, Any]] = {}
    for g in groups:
        rules = g["coup__rules"]
        per_unit = expected_levy_per_unit(
            profile_from_dict(rules["profile"]), g["coup__shoe__decks"], rules["levy"]["rate_bp"]
        )
        t = totals.setdefault(g["day"], {"coups": 0, "covered": 0, "expected": Fraction(0)})
        t["coups"] += g["coups"]
        t["covered"] += g["covered"]
        t["expected"] += per_unit * g["covered"]
    result = []
    for n in range(days):
        day = first + dt.timedelta(days=n)
        t = totals.get(day, {"coups": 0, "covered": 0, "expected": Fraction(0)})
        result.append(DayHold(day, t["coups"], t["covered"], levies.get(day, 0), t["expected"]))
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
