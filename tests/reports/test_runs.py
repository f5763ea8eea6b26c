"""Report runs' services: asking (permissions, validation, idempotency even under a race), writing
(temporary file then final name, sha256 and rows audited together with "finished", progress, the
restart of a run whose worker died, failures), downloading (audited, refused before finished)."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import OperationalError
from django.db.models import QuerySet

from audit.models import AuditEvent
from core.models import OutboxMessage
from reports import builders, kinds, services
from reports.kinds import ReportRequestError, report_write
from reports.model import RecordReport
from reports.models import ReportRun
from reports.services import (
    ReportRunNotReady,
    report_run_download,
    report_run_execute,
    report_run_request,
    report_run_schedule,
)
from reports.storage import reports_storage, temp_name
from reports.writers import jsonl as jsonl_writer
from tables.services import casino_staff_grant
from tests.factories import CasinoFactory, TableFactory
from tests.reports.runs import day, fake_bytes, fake_writer, levy_request, reports_casino_id

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, int]:
    return ReportRun.objects.count(), AuditEvent.objects.count(), OutboxMessage.objects.count()


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.exists() else []


# ------------------------------------------------------------------------------------- asking
@pytest.mark.parametrize("persona", ["pit_boss", "accountant"])
def test_a_pit_boss_or_an_accountant_asks_for_a_report(
    request, persona, django_capture_on_commit_callbacks
) -> None:
    user = request.getfixturevalue(persona)
    with django_capture_on_commit_callbacks() as callbacks:
        run = report_run_request(actor=user, request=levy_request())
    assert (run.status, run.kind, run.format, run.requested_by, run.requested_label) == (
        "queued",
        "levy",
        "csv",
        user,
        user.username,
    )
    assert run.start == run.end == day()
    event = AuditEvent.objects.get(action="reports.reportrun.request")
    assert (event.actor, event.object_id) == (user, str(run.pk))
    assert event.after == {
        "kind": "levy",
        "format": "csv",
        "from": day().isoformat(),
        "to": day().isoformat(),
        "casino": reports_casino_id(),
        "table": None,
        "requested_by": user.username,
    }
    message = OutboxMessage.objects.get()
    assert (message.task, message.kwargs, message.key) == (
        "reports.run",
        {"run_id": run.pk},
        f"reports.run:{run.pk}",
    )
    assert len(callbacks) == 1  # sent to the worker once committed, not before


@pytest.mark.parametrize("persona", ["croupier", "outsider", "cashier"])
def test_others_may_not_ask_and_nothing_is_written(request, persona) -> None:
    user = request.getfixturevalue(persona)
    before = _counts()
    with pytest.raises(PermissionDenied):
        report_run_request(actor=user, request=levy_request())
    assert _counts() == before


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"kind": "payroll"}, "kind"),
        ({"fmt": "docx"}, "format"),
        ({"start": day(1), "end": day()}, "start"),
        ({"start": day(-400)}, "end"),
        ({"casino_id": 999_999}, "casino"),
        ({"table_id": 999_999}, "table"),
        ({"kind": "audit-trail", "fmt": "jsonl", "table_id": 1}, "table"),
    ],
)
def test_a_request_no_run_could_produce_is_refused(accountant, changes, field) -> None:
    before = _counts()
    with pytest.raises(ValidationError) as refused:
        report_run_request(actor=accountant, request=levy_request(**changes))
    assert list(refused.value.message_dict) == [field]
    assert _counts() == before


def test_a_table_of_another_casino_is_refused(accountant, table) -> None:
    other = CasinoFactory()
    with pytest.raises(ValidationError) as refused:
        report_run_request(actor=accountant, request=levy_request(casino_id=other.pk, table_id=table.pk))
    assert refused.value.message_dict == {"table": [f"Table {table.pk} is not in that casino."]}
    assert not ReportRun.objects.exists()


def test_asking_twice_gives_the_same_run(accountant, pit_boss, table) -> None:
    request = levy_request(casino_id=table.casino_id, table_id=table.pk)
    first = report_run_request(actor=accountant, request=request)
    again = report_run_request(actor=pit_boss, request=request)
    assert again.pk == first.pk
    assert ReportRun.objects.count() == 1
    assert AuditEvent.objects.filter(action="reports.reportrun.request").count() == 1
    assert OutboxMessage.objects.count() == 1
    # another table, format or period is another run
    other = report_run_request(actor=accountant, request=levy_request(casino_id=table.casino_id))
    assert other.pk != first.pk


def test_a_race_between_two_identical_requests_gives_one_run(accountant, pit_boss, monkeypatch) -> None:
    """The loser of the race does not see the winner's run when it looks, inserts, is refused by
    the partial unique index, and answers with the winner's run (its transaction intact)."""
    winner = report_run_request(actor=accountant, request=levy_request())
    real = services._active_runs
    calls: list[int] = []

    def blind_first(request: Any) -> Any:
        calls.append(1)
        return real(request).none() if len(calls) == 1 else real(request)

    monkeypatch.setattr(services, "_active_runs", blind_first)
    loser = report_run_request(actor=pit_boss, request=levy_request())
    assert loser.pk == winner.pk and len(calls) == 2
    assert ReportRun.objects.count() == 1
    assert AuditEvent.objects.filter(action="reports.reportrun.request").count() == 1


def test_the_unique_index_admits_a_new_run_once_the_last_one_finished(accountant, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer())
    first = report_run_request(actor=accountant, request=levy_request())
    report_run_execute(run_id=first.pk)
    second = report_run_request(actor=accountant, request=levy_request())
    assert second.pk != first.pk and second.status == "queued"


# ------------------------------------------------------------------------------------ writing
def test_a_run_is_written_to_a_temporary_name_then_moved_and_finished(
    accountant, monkeypatch, reports_root
) -> None:
    run = report_run_request(actor=accountant, request=levy_request())
    seen: dict[str, Any] = {}

    def midway() -> None:
        seen["files"] = _files(reports_root)
        seen["status"] = ReportRun.objects.get(pk=run.pk).status

    monkeypatch.setattr(services, "report_write", fake_writer(lines=4, during=midway))
    done = report_run_execute(run_id=run.pk)
    assert done is not None
    # while writing: only the temporary file, the run running
    assert seen == {"files": [temp_name(run.pk, 1)], "status": "running"}
    body = fake_bytes(lines=4)
    sha = hashlib.sha256(body).hexdigest()
    assert (done.status, done.row_count, done.rows_done, done.sha256, done.attempts) == (
        "finished",
        4,
        4,
        sha,
        1,
    )
    assert _files(reports_root) == [done.file.name]  # the temporary file is gone
    assert str(done.file.name).endswith(f"_run-{run.pk}.csv")
    assert (reports_root / done.file.name).read_bytes() == body
    event = AuditEvent.objects.get(action="reports.reportrun.finish")
    assert event.object_id == str(run.pk) and event.actor is None
    assert event.after == {
        "sha256": sha,
        "rows": 4,
        "bytes": len(body),
        "file": done.file.name,
        "attempts": 1,
        "chain_head": None,
    }


def test_a_run_is_bound_to_its_event_once_finished_and_a_sha256_rewritten_is_named(
    accountant, monkeypatch
) -> None:
    """Issue 20 §1: the finished run (frozen) is bound to its finish event by its digest; running,
    it was bound by none (its progress moves with no event); a superuser who rewrites the sha256
    behind the triggers' back is named."""
    from audit.row_verify import rows_verify
    from tests.audit.rows import row_changed, superuser_sql

    run = report_run_request(actor=accountant, request=levy_request())
    assert [str(d) for d in rows_verify().differences] == []  # queued: nothing to bind yet
    monkeypatch.setattr(services, "report_write", fake_writer())
    report_run_execute(run_id=run.pk)
    event = AuditEvent.objects.get(action="reports.reportrun.finish")
    assert [r[:2] for r in event.rows or ()] == [["reports_reportrun", run.pk]]
    assert [str(d) for d in rows_verify().differences] == []
    superuser_sql("UPDATE reports_reportrun SET sha256 = %s WHERE id = %s", ["0" * 64, run.pk])
    named = [row_changed("reports_reportrun", run.pk, "sha256")]
    assert [str(d) for d in rows_verify().differences] == named


def test_the_stored_file_is_what_report_write_writes(
    accountant, history, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    """The real writer, through the outbox and the (eager) task: the file is byte for byte
    report_write's output for the same request, and its recorded sha256 that of the file."""
    # The two writes may straddle a second; the "Generated" line is the one fact meant to differ.
    generated = ("Generated", "2026-12-02 06:28:22 UTC")
    # every report's header takes it from reports.builders (report_facts)
    monkeypatch.setattr(builders, "generated_fact", lambda: generated)
    request = levy_request()
    with django_capture_on_commit_callbacks(execute=True):
        run = report_run_request(actor=accountant, request=request)
    run.refresh_from_db()
    expected = io.BytesIO()
    result = report_write(request=request, out=expected, progress=lambda done, total: None)
    assert run.status == "finished"
    stored = reports_storage().open(str(run.file.name), "rb").read()
    assert stored == expected.getvalue()
    assert b"Generated,2026-12-02 06:28:22 UTC" in stored
    assert run.sha256 == hashlib.sha256(stored).hexdigest()
    assert run.row_count == result.rows
    assert OutboxMessage.objects.get().sent_at is not None


def test_a_finished_run_is_never_written_again(accountant, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer())
    run = report_run_request(actor=accountant, request=levy_request())
    first = report_run_execute(run_id=run.pk)
    assert first is not None
    monkeypatch.setattr(services, "report_write", fake_writer(lines=9))
    again = report_run_execute(run_id=run.pk)  # the message delivered a second time
    assert again is not None
    assert (again.status, again.attempts, again.sha256, again.file.name) == (
        "finished",
        1,
        first.sha256,
        first.file.name,
    )
    assert AuditEvent.objects.filter(action="reports.reportrun.finish").count() == 1


def test_a_run_whose_worker_died_is_written_again_from_scratch(accountant, monkeypatch, reports_root) -> None:
    run = report_run_request(actor=accountant, request=levy_request())
    # the dead worker's traces: the run running, attempt 1, half a file under a temporary name
    ReportRun.objects.filter(pk=run.pk).update(
        status="running", attempts=1, started_at=run.requested_at, rows_done=7
    )
    storage = reports_storage()
    storage.save(temp_name(run.pk, 1), io.BytesIO(b"levy,0\nlev"))
    monkeypatch.setattr(services, "report_write", fake_writer())
    done = report_run_execute(run_id=run.pk)
    assert done is not None
    assert (done.status, done.attempts, done.row_count) == ("finished", 2, 3)
    assert _files(reports_root) == [done.file.name]
    assert (reports_root / done.file.name).read_bytes() == fake_bytes()


def test_a_run_given_up_after_too_many_attempts(accountant, settings, monkeypatch) -> None:
    settings.REPORTS_MAX_ATTEMPTS = 2
    run = report_run_request(actor=accountant, request=levy_request())
    ReportRun.objects.filter(pk=run.pk).update(status="running", attempts=2, started_at=run.requested_at)
    monkeypatch.setattr(services, "report_write", fake_writer())
    done = report_run_execute(run_id=run.pk)
    assert done is not None
    assert (done.status, done.error) == (
        "failed",
        "Gave up after attempt 2: its worker stopped each time (out of memory?).",
    )


def test_a_failed_run_says_why_and_leaves_no_file(accountant, monkeypatch, reports_root) -> None:
    def broken(**kwargs: Any) -> Any:
        kwargs["out"].write(b"half a line")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(services, "report_write", broken)
    run = report_run_request(actor=accountant, request=levy_request())
    failed = report_run_execute(run_id=run.pk)
    assert failed is not None
    assert failed.status == "failed" and failed.finished_at is not None
    # what went wrong is the log's (tests/reports/test_run_failures.py): the run says it plainly
    assert failed.error == (
        "The report's file could not be written. Ask for it again; if it fails again, tell the administrator."
    )
    assert (failed.file.name, failed.sha256) == ("", "")
    assert _files(reports_root) == []
    event = AuditEvent.objects.get(action="reports.reportrun.fail")
    assert event.after == {"error": failed.error, "attempts": 1}
    with pytest.raises(ReportRunNotReady) as not_ready:
        report_run_download(actor=accountant, run=failed)
    assert not_ready.value.message == "This report failed: it has no file to download. Generate it again."
    # the way forward: asking again makes a new run
    monkeypatch.setattr(services, "report_write", fake_writer())
    retry = report_run_request(actor=accountant, request=levy_request())
    assert retry.pk != failed.pk and retry.status == "queued"


def test_a_request_the_writer_refuses_fails_with_its_reason(accountant, monkeypatch) -> None:
    def refuse(**kwargs: Any) -> Any:
        raise ReportRequestError("No levy report for a casino that charges none.")

    monkeypatch.setattr(services, "report_write", refuse)
    run = report_run_request(actor=accountant, request=levy_request())
    failed = report_run_execute(run_id=run.pk)
    assert failed is not None and failed.error == "No levy report for a casino that charges none."


def test_progress_is_committed_as_the_report_is_written(accountant, settings, monkeypatch) -> None:
    settings.REPORTS_PROGRESS_INTERVAL = 0
    run = report_run_request(actor=accountant, request=levy_request())
    seen: list[tuple[int, int | None]] = []

    def look() -> None:
        seen.append(ReportRun.objects.values_list("rows_done", "rows_expected").get(pk=run.pk))

    monkeypatch.setattr(services, "report_write", fake_writer(lines=6, during=look))
    report_run_execute(run_id=run.pk)
    assert seen == [(4, 6)]  # after line 4 of 6 (the stand-in looks once, mid-way)


def test_an_unknown_run_is_nothing_to_do() -> None:
    assert report_run_execute(run_id=424242) is None


# ------------------------------------------------------------------------------- downloading
def test_each_download_is_audited(accountant, pit_boss, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer())
    run = report_run_request(actor=accountant, request=levy_request())
    before = AuditEvent.objects.count()
    with pytest.raises(ReportRunNotReady):
        report_run_download(actor=accountant, run=run)
    assert AuditEvent.objects.count() == before
    done = report_run_execute(run_id=run.pk)
    assert done is not None
    report_run_download(actor=accountant, run=done)
    report_run_download(actor=pit_boss, run=done)
    events = AuditEvent.objects.filter(action="reports.reportrun.download").order_by("seq")
    assert [(e.actor, e.after) for e in events] == [
        (accountant, {"sha256": done.sha256, "file": done.file.name}),
        (pit_boss, {"sha256": done.sha256, "file": done.file.name}),
    ]


def test_others_may_not_download(croupier, accountant, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer())
    run = report_run_execute(run_id=report_run_request(actor=accountant, request=levy_request()).pk)
    assert run is not None
    before = AuditEvent.objects.count()
    with pytest.raises(PermissionDenied):
        report_run_download(actor=croupier, run=run)
    assert AuditEvent.objects.count() == before


def test_the_scheduler_and_the_command_ask_as_the_system(monkeypatch) -> None:
    run = report_run_schedule(request=levy_request())
    assert (run.requested_by, run.requested_label) == (None, "scheduler")
    event = AuditEvent.objects.get(action="reports.reportrun.request")
    assert (event.actor, event.actor_label, (event.after or {})["requested_by"]) == (
        None,
        "system",
        "scheduler",
    )
    by_command = report_run_schedule(
        request=levy_request(fmt="csv", kind="fees"), label="command", enqueue=False
    )
    assert by_command.requested_label == "command"
    assert OutboxMessage.objects.count() == 1  # the command runs its own, in-process


def test_a_table_run_is_scoped_to_its_casino(accountant) -> None:
    table = TableFactory()
    casino_staff_grant(actor=None, user=accountant, casino=table.casino)
    run = report_run_request(
        actor=accountant, request=levy_request(casino_id=table.casino_id, table_id=table.pk)
    )
    assert (
        run.filename
        == f"levy_{day():%Y-%m-%d}_{day():%Y-%m-%d}_casino-{table.casino_id}_table-{table.pk}.csv"
    )


@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_identical_requests_at_the_same_moment_give_one_run(accountant, pit_boss, monkeypatch) -> None:
    """Two requests, each in its own connection, both past the look-up before either inserts: the
    second INSERT waits on the unique index for the first COMMIT, fails, and answers the same run."""
    import threading

    from django.db import connections

    real = services._active_runs
    both_looked = threading.Barrier(2, timeout=10)
    looked: set[int] = set()

    def look_together(request: Any) -> Any:
        me = threading.get_ident()
        if me not in looked:  # the first look of each request, not the loser's second
            looked.add(me)
            found = list(real(request))
            both_looked.wait()
            assert found == []
            return real(request).none()
        return real(request)

    monkeypatch.setattr(services, "_active_runs", look_together)
    answers: dict[int, int] = {}
    errors: list[BaseException] = []
    same = levy_request()  # its casino made once, before the threads

    def ask(user: Any) -> None:
        try:
            answers[user.pk] = report_run_request(actor=user, request=same).pk
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=ask, args=(u,)) for u in (accountant, pit_boss)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert errors == []
    assert answers[accountant.pk] == answers[pit_boss.pk] == ReportRun.objects.get().pk
    assert AuditEvent.objects.filter(action="reports.reportrun.request").count() == 1
    assert OutboxMessage.objects.count() == 1


def test_a_storage_that_refuses_to_write_fails_the_run(accountant, monkeypatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> str:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(services, "storage_create", refuse)
    run = report_run_request(actor=accountant, request=levy_request())
    failed = report_run_execute(run_id=run.pk)
    assert failed is not None and failed.status == "failed"
    assert failed.error == (
        "The report's file could not be written. Ask for it again; if it fails again, tell the administrator."
    )


# ------------------------------------------------- a report read beside the tables (SQLite default)
def test_a_progress_the_database_refuses_is_skipped_and_the_report_finishes(
    accountant, settings, monkeypatch, caplog
) -> None:
    """On SQLite the progress UPDATE comes on the connection still reading the report; when another
    writer committed meanwhile, SQLite refuses it at once ("database is locked"). That failed the
    whole run before; a progress is only a progress."""
    settings.REPORTS_PROGRESS_INTERVAL = 0
    run = report_run_request(actor=accountant, request=levy_request())
    real_update = QuerySet.update

    def locked_update(self: QuerySet, **fields: Any) -> int:
        if self.model is ReportRun and "rows_done" in fields:
            raise OperationalError("database is locked")
        return real_update(self, **fields)

    monkeypatch.setattr(QuerySet, "update", locked_update)
    monkeypatch.setattr(services, "report_write", fake_writer(lines=4))
    done = report_run_execute(run_id=run.pk)
    assert done is not None
    assert (done.status, done.rows_done, done.error) == ("finished", 4, "")
    assert caplog.messages.count(f"report run {run.pk}: progress not written (database is locked)") == 4


def test_a_writer_failing_half_way_closes_the_reports_query(monkeypatch) -> None:
    """Left suspended in its fetch loop, the stream kept its cursor open until the garbage collector
    came by: on SQLite a read lock that stopped every other writer, the run's failure included."""
    closed: list[str] = []

    def records() -> Any:
        try:
            for n in range(10):
                yield {"n": n}
        finally:
            closed.append("closed")

    monkeypatch.setattr(kinds, "report_build", lambda request, scope: RecordReport(records=records()))
    monkeypatch.setattr(kinds, "request_scope", lambda request: None)
    monkeypatch.setattr(jsonl_writer, "CHUNK_ROWS", 2)

    def progress(done: int, expected: int | None) -> None:
        raise OSError("disk full")

    try:
        report_write(request=levy_request(), out=io.BytesIO(), progress=progress)
    except OSError as exc:
        # while the failure is still being handled (its frames alive, as when the run's failure is
        # written): the query is closed already, not left for the garbage collector
        assert (str(exc), closed) == ("disk full", ["closed"])
    else:
        pytest.fail("the writer's failure was swallowed")
