"""core/embedded_beat.py: beat's floor work under ``make run`` (no broker). Where it starts (the
development server's serving process only), when an entry is due, one tick at a time (in the
process and across processes), a failing task never stopping the others, and the real entries
raising the pit boss's alerts with no dashboard open, once."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

import pytest
from celery import shared_task
from celery.result import denied_join_result
from celery.schedules import crontab
from django.test import override_settings
from django.utils import timezone

from core import embedded_beat
from core.embedded_beat import EmbeddedBeat, floor_entries, wanted
from review.models import Alert, AlertKind, AlertScan
from tests.review.history import play_flagged
from tests.tables.play import open_floor

START = dt.datetime(2026, 3, 2, 21, 0, 30, tzinfo=dt.UTC)


class Clock:
    def __init__(self, now: dt.datetime = START) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def forward(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


class Recorder:
    """Stands for Celery's ``apply``: what was run, in order; a task named ``boom`` fails."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __call__(self, task: str, args: Any, kwargs: Any) -> None:
        self.calls.append((task, tuple(args)))
        if task == "boom":
            raise RuntimeError("the task failed")


# --------------------------------------------------------------------------------- where it runs
BROKERLESS = {"EMBEDDED_BEAT": True, "CELERY_BROKER_URL": "", "CELERY_TASK_ALWAYS_EAGER": True}


@pytest.mark.parametrize(
    ("argv", "environ", "overrides", "expected"),
    [
        (["manage.py", "runserver", "127.0.0.1:8000"], {"RUN_MAIN": "true"}, {}, True),  # the server
        (["manage.py", "runserver", "--noreload"], {}, {}, True),
        (["manage.py", "runserver"], {}, {}, False),  # the autoreloader's watcher: its child serves
        (["manage.py", "migrate"], {"RUN_MAIN": "true"}, {}, False),  # a management command
        (["manage.py", "load_demo"], {}, {}, False),
        (["gunicorn", "casino.wsgi:application"], {}, {}, False),  # production's server
        (["pytest", "tests"], {}, {}, False),
        (["manage.py", "runserver"], {"RUN_MAIN": "true"}, {"CELERY_BROKER_URL": "redis://r:6379/0"}, False),
        (["manage.py", "runserver"], {"RUN_MAIN": "true"}, {"CELERY_TASK_ALWAYS_EAGER": False}, False),
        (["manage.py", "runserver"], {"RUN_MAIN": "true"}, {"EMBEDDED_BEAT": False}, False),
    ],
)
def test_only_the_development_servers_serving_process_without_a_broker_runs_it(
    argv: list[str], environ: dict[str, str], overrides: dict[str, Any], expected: bool
) -> None:
    with override_settings(**{**BROKERLESS, **overrides}):
        assert wanted(argv, environ) is expected


def test_the_test_settings_and_production_never_run_it() -> None:
    from django.conf import settings

    assert settings.EMBEDDED_BEAT is False  # casino.settings.test
    production = Path(embedded_beat.__file__).parents[1] / "casino" / "settings" / "production.py"
    assert "EMBEDDED_BEAT = False" in production.read_text()


def test_it_runs_the_floors_entries_of_beats_schedule() -> None:
    from django.conf import settings

    assert {name: e["task"] for name, e in floor_entries().items()} == {
        "review-alerts-raise": "review.alerts_raise",
        "tables-rollups-refresh": "tables.rollups_refresh",
        "ledger-bill-due-hourly-fees": "ledger.bill_due_hourly_fees",
        "core-outbox-drain": "core.outbox_drain",
        "core-summarise-login-failures": "core.summarise_login_failures",
        "reports-requeue-stalled": "reports.requeue_stalled",
    }
    assert set(floor_entries()) <= set(settings.CELERY_BEAT_SCHEDULE)


# --------------------------------------------------------------------------------- when it runs
def test_entries_run_when_due_as_beat_would_run_them() -> None:
    clock, run = Clock(), Recorder()
    beat = EmbeddedBeat(
        {
            "minute": {"task": "every.minute", "schedule": 60.0},
            "five": {"task": "every.five", "schedule": 300, "args": [1]},
            "hourly": {"task": "at.five.past", "schedule": crontab(minute=5)},
        },
        clock=clock,
        run=run,
    )
    assert beat.tick() == []  # just started (21:00:30): nothing due yet
    clock.forward(59)
    assert beat.tick() == []
    clock.forward(1)  # 21:01:30
    assert beat.tick() == ["minute"] and run.calls == [("every.minute", ())]
    assert beat.tick() == []  # not twice in the same minute
    clock.forward(240)  # 21:05:30: the minute again, the five minutes, and five past the hour
    assert beat.tick() == ["minute", "five", "hourly"]
    assert run.calls[1:] == [("every.minute", ()), ("every.five", (1,)), ("at.five.past", ())]
    clock.forward(60)
    assert beat.tick() == ["minute"]  # the hourly one waits for 22:05


def test_a_failing_task_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    clock, run = Clock(), Recorder()
    beat = EmbeddedBeat(
        {"a": {"task": "boom", "schedule": 60}, "b": {"task": "fine", "schedule": 60}}, clock=clock, run=run
    )
    clock.forward(60)
    assert beat.tick() == ["a", "b"]
    assert [task for task, _ in run.calls] == ["boom", "fine"]
    assert "embedded beat: a (boom) failed" in caplog.text and "the task failed" in caplog.text
    clock.forward(60)
    assert beat.tick() == ["a", "b"]  # and it is tried again at its next time


@shared_task(name="tests.embedded_beat.answer")
def _answer() -> int:
    return 42


def test_a_task_due_while_an_eager_task_runs_in_another_thread_is_run(caplog) -> None:
    """While any eager task runs (a report a request runs in its own thread, with tasks in-process),
    Celery holds a flag of the whole process that refuses ``.get()`` "within a task": the embedded
    beat's next due task ran, then failed on it ("Never call result.get() within a task!")."""
    with denied_join_result():  # what Task.apply holds for as long as that eager task runs
        assert EmbeddedBeat._apply("tests.embedded_beat.answer", (), {}) == 42
    clock = Clock()
    beat = EmbeddedBeat({"answer": {"task": "tests.embedded_beat.answer", "schedule": 60}}, clock=clock)
    clock.forward(60)
    with denied_join_result():
        assert beat.tick() == ["answer"]
    assert "failed" not in caplog.text


def test_never_two_ticks_at_once_in_the_process() -> None:
    clock = Clock()
    entered, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow(task: str, args: Any, kwargs: Any) -> None:
        calls.append(task)
        entered.set()
        release.wait(10)

    beat = EmbeddedBeat({"a": {"task": "slow", "schedule": 60}}, clock=clock, run=slow)
    clock.forward(60)
    first = threading.Thread(target=beat.tick)
    first.start()
    assert entered.wait(10)
    clock.forward(60)  # due again, but the first tick still runs it
    assert beat.tick() == []
    release.set()
    first.join(10)
    assert calls == ["slow"]


def test_never_two_ticks_at_once_across_processes(tmp_path: Path) -> None:
    import fcntl

    clock, run = Clock(), Recorder()
    lock = tmp_path / "embedded-beat.lock"
    beat = EmbeddedBeat({"a": {"task": "a", "schedule": 60}}, clock=clock, run=run, lock_path=lock)
    clock.forward(60)
    with lock.open("a") as other:  # another server's tick holds the file's lock
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert beat.tick() == [] and run.calls == []
        fcntl.flock(other, fcntl.LOCK_UN)
    assert beat.tick() == ["a"] and run.calls == [("a", ())]


# ------------------------------------------------------------------- the real entries, the real tasks
@pytest.mark.django_db
def test_the_alerts_are_raised_with_no_dashboard_open_and_only_once(croupier, table) -> None:
    floor = open_floor(croupier, table)
    flagged = play_flagged(floor)
    clock = Clock(timezone.now().replace(minute=20, second=0))  # away from five past the hour
    beat = EmbeddedBeat(floor_entries(), clock=clock)
    assert not Alert.objects.exists()
    clock.forward(60)
    assert beat.tick() == [
        "review-alerts-raise",
        "tables-rollups-refresh",
        "core-outbox-drain",
        "reports-requeue-stalled",
    ]
    alert = Alert.objects.get(kind=AlertKind.FLAGGED_COUP)
    assert alert.coup_id == flagged.pk and alert.acknowledged_at is None
    scanned = AlertScan.objects.get().scanned_at
    clock.forward(60)
    assert "review-alerts-raise" in beat.tick()
    assert Alert.objects.filter(kind=AlertKind.FLAGGED_COUP).count() == 1  # the same condition: one alert
    assert AlertScan.objects.get().scanned_at > scanned


def test_the_servers_thread_ticks_until_told_to_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    ticked = threading.Event()
    monkeypatch.setattr(embedded_beat, "FIRST_TICK_SECONDS", 0.01)
    monkeypatch.setattr(embedded_beat, "TICK_SECONDS", 0.01)

    def tick(self: EmbeddedBeat) -> list[str]:
        ticked.set()
        return []

    monkeypatch.setattr(EmbeddedBeat, "tick", tick)
    stop = threading.Event()
    thread = embedded_beat.start(stop)
    try:
        assert thread.daemon and thread.name == "embedded-beat"
        assert ticked.wait(5)
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()
