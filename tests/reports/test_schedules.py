"""Beat's report schedules: per casino, after its cut-off in its time zone, in the database
(django-celery-beat); the scheduled task asks for the runs as the scheduler; presets in gaming days."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core.management import call_command
from django_celery_beat.models import PeriodicTask

from audit.models import AuditEvent
from reports.kinds import KINDS
from reports.models import ReportRun
from reports.schedules import preset_period, schedules_install
from reports.tasks import report_scheduled_task
from tables.gaming_day import GamingCalendar, casino_calendar
from tests.factories import CasinoFactory

PARIS = GamingCalendar(cutoff=dt.time(6, 0), time_zone="Europe/Paris")


@pytest.mark.parametrize(
    ("preset", "at", "expected"),
    [
        # 05:59 Paris on 3 March is still gaming day 2 March: yesterday is 1 March
        (
            "yesterday",
            dt.datetime(2026, 3, 3, 5, 59, tzinfo=ZoneInfo("Europe/Paris")),
            ("2026-03-01", "2026-03-01"),
        ),
        (
            "yesterday",
            dt.datetime(2026, 3, 3, 6, 0, tzinfo=ZoneInfo("Europe/Paris")),
            ("2026-03-02", "2026-03-02"),
        ),
        ("mtd", dt.datetime(2026, 3, 1, 7, 0, tzinfo=ZoneInfo("Europe/Paris")), ("2026-02-01", "2026-02-28")),
        ("ytd", dt.datetime(2026, 3, 3, 7, 0, tzinfo=ZoneInfo("Europe/Paris")), ("2026-01-01", "2026-03-02")),
    ],
)
def test_presets_end_with_the_last_gaming_day_closed(preset, at, expected) -> None:
    start, end = preset_period(preset, PARIS, at)
    assert (start.isoformat(), end.isoformat()) == expected


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        # 05:59 Paris on 3 March: the night of 2 March is still being played
        (dt.datetime(2026, 3, 3, 5, 59, tzinfo=ZoneInfo("Europe/Paris")), "2026-03-02"),
        (dt.datetime(2026, 3, 3, 6, 0, tzinfo=ZoneInfo("Europe/Paris")), "2026-03-03"),
        (dt.datetime(2026, 3, 3, 23, 59, tzinfo=ZoneInfo("Europe/Paris")), "2026-03-03"),
    ],
)
def test_today_is_the_gaming_day_being_played(at, expected) -> None:
    start, end = preset_period("today", PARIS, at)
    assert (start.isoformat(), end.isoformat()) == (expected, expected)


@pytest.mark.django_db
def test_every_casino_gets_its_schedules_after_its_cutoff_in_its_time_zone() -> None:
    casino = CasinoFactory(time_zone="Europe/Paris", gaming_day_cutoff=dt.time(5, 45))
    names = schedules_install(casinos=[casino])
    assert names == [
        f"reports:{slug}:casino-{casino.pk}" for slug in ("daily-close", "month-to-date", "year-to-date")
    ]
    tasks = {t.name: t for t in PeriodicTask.objects.filter(name__in=names).select_related("crontab")}
    close = tasks[names[0]]
    assert (close.task, close.queue, close.enabled) == ("reports.scheduled", "reports", True)
    assert (close.crontab.hour, close.crontab.minute, close.crontab.day_of_week) == ("6", "15", "*")
    assert str(close.crontab.timezone) == "Europe/Paris"
    assert json.loads(close.kwargs) == {
        "casino_id": casino.pk,
        "kinds": ["levy", "fees", "house-win"],
        "preset": "yesterday",
        "schedule": names[0],
    }
    ytd = tasks[names[2]]
    assert (ytd.crontab.hour, ytd.crontab.minute, ytd.crontab.day_of_week) == ("6", "45", "1")
    assert json.loads(ytd.kwargs)["preset"] == "ytd"


@pytest.mark.django_db
def test_installing_again_keeps_an_administrators_edits_unless_reset() -> None:
    casino = CasinoFactory()
    schedules_install(casinos=[casino])
    close = PeriodicTask.objects.get(name=f"reports:daily-close:casino-{casino.pk}")
    close.enabled = False
    close.save()
    assert schedules_install(casinos=[casino]) == []
    assert PeriodicTask.objects.filter(name__startswith="reports:").count() == 3
    assert not PeriodicTask.objects.get(pk=close.pk).enabled
    call_command("report_schedules", "--reset", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert PeriodicTask.objects.get(pk=close.pk).enabled


@pytest.mark.django_db
def test_the_scheduled_task_asks_for_the_runs_as_the_scheduler() -> None:
    casino = CasinoFactory(time_zone="America/New_York")
    ids = report_scheduled_task(
        casino_id=casino.pk, kinds=["levy", "fees", "house-win", "payroll"], preset="yesterday"
    )
    runs = list(ReportRun.objects.filter(pk__in=ids).order_by("pk"))
    expected = [k for k in ("levy", "fees", "house-win") if k in KINDS and "csv" in KINDS[k].formats]
    assert [r.kind for r in runs] == expected  # unknown kinds skipped, the others asked for
    from django.utils import timezone

    yesterday = casino_calendar(casino).today(timezone.now()) - dt.timedelta(days=1)
    for run in runs:
        assert (run.start, run.end, run.casino_id, run.format) == (yesterday, yesterday, casino.pk, "csv")
        assert (run.requested_by, run.requested_label) == (None, "scheduler")
    events = AuditEvent.objects.filter(action="reports.reportrun.request")
    assert [(e.actor_label, (e.after or {})["requested_by"]) for e in events] == [
        ("system", "scheduler")
    ] * len(runs)
    # beat firing twice (or a redelivery) while they are queued asks for nothing more
    assert (
        report_scheduled_task(casino_id=casino.pk, kinds=["levy", "fees", "house-win"], preset="yesterday")
        == ids[: len(runs)]
    )
    assert ReportRun.objects.count() == len(runs)


@pytest.mark.django_db
def test_a_schedule_of_a_casino_gone_asks_for_nothing() -> None:
    assert report_scheduled_task(casino_id=424242, kinds=["levy"], preset="yesterday") == []
    assert not ReportRun.objects.exists()


def test_beat_reads_its_schedules_from_the_database_and_keeps_the_system_ones() -> None:
    assert settings.CELERY_BEAT_SCHEDULER == "django_celery_beat.schedulers:DatabaseScheduler"
    # the system's own schedules stay in settings; the DatabaseScheduler copies them in at start
    assert settings.CELERY_BEAT_SCHEDULE["audit-verify-chain"]["task"] == "audit.verify_chain"
    assert settings.CELERY_TASK_ROUTES["reports.run"] == {"queue": "reports"}
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] >= 1800


@pytest.mark.django_db
def test_the_database_scheduler_installs_the_system_schedules() -> None:
    from django_celery_beat.schedulers import ModelEntry

    from casino.celery import app

    # what DatabaseScheduler.setup_schedule does with the settings' schedule at every start
    for name, entry in app.conf.beat_schedule.items():
        ModelEntry.from_entry(name, app=app, **entry)
    names = set(PeriodicTask.objects.values_list("name", flat=True))
    assert set(settings.CELERY_BEAT_SCHEDULE) <= names
