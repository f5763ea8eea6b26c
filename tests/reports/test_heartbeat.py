"""A report run's heartbeat (issue 20, item 8): the writing worker says it is alive as it goes; a
run left "running" by a worker that stopped beating (killed, out of memory) is queued again by
beat within REPORTS_STALE_SECONDS + REPORTS_REQUEUE_EVERY_SECONDS (60 + 30 s: under 2 minutes),
audited, and written from scratch by the next attempt; a slow worker that was not dead drops its
result; a fresh heartbeat, a queued or a finished run is left alone."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from audit.models import AuditEvent
from core.models import OutboxMessage
from reports import services
from reports.models import ReportRun
from reports.services import report_run_execute, report_run_request, report_runs_requeue_stalled
from reports.tasks import report_runs_requeue_task
from tests.reports.runs import fake_bytes, fake_writer, levy_request

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 12, 3, 12, 0, tzinfo=dt.UTC)


def _running(
    accountant: Any, *, heartbeat: dt.datetime | None, started: dt.datetime | None = None
) -> ReportRun:
    """A run its worker took (attempt 1) and was last heard of at ``heartbeat``."""
    run = report_run_request(actor=accountant, request=levy_request())
    ReportRun.objects.filter(pk=run.pk).update(
        status="running",
        attempts=1,
        started_at=started or heartbeat or NOW,
        heartbeat_at=heartbeat,
        rows_done=5,
    )
    return ReportRun.objects.get(pk=run.pk)


def _written() -> tuple[int, int, list[tuple[Any, ...]]]:
    return (
        AuditEvent.objects.count(),
        OutboxMessage.objects.count(),
        list(ReportRun.objects.order_by("pk").values_list("pk", "status", "attempts", "heartbeat_at")),
    )


def test_the_schedule_runs_it_every_30_seconds_under_a_60_second_silence() -> None:
    entry = django_settings.CELERY_BEAT_SCHEDULE["reports-requeue-stalled"]
    assert (entry["task"], entry["schedule"]) == ("reports.requeue_stalled", 30.0)
    assert django_settings.REPORTS_STALE_SECONDS + entry["schedule"] < 120
    assert "reports-requeue-stalled" in django_settings.EMBEDDED_BEAT_ENTRIES  # make run's too


def test_a_run_whose_worker_stopped_beating_is_queued_again_and_written_from_scratch(
    accountant, monkeypatch, reports_root
) -> None:
    last_heard = NOW - dt.timedelta(seconds=61)
    run = _running(accountant, heartbeat=last_heard)
    messages = OutboxMessage.objects.count()
    assert report_runs_requeue_stalled(now=NOW) == [run.pk]
    run.refresh_from_db()
    assert (run.status, run.attempts, run.heartbeat_at) == ("queued", 1, None)
    event = AuditEvent.objects.get(action="reports.reportrun.requeue")
    assert event.actor is None
    assert event.after == {"attempts": 1, "last_sign_of_life": last_heard.isoformat()}
    sent = OutboxMessage.objects.order_by("pk").last()
    assert sent is not None and OutboxMessage.objects.count() == messages + 1
    assert (sent.task, sent.kwargs, sent.key) == (
        "reports.run",
        {"run_id": run.pk},
        f"reports.run:{run.pk}:requeue:1",
    )
    # queued again, nothing more happens at the next beat
    before = _written()
    assert report_runs_requeue_stalled(now=NOW + dt.timedelta(minutes=5)) == []
    assert _written() == before
    # the next attempt writes it from scratch
    monkeypatch.setattr(services, "report_write", fake_writer())
    done = report_run_execute(run_id=run.pk)
    assert done is not None
    assert (done.status, done.attempts, done.row_count) == ("finished", 2, 3)
    assert (reports_root / done.file.name).read_bytes() == fake_bytes()


def test_a_run_from_before_heartbeats_is_judged_by_its_start(accountant) -> None:
    run = _running(accountant, heartbeat=None, started=NOW - dt.timedelta(minutes=10))
    assert report_runs_requeue_stalled(now=NOW) == [run.pk]
    event = AuditEvent.objects.get(action="reports.reportrun.requeue")
    assert event.after == {"attempts": 1, "last_sign_of_life": (NOW - dt.timedelta(minutes=10)).isoformat()}


@pytest.mark.parametrize("silence", [0, 30, 59])
def test_a_worker_heard_of_within_the_minute_keeps_its_run(accountant, silence) -> None:
    _running(accountant, heartbeat=NOW - dt.timedelta(seconds=silence))
    before = _written()
    assert report_runs_requeue_stalled(now=NOW) == []
    assert _written() == before


def test_queued_finished_and_failed_runs_are_left_alone(accountant, pit_boss, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer())
    finished = report_run_request(actor=accountant, request=levy_request())
    report_run_execute(run_id=finished.pk)
    queued = report_run_request(actor=pit_boss, request=levy_request(kind="coup-records", fmt="jsonl"))
    assert ReportRun.objects.get(pk=finished.pk).status == "finished" and queued.status == "queued"
    before = _written()
    assert report_runs_requeue_stalled(now=timezone.now() + dt.timedelta(days=1)) == []
    assert _written() == before


def test_a_slow_worker_taken_for_dead_drops_its_result(accountant, monkeypatch, reports_root) -> None:
    run = report_run_request(actor=accountant, request=levy_request())
    taken_over: list[ReportRun | None] = []

    def meanwhile() -> None:
        # the first attempt is silent past the limit: beat queues the run again and a second
        # worker writes it whole while the first one is still at it
        if taken_over:  # the second worker's own pass through here
            return
        taken_over.append(None)
        report_runs_requeue_stalled(now=timezone.now() + dt.timedelta(minutes=2))
        taken_over[0] = report_run_execute(run_id=run.pk)

    monkeypatch.setattr(services, "report_write", fake_writer(lines=4, during=meanwhile))
    first = report_run_execute(run_id=run.pk)
    assert taken_over[0] is not None and (taken_over[0].status, taken_over[0].attempts) == ("finished", 2)
    assert first is not None
    first.refresh_from_db()
    assert (first.status, first.attempts, first.row_count) == ("finished", 2, 4)
    assert AuditEvent.objects.filter(action="reports.reportrun.finish", object_id=str(run.pk)).count() == 1
    assert (reports_root / first.file.name).read_bytes() == fake_bytes(lines=4)
    assert str(first.file.name).endswith(f"_run-{run.pk}-2.csv")  # the second attempt's own name
    # nothing else is left: the first attempt's partial file went with it
    assert sorted(str(p.relative_to(reports_root)) for p in reports_root.rglob("*") if p.is_file()) == [
        first.file.name
    ]


def test_a_run_given_up_when_its_workers_keep_dying(accountant, settings) -> None:
    settings.REPORTS_MAX_ATTEMPTS = 1
    run = _running(accountant, heartbeat=NOW - dt.timedelta(minutes=3))
    report_runs_requeue_stalled(now=NOW)
    failed = report_run_execute(run_id=run.pk)
    assert failed is not None
    assert (failed.status, failed.error) == (
        "failed",
        "Gave up after attempt 1: its worker stopped each time (out of memory?).",
    )


def test_the_task_queues_again_what_stalled(accountant) -> None:
    run = _running(accountant, heartbeat=timezone.now() - dt.timedelta(minutes=5))
    assert report_runs_requeue_task.apply().get() == [run.pk]
    assert ReportRun.objects.get(pk=run.pk).status == "queued"


@pytest.mark.django_db(transaction=True)
def test_the_worker_beats_while_it_writes(accountant, settings, monkeypatch, reports_root) -> None:
    """The heartbeat comes from a thread of its own: a minute-long query between two progress
    calls is not silence. Committed rows (transaction=True): the thread has its own connection."""
    settings.REPORTS_HEARTBEAT_SECONDS = 0.05
    settings.REPORTS_PROGRESS_INTERVAL = 3600  # the progress writer says nothing meanwhile
    seen: list[tuple[Any, Any]] = []

    def slow_query() -> None:
        time.sleep(0.6)
        seen.append(ReportRun.objects.values_list("started_at", "heartbeat_at").get())

    monkeypatch.setattr(services, "report_write", fake_writer(lines=2, during=slow_query))
    # committed, the request's task runs at once (tasks in-process, as make run has them)
    run = report_run_request(actor=accountant, request=levy_request())
    run.refresh_from_db()
    assert run.status == "finished"
    ((started, heartbeat),) = seen
    assert heartbeat > started + dt.timedelta(seconds=0.3)
