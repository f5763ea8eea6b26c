"""The period a back-office page or export covers: whole local days (the ``Period`` value type)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

from tables.gaming_day import GamingCalendar


@dataclass(frozen=True, slots=True)
class Period:
    """Whole days, ``start`` to ``end`` inclusive: a casino's gaming days when ``calendar`` is
    given (tables/gaming_day.py), else local midnight-to-midnight days (settings.TIME_ZONE)."""

    start: dt.date
    end: dt.date
    calendar: GamingCalendar | None = None

    @property
    def bounds(self) -> tuple[dt.datetime, dt.datetime]:
        """[start of day ``start``, start of the day after ``end``) as aware datetimes."""
        if self.calendar is not None:
            return self.calendar.bounds(self.start, self.end)
        tz = timezone.get_current_timezone()
        return (
            dt.datetime.combine(self.start, dt.time.min, tzinfo=tz),
            dt.datetime.combine(self.end + dt.timedelta(days=1), dt.time.min, tzinfo=tz),
        )

    @property
    def label(self) -> str:
        return f"{self.start:%Y-%m-%d}_{self.end:%Y-%m-%d}"

    @classmethod
    def last_days(cls, days: int = 7, *, today: dt.date | None = None) -> Period:
        today = today or timezone.localdate()
        return cls(start=today - dt.timedelta(days=days - 1), end=today)
