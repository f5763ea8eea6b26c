"""Beat's report schedules, per casino, in its own time zone (django-celery-beat's database
schedules, editable in /admin/ "Periodic tasks"; docs/reports.md).

For each casino, after its gaming day's cut-off (local time) has passed:

- ``daily close``: levy, fees and house win of the gaming day just closed (cut-off + 30 min);
- ``month to date``: the levy from the 1st of the month to that day (cut-off + 45 min);
- ``year to date``: the levy from 1 January to that day, every Monday (cut-off + 60 min): a
  year of coups is the longest read there is, so once a week rather than nightly.

Each is a ``reports.scheduled`` task (reports/tasks.py) whose kwargs name the casino, the kinds
and the preset. ``manage.py report_schedules`` creates the missing ones for every casino
(idempotent: by name; ``--reset`` restores the defaults); an administrator may then change their
time, disable them or add others in the admin. Beat itself copies settings.CELERY_BEAT_SCHEDULE
(the system's own tasks: the nightly audit verification, the anchor, the books, fees, outbox) into
the same tables at every start.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from tables.gaming_day import GamingCalendar

TODAY, YESTERDAY, MONTH_TO_DATE, YEAR_TO_DATE = "today", "yesterday", "mtd", "ytd"
PRESETS = (TODAY, YESTERDAY, MONTH_TO_DATE, YEAR_TO_DATE)


def preset_period(preset: str, calendar: GamingCalendar, now: dt.datetime) -> tuple[dt.date, dt.date]:
    """The gaming days a preset covers: ``today`` the gaming day still being played at ``now`` (what
    the night has done so far: a figure that will still grow), the others ending with the last
    gaming day closed."""
    if preset == TODAY:
        day = calendar.today(now)
        return day, day
    closed = calendar.today(now) - dt.timedelta(days=1)
    if preset == YESTERDAY:
        return closed, closed
    if preset == MONTH_TO_DATE:
        return closed.replace(day=1), closed
    if preset == YEAR_TO_DATE:
        return closed.replace(month=1, day=1), closed
    raise ValueError(f"unknown preset {preset!r}")


@dataclass(frozen=True, slots=True)
class ReportSchedule:
    slug: str
    title: str
    kinds: tuple[str, ...]
    preset: str
    after_cutoff: dt.timedelta
    day_of_week: str = "*"


_MIN = dt.timedelta(minutes=1)
SCHEDULES = (
    ReportSchedule("daily-close", "daily close", ("levy", "fees", "house-win"), YESTERDAY, 30 * _MIN),
    ReportSchedule("month-to-date", "month-to-date levy", ("levy",), MONTH_TO_DATE, 45 * _MIN),
    ReportSchedule("year-to-date", "year-to-date levy", ("levy",), YEAR_TO_DATE, 60 * _MIN, "1"),
)


def schedule_name(schedule: ReportSchedule, casino_id: int) -> str:
    return f"reports:{schedule.slug}:casino-{casino_id}"


def schedules_install(*, casinos: Any = None, reset: bool = False) -> list[str]:
    """Create every casino's missing report schedules (by name); with ``reset``, put existing ones
    back to these defaults too (otherwise an administrator's edits are kept). The names written."""
    from django.db import transaction
    from django_celery_beat.models import CrontabSchedule, PeriodicTask

    from tables.models import Casino

    names = []
    with transaction.atomic():
        for casino in casinos if casinos is not None else Casino.objects.order_by("pk"):
            cutoff = dt.datetime.combine(dt.date(2000, 1, 1), casino.gaming_day_cutoff)
            for schedule in SCHEDULES:
                at = cutoff + schedule.after_cutoff
                crontab, _ = CrontabSchedule.objects.get_or_create(
                    minute=str(at.minute),
                    hour=str(at.hour),
                    day_of_week=schedule.day_of_week,
                    day_of_month="*",
                    month_of_year="*",
                    timezone=casino.time_zone,
                )
                name = schedule_name(schedule, casino.pk)
                if not reset and PeriodicTask.objects.filter(name=name).exists():
                    continue
                PeriodicTask.objects.update_or_create(
                    name=name,
                    defaults={
                        "task": "reports.scheduled",
                        "enabled": True,
                        "crontab": crontab,
                        "interval": None,
                        "kwargs": json.dumps(
                            {
                                "casino_id": casino.pk,
                                "kinds": list(schedule.kinds),
                                "preset": schedule.preset,
                                "schedule": name,
                            }
                        ),
                        "queue": "reports",
                        "description": f"{casino.name}: {schedule.title}, after the gaming day's cut-off",
                    },
                )
                names.append(name)
    return names
