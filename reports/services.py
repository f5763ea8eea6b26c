"""Who may take accounting's reports, and report runs: asking for one, writing it (the Celery
task's work), downloading its file (docs/reports.md)."""

from __future__ import annotations

import hashlib
import logging
import time
from contextlib import nullcontext
from typing import Any, BinaryIO, cast

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import Storage
from django.db import IntegrityError, OperationalError, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext_noop

from audit.anchors import anchor_publish
from audit.canonical import to_jsonable
from audit.services import audit_record
from compliance.permissions import is_compliance
from core.db_router import replica_reads
from core.errors import Conflict
from core.sentence import Listing, said
from core.services.outbox import outbox_enqueue
from reports.kinds import KINDS, Progress, ReportRequest, ReportRequestError, report_write
from reports.models import ACTIVE, ReportRun
from reports.selectors import report_run_kind
from reports.storage import reports_storage, storage_create, storage_move, temp_name, temp_names
from reports.wording import NOT_READY, RUN_NOT_WRITTEN, run_gave_up
from tables.models import Casino, Table
from tables.permissions import can_export, casino_scope, table_casino_id
from tables.wording import OTHER_CASINO_REFUSAL

#: the task that writes a report run (reports.tasks), named: the outbox sends it by its name
REPORT_RUN_TASK = "reports.run"

# ================================================================================== report runs
# A report asked for is a ReportRun (reports.models), written by the Celery task reports.run
# (reports/tasks.py) into the reports storage (reports/storage.py); docs/reports.md.

logger = logging.getLogger(__name__)

#: the longest period a report covers (a regulator's year and a day of slack, as the pages')
MAX_DAYS = 367
#: who asked for a run that no user asked for
SCHEDULER = "scheduler"
COMMAND = "command"
#: the most of a failure's reason a failed run keeps
ERROR_LENGTH = 2000

# The refusals below are English, whoever asks (docs/i18n.md): the API answers them as raised, the
# management command prints them, and the reports page says them in its reader's language
# (reports.views.report_refusal_said, tables.wording.say). A fixed sentence is marked
# gettext_noop, one built from values is said().
ONLY_COMPLIANCE = gettext_noop("Only compliance may take the cash-transaction reports.")
ONLY_EXPORTERS_ASK = gettext_noop("Only a pit boss or an accountant may ask for reports.")
ONLY_EXPORTERS_DOWNLOAD = gettext_noop("Only a pit boss or an accountant may download reports.")


class ReportRunNotReady(Conflict):
    """A run's file is asked for before the run finished (HTTP 409)."""

    code = "report_not_ready"

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "detail": self.message}


def _request_check(request: ReportRequest) -> tuple[Casino | None, Table | None]:
    """Refuse a request no run could produce (400, nothing written); its casino and table."""
    info = KINDS.get(request.kind)
    if info is None:
        raise ValidationError({"kind": said("No report of kind {kind}.", kind=request.kind)})
    # a refusal that names the report is said(): its slug in English (the API's and the management
    # command's words), its title on the reports page (reports.views.report_refusal_said)
    if request.fmt not in info.formats:
        refusal = said(
            "The {kind} report comes in {formats}, not {fmt}.",
            kind=request.kind,
            formats=Listing(info.formats),
            fmt=request.fmt,
        )
        raise ValidationError({"format": refusal})
    if request.start > request.end:
        raise ValidationError({"start": gettext_noop("The period starts after it ends.")})
    if (request.end - request.start).days + 1 > MAX_DAYS:
        raise ValidationError({"end": said("A report covers at most {days} days.", days=MAX_DAYS)})
    casino = table = None
    if request.casino_id is not None:
        casino = Casino.objects.filter(pk=request.casino_id).first()
        if casino is None:
            raise ValidationError({"casino": said("No casino {id}.", id=str(request.casino_id))})
    elif info.needs_casino:
        refusal = said("The {kind} report is for one casino: choose it.", kind=request.kind)
        raise ValidationError({"casino": refusal})
    if request.table_id is not None:
        if not info.by_table:
            raise ValidationError({"table": said("The {kind} report is not by table.", kind=request.kind)})
        table = Table.objects.filter(pk=request.table_id).first()
        if table is None:
            raise ValidationError({"table": said("No table {id}.", id=str(request.table_id))})
        if casino is not None and table.casino_id != casino.pk:
            raise ValidationError({"table": said("Table {id} is not in that casino.", id=str(table.pk))})
    return casino, table


#: the columns of a run that say which report it writes, each with the field of the request it
#: keeps: a run is created from its request by them, and its report written from them again
_RUN_REQUEST = {
    "kind": "kind",
    "casino_id": "casino_id",
    "table_id": "table_id",
    "start": "start",
    "end": "end",
    "format": "fmt",
}


def _run_fields(request: ReportRequest) -> dict[str, Any]:
    """The columns of a run that say which report it writes: what two identical requests share."""
    return {column: getattr(request, field) for column, field in _RUN_REQUEST.items()}


def _run_request(run: ReportRun) -> ReportRequest:
    """The request a run was created from (``_run_fields`` read back)."""
    return ReportRequest(**{field: getattr(run, column) for column, field in _RUN_REQUEST.items()})


def _active_runs(request: ReportRequest) -> QuerySet[ReportRun]:
    # a casino or table of None matches IS NULL, as the unique constraint's Coalesce(…, 0) does
    return ReportRun.objects.filter(**_run_fields(request), status__in=ACTIVE)


def _request_data(request: ReportRequest) -> dict[str, Any]:
    return {
        "kind": request.kind,
        "format": request.fmt,
        "from": request.start,
        "to": request.end,
        "casino": request.casino_id,
        "table": request.table_id,
    }


def _run_create(*, actor: Any, label: str, request: ReportRequest, enqueue: bool) -> ReportRun:
    """The run for ``request``: the one queued or running already (asked twice, or by two people
    at once), else a new one, audited and, once this transaction commits, sent to a worker."""
    _request_check(request)
    existing = _active_runs(request).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():  # a savepoint: the race's loser keeps its transaction
            run = ReportRun.objects.create(
                **_run_fields(request),
                parameters=to_jsonable(_request_data(request)),
                requested_by=actor,
                requested_label=label,
                requested_at=timezone.now(),
            )
    except IntegrityError:
        # The same request inserted meanwhile by another transaction, which has committed (the
        # unique index made this one wait for it): that run is the answer.
        return _active_runs(request).get()
    audit_record(
        actor=actor,
        action="reports.reportrun.request",
        target=run,
        after={**_request_data(request), "requested_by": label},
    )
    if enqueue:
        # through the outbox: with the broker down the run waits in it, the request still succeeds
        outbox_enqueue(task=REPORT_RUN_TASK, kwargs={"run_id": run.pk}, key=f"reports.run:{run.pk}")
    return run


def may_take(actor: Any, kind: str) -> bool:
    """Whether ``actor`` asks for reports of ``kind`` and takes their files: the compliance kinds
    (cash log, cash reports) are the compliance role's, the others the exporters'."""
    info = KINDS.get(kind)
    if info is not None and info.audience == "compliance":
        return is_compliance(actor)
    return can_export(actor)


def kinds_taken(actor: Any) -> list[str]:
    """The kinds ``actor`` may ask for, in KINDS' order."""
    return [kind for kind in KINDS if may_take(actor, kind)]


def check_may_take_run(actor: Any, run_id: int) -> None:
    """403 for a run of a kind the actor's role never takes (a levy run for compliance, a cash log
    for a pit boss), in any casino: the same answer at home and elsewhere."""
    kind = report_run_kind(run_id)
    if kind is not None:
        _take_check(actor, kind)


def uses_reports(actor: Any) -> bool:
    """May use report runs at all (of some kind): an exporter or compliance."""
    return can_export(actor) or is_compliance(actor)


def _take_check(actor: Any, kind: str) -> None:
    if not may_take(actor, kind):
        info = KINDS.get(kind)
        if info is not None and info.audience == "compliance":
            raise PermissionDenied(ONLY_COMPLIANCE)
        raise PermissionDenied(ONLY_EXPORTERS_ASK)


@transaction.atomic
def report_run_request(*, actor: Any, request: ReportRequest) -> ReportRun:
    """Ask for a report (a pit boss or an accountant; compliance for its own kinds): the run, new
    or the identical one already queued or running (idempotent). Written by a Celery worker once
    this commits."""
    _take_check(actor, request.kind)
    _request_check(request)  # what no run could produce is said first (400), then whose it is
    _casino_check(actor, request)
    return _run_create(actor=actor, label=actor.get_username(), request=request, enqueue=True)


def _casino_check(actor: Any, request: ReportRequest) -> None:
    """A report is of a casino the actor reads (403 for another's), and one casino unless he reads
    every casino (the group auditor, a superuser, or one who works for each casino there is): a
    report of every casino would show him the others'."""
    scope = casino_scope(actor)
    if scope.group_wide:
        return
    casino_id = request.casino_id
    if casino_id is None and request.table_id is not None:
        casino_id = table_casino_id(request.table_id)
    if casino_id is None:
        raise ValidationError(
            {"casino": gettext_noop("Choose the casino: a report of every casino is the group auditor's.")}
        )
    if not scope.reads(casino_id):
        raise PermissionDenied(OTHER_CASINO_REFUSAL)


@transaction.atomic
def report_run_schedule(*, request: ReportRequest, label: str = SCHEDULER, enqueue: bool = True) -> ReportRun:
    """A run no user asked for: beat's schedules (``label`` "scheduler", the audit event's actor
    the system), or ``manage.py report`` run on the server (``label`` "command", executed in-process
    by the command, so not enqueued)."""
    return _run_create(actor=None, label=label, request=request, enqueue=enqueue)


#: reports that may read from a read replica (core/db_router.py, when one is configured): streams of
#: append-only history (the audit trail, the coup records), long and heavy, where a second of lag
#: only means the file ends a second earlier. The money reports read the primary, where the
#: rollups they read have just been brought up to date.
REPLICA_KINDS = frozenset({"audit-trail", "coup-records"})


# ---------------------------------------------------------------------------------- execution
class _HashingWriter:
    """Passes every byte to ``raw`` and hashes it on the way. A writer that seeks (a zip-based
    format may) makes the running digest wrong: the file is then hashed again once written."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.digest = hashlib.sha256()
        self.size = 0
        self.sequential = True

    def write(self, data: bytes) -> int:
        written = self.raw.write(data)
        if self.sequential:
            self.digest.update(data)
        self.size += len(data)
        return int(written if written is not None else len(data))

    def seek(self, offset: int, whence: int = 0) -> int:
        self.sequential = False
        return int(self.raw.seek(offset, whence))

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:  # tell, flush, seekable, … of the real file
        return getattr(self.raw, name)


def _sha256_of(storage: Storage, name: str) -> str:
    digest = hashlib.sha256()
    with storage.open(name, "rb") as whole:
        for block in iter(lambda: whole.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _final_name(run: ReportRun, attempt: int) -> str:
    # one name per attempt: an attempt taken for dead that was only slow moves its file under its
    # own name, never over the one the attempt that took over finished with
    again = f"-{attempt}" if attempt > 1 else ""
    return f"{run.requested_at:%Y/%m}/{run.filename.rsplit('.', 1)[0]}_run-{run.pk}{again}.{run.format}"


def _discard(storage: Storage, names: list[str], run_id: int) -> None:
    """Remove files no run refers to (an attempt's that was taken over); best effort."""
    for name in names:
        try:
            if storage.exists(name):
                storage.delete(name)
        except OSError:
            logger.warning("report run %s: file %s left behind", run_id, name)


def _claim(run_id: int) -> tuple[ReportRun, int] | None:
    """Take the run for this worker: its attempt number, or None when there is nothing to do (a
    finished or failed run is never redone; an unknown id is a message for a deleted run). A run
    found running is one whose worker died (the broker redelivered its message): it restarts."""
    with transaction.atomic():
        run = ReportRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status not in ACTIVE:
            return None
        if run.attempts >= settings.REPORTS_MAX_ATTEMPTS:
            _fail(run, run_gave_up(run.attempts))
            return None
        run.status, run.attempts = ReportRun.Status.RUNNING, run.attempts + 1
        run.started_at, run.rows_done, run.rows_expected, run.error = timezone.now(), 0, None, ""
        run.heartbeat_at = run.started_at
        run.save(
            update_fields=[
                "status",
                "attempts",
                "started_at",
                "heartbeat_at",
                "rows_done",
                "rows_expected",
                "error",
            ]
        )
        return run, run.attempts


def _fail(run: ReportRun, reason: str) -> None:
    run.status, run.error, run.finished_at = ReportRun.Status.FAILED, reason[:ERROR_LENGTH], timezone.now()
    run.save(update_fields=["status", "error", "finished_at"])
    audit_record(
        actor=None,
        action="reports.reportrun.fail",
        target=run,
        after={"error": run.error, "attempts": run.attempts},
        rows=[run],  # final: bound by its digest (audit.rows)
    )


def _progress_writer(run_id: int, attempt: int) -> Progress:
    """``progress`` for report_write: commits rows done at most every REPORTS_PROGRESS_INTERVAL
    seconds, each an UPDATE of its own (autocommit), so the page polling the run sees it move.

    A progress not written is skipped, never the report's failure: on SQLite the UPDATE comes on
    the connection still reading the report, and when another connection committed since that read
    began, SQLite refuses it at once rather than wait (it could never be granted while the read is
    open). The next progress, or the heartbeat, says it again."""
    last = [0.0]
    delay = settings.REPORTS_TEST_DELAY_PER_CHUNK

    def progress(done: int, expected: int | None) -> None:
        if delay:
            time.sleep(delay)
        now = time.monotonic()
        if now - last[0] < settings.REPORTS_PROGRESS_INTERVAL:
            return
        last[0] = now
        try:
            ReportRun.objects.filter(pk=run_id, status=ReportRun.Status.RUNNING, attempts=attempt).update(
                rows_done=done, rows_expected=expected, heartbeat_at=timezone.now()
            )
        except OperationalError as exc:  # autocommit: nothing half-written, the report reads on
            logger.warning("report run %s: progress not written (%s)", run_id, exc)

    return progress


class _Heartbeat:
    """While a run is written, its worker says it is alive every ``REPORTS_HEARTBEAT_SECONDS``
    from a thread of its own (its own connection, autocommit): a query that takes minutes between
    two progress calls is not mistaken for a dead worker. A worker killed outright stops beating,
    and beat's ``reports.requeue_stalled`` queues the run again (:func:`report_runs_requeue_stalled`)."""

    def __init__(self, run_id: int, attempt: int) -> None:
        import threading

        self.run_id, self.attempt = run_id, attempt
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._beat, name=f"report-{run_id}-heartbeat", daemon=True)

    def _beat(self) -> None:
        from django.db import DatabaseError, connections

        try:
            while not self.stop.wait(settings.REPORTS_HEARTBEAT_SECONDS):
                try:
                    ReportRun.objects.filter(
                        pk=self.run_id, status=ReportRun.Status.RUNNING, attempts=self.attempt
                    ).update(heartbeat_at=timezone.now())
                except DatabaseError as exc:  # the next beat tries again; the run is not failed for it
                    logger.warning("report run %s: heartbeat not written (%s)", self.run_id, exc)
        finally:
            connections.close_all()

    def __enter__(self) -> _Heartbeat:
        if settings.REPORTS_HEARTBEAT_SECONDS > 0:
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=30)


def report_runs_requeue_stalled(*, now: Any = None) -> list[int]:
    """Queue again every run left "running" by a worker that stopped without a word (killed,
    out of memory, its node lost): its heartbeat older than ``REPORTS_STALE_SECONDS``. Each one
    goes back to "queued", audited (``reports.reportrun.requeue``), and its task is sent again
    through the outbox; the next attempt writes it from scratch (``REPORTS_MAX_ATTEMPTS`` still
    bounds the attempts). A worker that was only slow finds its run taken over and drops its result
    (_finish). Idempotent: a run queued again is no longer "running". The ids queued again."""
    from datetime import timedelta

    from django.db.models import Q


    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.REPORTS_STALE_SECONDS)
    requeued = []
    with transaction.atomic():
        stalled = (
            ReportRun.objects.select_for_update(skip_locked=True)
            .filter(status=ReportRun.Status.RUNNING)
            .filter(Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff))
            .order_by("pk")
        )
        for run in stalled:
            last_sign = run.heartbeat_at or run.started_at
            run.status, run.heartbeat_at = ReportRun.Status.QUEUED, None
            run.save(update_fields=["status", "heartbeat_at"])
            audit_record(
                actor=None,
                action="reports.reportrun.requeue",
                target=run,
                after={
                    "attempts": run.attempts,
                    "last_sign_of_life": last_sign.isoformat() if last_sign else None,
                },
            )
            outbox_enqueue(
                task=REPORT_RUN_TASK,
                kwargs={"run_id": run.pk},
                key=f"reports.run:{run.pk}:requeue:{run.attempts}",
            )
            requeued.append(run.pk)
    if requeued:
        logger.warning("report runs queued again, their workers stopped: %s", requeued)
    return requeued


def report_run_execute(*, run_id: int) -> ReportRun | None:
    """Write a run's report (the Celery task reports.run, ``manage.py report``): into a temporary
    file of the reports storage, hashed as it is written, moved to its final name once whole, and
    only then marked finished, together with its audit event carrying the sha256. Idempotent: a
    finished or failed run is left as it is; a running one (its worker died) starts again.

    Not one transaction: the report is read in autocommit (progress commits as it goes); the two
    state changes around it (claim, finish or fail) are each atomic and audited."""
    claimed = _claim(run_id)
    if claimed is None:
        return ReportRun.objects.filter(pk=run_id).first()
    run, attempt = claimed
    storage = reports_storage()
    for stale in temp_names(storage, run.pk):  # what dead attempts left
        storage.delete(stale)
    request = _run_request(run)
    temp = temp_name(run.pk, attempt)
    try:
        temp = storage_create(storage, temp)
        with storage.open(temp, "wb") as raw:
            out = _HashingWriter(raw)
            progress = _progress_writer(run.pk, attempt)
            with (
                _Heartbeat(run.pk, attempt),
                replica_reads() if request.kind in REPLICA_KINDS else nullcontext(),
            ):
                result = report_write(request=request, out=cast(BinaryIO, out), progress=progress)
        sha256 = out.digest.hexdigest() if out.sequential else _sha256_of(storage, temp)
        final = storage_move(storage, temp, _final_name(run, attempt))
    except Exception as exc:  # a run never stays "running" for an error: it fails, saying why
        # the exception (its type, its message: a server path, a database's words) goes to the log
        # only; the run, its audit event, the page and the API say what happened in plain English
        logger.exception("report run %s failed (attempt %s)", run.pk, attempt)
        try:
            if storage.exists(temp):
                storage.delete(temp)
        except OSError:  # the storage itself is failing: the next attempt removes what is left
            logger.warning("report run %s: temporary file %s not removed", run.pk, temp)
        # a writer's own refusal says why in English (reports.kinds); anything else is one fixed
        # sentence (reports.wording)
        reason = str(exc) if isinstance(exc, ReportRequestError) else RUN_NOT_WRITTEN
        with transaction.atomic():
            locked = ReportRun.objects.select_for_update().get(pk=run.pk)
            if locked.status == ReportRun.Status.RUNNING and locked.attempts == attempt:
                _fail(locked, reason)
            return locked
    return _finish(
        run_id=run.pk,
        attempt=attempt,
        name=final,
        sha256=sha256,
        rows=result.rows,
        size=out.size,
        chain_head=result.chain_head,
    )


@transaction.atomic
def _finish(
    *, run_id: int, attempt: int, name: str, sha256: str, rows: int, size: int, chain_head: str | None
) -> ReportRun:
    run = ReportRun.objects.select_for_update().get(pk=run_id)
    if run.status != ReportRun.Status.RUNNING or run.attempts != attempt:
        # another attempt took the run over (this worker outlived the visibility timeout): the
        # file under the final name is that attempt's to write; this one's work is dropped
        logger.warning("report run %s: attempt %s superseded, result dropped", run_id, attempt)
        _discard(reports_storage(), [name], run_id)
        return run
    run.status, run.file.name, run.sha256 = ReportRun.Status.FINISHED, name, sha256
    run.row_count, run.rows_done, run.finished_at = rows, rows, timezone.now()
    run.save(update_fields=["status", "file", "sha256", "row_count", "rows_done", "finished_at"])
    audit_record(
        actor=None,
        action="reports.reportrun.finish",
        target=run,
        after={
            "sha256": sha256,
            "rows": rows,
            "bytes": size,
            "file": name,
            "attempts": attempt,
            "chain_head": chain_head,
        },
        rows=[run],  # final: bound by its digest (audit.rows)
    )
    # Once committed, the chains' signed heads go to the anchor file: they vouch for this finish
    # event and its sha256, so a report handed out can never be denied or swapped afterwards, and
    # a tail deleted later contradicts it (docs/audit.md, "Anchors"). robust: an anchor file that
    # cannot be written is logged, not a failed report (the next verification shows it stale).
    transaction.on_commit(anchor_publish, robust=True)
    # what earlier attempts may have moved in place before they died: no run refers to it
    earlier = [_final_name(run, n) for n in range(1, attempt)]
    transaction.on_commit(lambda: _discard(reports_storage(), earlier, run_id), robust=True)
    return run


@transaction.atomic
def report_run_download(*, actor: Any, run: ReportRun) -> ReportRun:
    """Record that ``actor`` takes a finished run's file (audited); refuse an unfinished run."""
    if not may_take(actor, str(run.kind)):
        if KINDS.get(str(run.kind)) is not None and KINDS[str(run.kind)].audience == "compliance":
            raise PermissionDenied(ONLY_COMPLIANCE)
        raise PermissionDenied(ONLY_EXPORTERS_DOWNLOAD)
    if run.status != ReportRun.Status.FINISHED:
        # queued or running: not yet; failed: never (a new run is the way)
        raise ReportRunNotReady(NOT_READY[str(run.status)])
    audit_record(
        actor=actor,
        action="reports.reportrun.download",
        target=run,
        after={"sha256": run.sha256, "file": run.file.name},
    )
    return run
