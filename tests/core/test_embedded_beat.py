"""core/embedded_beat.py: beat's floor work under ``make run`` (no broker). Where it starts (the
development server's serving process only), when an entry is due, one tick at a time (in the
process and across processes), a failing task never stopping the others, and the real entries
raising the pit boss's alerts with no dashboard open, once."""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from celery import shared_task
from celery.result import denied_join_result
from celery.schedules import crontab
from django.test import override_settings
from django.utils import timezone

from core import embedded_beat
from core.embedded_beat import EmbeddedBeat, check_entries, floor_entries, recorded_runs, wanted
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


# ------------------------------------------------------------------------------ the checks' thread
def test_it_runs_productions_checks_at_productions_intervals_in_their_own_thread() -> None:
    from django.conf import settings

    assert {name: e["task"] for name, e in check_entries().items()} == {
        "audit-anchor-head": "audit.anchor_head",
        "audit-verify-chain": "audit.verify_chain",
        "books-verify": "books.verify",
    }
    assert {name: e["schedule"] for name, e in check_entries().items()} == {
        "audit-anchor-head": settings.AUDIT_ANCHOR_EVERY_MINUTES * 60,  # 5 minutes
        "audit-verify-chain": 24 * 60 * 60,
        "books-verify": 24 * 60 * 60,
    }
    assert all(e is settings.CELERY_BEAT_SCHEDULE[name] for name, e in check_entries().items())
    assert not set(check_entries()) & set(floor_entries())
    assert set(recorded_runs()) == {"audit.anchor_head", "audit.verify_chain", "books.verify"}


def test_a_check_is_due_since_it_last_ran_as_it_records_it_not_since_the_server_started() -> None:
    clock, run = Clock(), Recorder()
    recorded: dict[str, dt.datetime | None] = {
        "daily.check": START - dt.timedelta(hours=23),
        "never.ran": None,
    }
    entries = {
        "daily": {"task": "daily.check", "schedule": 24 * 60 * 60},
        "first": {"task": "never.ran", "schedule": 24 * 60 * 60},
        "plain": {"task": "not.recorded", "schedule": 24 * 60 * 60},
    }
    readers = {task: (lambda task=task: recorded[task]) for task in recorded}
    beat = EmbeddedBeat(entries, clock=clock, run=run, recorded=readers)

    assert beat.tick() == ["first"]  # never ran: at once; the others ran (or the server started) lately
    assert beat.tick() == []
    recorded["never.ran"] = START  # it records its run (a nightly verification's row)
    clock.forward(60 * 60)  # 24 h since the daily one last ran, though the server started an hour ago
    assert beat.tick() == ["daily"]
    recorded["daily.check"] = clock.now

    restarted = EmbeddedBeat(entries, clock=clock, run=run, recorded=readers)  # make run, again
    assert restarted.tick() == []  # nothing ran twice for a restart
    clock.forward(23 * 60 * 60)
    assert restarted.tick() == ["first"]  # 24 h after its run, not after the restart
    assert [task for task, _ in run.calls] == ["never.ran", "daily.check", "never.ran"]


def test_a_check_whose_record_cannot_be_read_waits_its_interval_from_the_start(caplog) -> None:
    clock, run = Clock(), Recorder()

    def broken() -> dt.datetime | None:
        raise RuntimeError("no such table")

    entries = {"daily": {"task": "daily.check", "schedule": 3600}}
    beat = EmbeddedBeat(entries, clock=clock, run=run, recorded={"daily.check": broken})
    assert beat.tick() == []  # not every tick, for ever: as if it ran when the server started
    clock.forward(3600)
    assert beat.tick() == ["daily"]
    assert "when daily last ran could not be read" in caplog.text


def test_the_floor_keeps_its_minute_while_a_check_runs(
    settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole walk of the chains or the books takes minutes on a big database: the checks run in a
    thread of their own, and the floor's entries (the alerts of the minute) go on meanwhile."""
    settings.CELERY_BEAT_SCHEDULE = {
        "floor": {"task": "the.floor", "schedule": 0.01},
        "check": {"task": "a.long.check", "schedule": 0.01},
    }
    settings.EMBEDDED_BEAT_ENTRIES = ("check", "floor")
    settings.EMBEDDED_BEAT_CHECKS = ("check",)
    settings.EMBEDDED_BEAT_LAST_RUN = {}
    settings.VAR_DIR = tmp_path
    monkeypatch.setattr(embedded_beat, "FIRST_TICK_SECONDS", 0.01)
    monkeypatch.setattr(embedded_beat, "TICK_SECONDS", 0.01)
    checking, release = threading.Event(), threading.Event()
    floor_runs: list[str] = []

    def run(task: str, args: Any, kwargs: Any) -> None:
        if task == "a.long.check":
            checking.set()
            release.wait(10)
        else:
            floor_runs.append(threading.current_thread().name)

    monkeypatch.setattr(EmbeddedBeat, "_apply", staticmethod(run))  # how start()'s beats run a task
    stop = threading.Event()
    thread = embedded_beat.start(stop)
    try:
        assert checking.wait(5)
        seen = len(floor_runs)
        deadline = time.monotonic() + 5
        while len(floor_runs) < seen + 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(floor_runs) >= seen + 3  # the floor ticked on while the check ran
        assert set(floor_runs) == {"embedded-beat"}
        assert "embedded-beat-checks" in {t.name for t in threading.enumerate()}
    finally:
        release.set()
        stop.set()
        thread.join(5)
        for other in threading.enumerate():
            if other.name == "embedded-beat-checks":
                other.join(5)
    assert not thread.is_alive()


@pytest.mark.django_db
def test_the_real_checks_anchor_and_verify_on_a_new_install_then_wait_their_time(
    settings, tmp_path: Path, croupier, table
) -> None:
    from audit.models import ChainVerification
    from ledger.models import BooksVerification

    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "db.anchors.jsonl")
    open_floor(croupier, table)
    clock = Clock(timezone.now())
    beat = EmbeddedBeat(check_entries(), clock=clock, recorded=recorded_runs())

    assert beat.tick() == ["audit-anchor-head", "audit-verify-chain", "books-verify"]  # never ran yet

    assert (tmp_path / "db.anchors.jsonl").read_text().count("\n") == 2  # the global and the casino's
    nightly = ChainVerification.objects.filter(requested_by__isnull=True)
    assert nightly.count() == 2 and all(v.ok for v in nightly)  # checked against the anchors written
    assert BooksVerification.objects.get().status == BooksVerification.Status.OK
    assert beat.tick() == []
    restarted = EmbeddedBeat(check_entries(), clock=clock, recorded=recorded_runs())
    assert restarted.tick() == []  # the server started again: what ran is not run again
    clock.forward(5 * 60 + 1)  # the anchor was signed a moment after the clock was read
    assert restarted.tick() == ["audit-anchor-head"]
    clock.forward(24 * 60 * 60)
    assert restarted.tick() == ["audit-anchor-head", "audit-verify-chain", "books-verify"]
