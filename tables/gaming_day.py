"""The gaming day: the casino's accounting day, which ends at a cut-off (06:00 by default) in the
casino's time zone rather than at midnight, so that a night's play is reported on the day it began.

Pure date arithmetic (no ORM): every report, rollup and dashboard that groups by day asks these
functions, so one casino's days are the same everywhere; ``Period``, the whole days a page or a
report covers, is counted in them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from django.core.exceptions import ValidationError
from django.utils import timezone

from core.sentence import said

DEFAULT_CUTOFF = dt.time(6, 0)
#: the first and the last instant a day's bound may be: a day at the ends of the calendar (year 1,
#: 9999-12-31) has no day after it, and its start may not be an instant in UTC; its bound is then
#: one of these (nothing was played there: the forms refuse such days, core.widgets.day_supported)
EARLIEST = dt.datetime.min.replace(tzinfo=dt.UTC)
LATEST = dt.datetime.max.replace(tzinfo=dt.UTC)


def _day_start(day: dt.date, at: dt.time, tz: dt.tzinfo) -> dt.datetime:
    """When ``day`` begins at ``at`` in ``tz`` (aware), or ``EARLIEST``/``LATEST`` when that is off
    the calendar in UTC (where the database compares it)."""
    start = dt.datetime.combine(day, at, tzinfo=tz)
    try:
        start.astimezone(dt.UTC)
    except OverflowError:
        return EARLIEST if day.year == dt.MINYEAR else LATEST
    return start


def _day_after_start(day: dt.date, at: dt.time, tz: dt.tzinfo) -> dt.datetime:
    """When the day after ``day`` begins: ``LATEST`` after the calendar's last day."""
    if day == dt.date.max:
        return LATEST
    return _day_start(day + dt.timedelta(days=1), at, tz)


def validate_time_zone(name: str) -> None:
    """Refuse a time zone name the tz database does not know (a typo would shift every report)."""
    if name not in available_timezones():
        raise ValidationError(
            said("Unknown time zone {name!r}; use an IANA name such as Europe/Paris.", name=name)
        )


@dataclass(frozen=True, slots=True)
class GamingCalendar:
    """A casino's cut-off and time zone."""

    cutoff: dt.time = DEFAULT_CUTOFF
    time_zone: str = "UTC"

    @property
    def tz(self) -> ZoneInfo:
        try:
            return ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):  # validated on input; never fail a report on it
            return ZoneInfo("UTC")

    def day_of(self, at: dt.datetime) -> dt.date:
        """The gaming day an instant belongs to: before the cut-off it is still the previous day."""
        local = at.astimezone(self.tz)
        day = local.date()
        return day - dt.timedelta(days=1) if local.time() < self.cutoff else day

    def day_start(self, day: dt.date) -> dt.datetime:
        """When gaming day ``day`` begins (its cut-off, local time), as an aware datetime
        (``EARLIEST`` or ``LATEST`` at the ends of the calendar)."""
        return _day_start(day, self.cutoff, self.tz)

    def bounds(self, start: dt.date, end: dt.date) -> tuple[dt.datetime, dt.datetime]:
        """[start of gaming day ``start``, start of the day after ``end``): never past the ends of
        the calendar (``EARLIEST``, ``LATEST``)."""
        return self.day_start(start), _day_after_start(end, self.cutoff, self.tz)

    def today(self, now: dt.datetime) -> dt.date:
        return self.day_of(now)


def gaming_day_sql(column: str, *, tz: str, cutoff: str, vendor: str = "postgresql") -> str:
    """``GamingCalendar.day_of`` in SQL: the gaming day of the instant in ``column``, its local
    wall time less the cut-off, as a date. ``tz`` and ``cutoff`` are SQL: parameters (``%(tz)s``)
    or columns (``ca.time_zone``); ``cutoff`` is a time of day (a ``time`` column, or text such
    as ``'06:00:00'``). One definition for the reports and the rollups, so their days never differ.

    ``vendor`` is the database's (``connection.vendor``): PostgreSQL computes it with its own time
    zones; SQLite, which has none, calls ``gaming_day()``, this module's ``sqlite_gaming_day``
    registered on every SQLite connection (tables/apps.py): the calendar's own ``day_of``. Its
    value is ISO text there (SQLite has no date type): read it with ``sql_date``."""
    if vendor == "sqlite":
        return f"gaming_day({column}, {tz}, {cutoff})"
    return f"(({column} AT TIME ZONE {tz}) - CAST({cutoff} AS interval))::date"


def sqlite_gaming_day(at: str | None, time_zone: str, cutoff: str) -> str | None:
    """SQLite's ``gaming_day(instant, time zone, cut-off)``: an instant as Django stores it there
    (UTC text, ``2026-12-01 04:59:59.5``), the day as ISO text."""
    if at is None:
        return None
    instant = dt.datetime.fromisoformat(at)
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=dt.UTC)
    calendar = GamingCalendar(cutoff=dt.time.fromisoformat(cutoff), time_zone=time_zone)
    return calendar.day_of(instant).isoformat()


def sql_date(value: dt.date | str) -> dt.date:
    """A date read from SQL: PostgreSQL gives a date, SQLite its ISO text."""
    return dt.date.fromisoformat(value) if isinstance(value, str) else value


def casino_calendar(casino: object | None) -> GamingCalendar:
    """A casino's calendar (``None``: midnight-to-midnight UTC, for reports across casinos)."""
    if casino is None:
        return GamingCalendar(cutoff=dt.time.min, time_zone="UTC")
    return GamingCalendar(
        cutoff=getattr(casino, "gaming_day_cutoff", DEFAULT_CUTOFF),
        time_zone=getattr(casino, "time_zone", "UTC"),
    )


@dataclass(frozen=True, slots=True)
class Period:
    """Whole days, ``start`` to ``end`` inclusive: a casino's gaming days when ``calendar`` is
    given, else local midnight-to-midnight days (settings.TIME_ZONE)."""

    start: dt.date
    end: dt.date
    calendar: GamingCalendar | None = None

    @property
    def bounds(self) -> tuple[dt.datetime, dt.datetime]:
        """[start of day ``start``, start of the day after ``end``) as aware datetimes, never past
        the ends of the calendar (``EARLIEST``, ``LATEST``)."""
        if self.calendar is not None:
            return self.calendar.bounds(self.start, self.end)
        tz = timezone.get_current_timezone()
        return _day_start(self.start, dt.time.min, tz), _day_after_start(self.end, dt.time.min, tz)

    @property
    def label(self) -> str:
        return f"{self.start:%Y-%m-%d}_{self.end:%Y-%m-%d}"

    @classmethod
    def last_days(cls, days: int = 7, *, today: dt.date | None = None) -> Period:
        today = today or timezone.localdate()
        return cls(start=today - dt.timedelta(days=days - 1), end=today)
