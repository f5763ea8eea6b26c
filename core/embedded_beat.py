"""Beat's periodic work under ``make run``: the README's default has no broker (tasks run in the
web process, eagerly) and so no Celery beat, yet the floor's periodic work — the pit boss's alerts,
the rollups the dashboard and the reports read, the hourly fees, the outbox, the summary of refused
logins — must still happen while nobody has a dashboard open, and so must the checks of what was
written — the audit chains' heads anchored outside the database, the chains and the books verified
daily (the dashboard shows their results as the nightly run's).

The development server runs it in two daemon threads (:func:`start`), started from
``CoreConfig.ready`` only where :func:`wanted` says so: ``manage.py runserver``'s serving process
(not the autoreloader's watcher), no ``CELERY_BROKER_URL`` (eager tasks), ``EMBEDDED_BEAT`` on
(off in the test settings and in production). Never in the tests, a management command, gunicorn
or a Celery worker: there beat runs, or nothing should. One thread runs the floor's entries
(:func:`floor_entries`), the other the checks (:func:`check_entries`, ``EMBEDDED_BEAT_CHECKS``): a
whole walk of the chains or the books takes minutes on a big database, and the alerts of the minute
must not wait for it. A check only reads while it walks (in autocommit, or SQLite's deferred read
transaction: never the database's write lock), and writes its result in one short transaction at
the end, so the tables go on writing while it runs.

A check is due once its interval has passed since it last ran as its own record says
(``EMBEDDED_BEAT_LAST_RUN``, :func:`recorded_runs`: the newest anchor in the anchor file, the newest
nightly verification of the chains or the books in the database), not since the server started, as
beat's database scheduler keeps its last runs: ``make run`` restarts far more often than once a
day, and a daily check counted from each start would never run. One never run is due at the first
tick.

Why a thread and not a hook after each coup step: most of this work is about time passing (a coup
left unfinished, an hour to bill, a rollup to catch up), which no single write sees, and ``tables``
may not import ``review``. Why it is safe:

- the entries are beat's own (``CELERY_BEAT_SCHEDULE``, names in ``EMBEDDED_BEAT_ENTRIES``), run
  as beat would have them run: the same tasks, each its own transaction(s), each idempotent, with
  their own database locks (the alert scan's ``AlertScan`` row, the rollups' marks), so a tick and
  a dashboard's poll never raise an alert twice;
- never two ticks of a thread's entries at once: a lock in the process and an exclusive lock on a
  file in ``var/`` across processes (two ``make run`` on one database, or the autoreloader's old
  and new server), so on SQLite one tick at a time holds the database's write lock, briefly, and a
  request waits for it (SQLite's busy timeout) rather than failing;
- one task's failure is logged and the next goes on; nothing it does reaches a request.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from celery import current_app
from celery.schedules import BaseSchedule, schedule
from django.apps import apps
from django.conf import settings
from django.db import connections
from django.db.models import Max
from django.utils import timezone
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

#: how often the thread looks for due entries, in seconds
TICK_SECONDS = 10.0
#: the thread waits this long after the server starts before its first tick
FIRST_TICK_SECONDS = 10.0


def wanted(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether this process should run beat's work itself: the development server's serving process
    (with the autoreloader, the child it starts, ``RUN_MAIN``; with ``--noreload``, itself), with no
    broker configured (tasks eager) and ``EMBEDDED_BEAT`` on."""
    if not getattr(settings, "EMBEDDED_BEAT", False):
        return False
    if settings.CELERY_BROKER_URL or not settings.CELERY_TASK_ALWAYS_EAGER:
        return False
    if len(argv) < 2 or argv[1] != "runserver":
        return False
    return environ.get("RUN_MAIN") == "true" or "--noreload" in argv


def _as_schedule(value: Any) -> BaseSchedule:
    if isinstance(value, BaseSchedule):
        return value
    if isinstance(value, dt.timedelta):
        return schedule(run_every=value)
    return schedule(run_every=dt.timedelta(seconds=float(value)))


@contextlib.contextmanager
def _file_lock(path: Path | None) -> Iterator[bool]:
    """An exclusive, non-blocking lock on ``path`` (True when held): one tick at a time across the
    processes of one machine. Without ``fcntl`` (not POSIX) or a path, the process lock alone."""
    if path is None:
        yield True
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield True
        return
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


#: when a task last ran, as it records it itself (None: never)
LastRun = Callable[[], dt.datetime | None]


def _newest_unasked(label: str) -> LastRun:
    """The newest ``started_at`` of the model's rows nobody asked for (``requested_by`` empty: the
    nightly run's, not a verification asked for on the dashboard)."""

    def last() -> dt.datetime | None:
        rows = apps.get_model(label).objects.filter(requested_by__isnull=True)
        started: dt.datetime | None = rows.aggregate(last=Max("started_at"))["last"]
        return started

    return last


def recorded_runs() -> dict[str, LastRun]:
    """How each task that records its last run says when (``EMBEDDED_BEAT_LAST_RUN``, by task: a
    model label, whose newest row nobody asked for is the last run, or the dotted path of a
    function that answers)."""
    readers: dict[str, LastRun] = {}
    for task, where in getattr(settings, "EMBEDDED_BEAT_LAST_RUN", {}).items():
        readers[task] = _newest_unasked(where) if where.count(".") == 1 else import_string(where)
    return readers


class EmbeddedBeat:
    """Beat's entries (``{"name": {"task": ..., "schedule": ..., "args": ..., "kwargs": ...}}``),
    run in the web process when they are due. ``clock``: the time now (aware); ``run``: how a task
    is run (by default, Celery's ``apply``: in this process, at once, its errors raised);
    ``recorded``: for the tasks that record when they last ran (by task name), how to read it."""

    def __init__(
        self,
        entries: Mapping[str, Mapping[str, Any]],
        *,
        clock: Callable[[], dt.datetime] = timezone.now,
        run: Callable[[str, Sequence[Any], Mapping[str, Any]], Any] | None = None,
        lock_path: Path | None = None,
        recorded: Mapping[str, LastRun] | None = None,
    ) -> None:
        self.entries = dict(entries)
        self.clock = clock
        self.run = run or self._apply
        self.lock_path = lock_path
        self.recorded = dict(recorded or {})
        self.schedules: dict[str, BaseSchedule] = {}
        for name, entry in self.entries.items():
            sched = _as_schedule(entry["schedule"])
            sched.nowfun = clock  # the schedule asks our clock what time it is (tests set it)
            self.schedules[name] = sched
        self.started = clock()
        # an interval entry is due once its interval has passed since the server started; a
        # crontab entry at its next time: as beat would from a fresh start. An entry whose task
        # records its last run: once its interval has passed since then (at once, never run)
        self.last_run: dict[str, dt.datetime | None] = {
            name: None if entry["task"] in self.recorded else self.started
            for name, entry in self.entries.items()
        }
        self._lock = threading.Lock()

    def _last(self, name: str) -> dt.datetime | None:
        """When the entry last ran: here, or as its task records it (the later of the two)."""
        ran = self.last_run[name]
        reader = self.recorded.get(self.entries[name]["task"])
        if reader is None:
            return ran
        try:
            recorded = reader()
        except Exception:  # a record that cannot be read: as if it ran when the server started
            logger.exception("embedded beat: when %s last ran could not be read", name)
            recorded = self.started
        return max((t for t in (ran, recorded) if t is not None), default=None)

    @staticmethod
    def _apply(task: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if task not in current_app.tasks:  # the apps' tasks.py, autodiscovered as a worker would
            current_app.loader.import_default_modules()
        # throw=True: a failure is raised here already. No .get(): it asks Celery whether waiting
        # would block a task, a flag of the whole process that Celery raises while any eager task
        # runs (a report a request runs in its thread), and it then refused a task already done
        return current_app.tasks[task].apply(args=list(args), kwargs=dict(kwargs), throw=True).result

    def due(self) -> list[str]:
        """The entries due now, in their order."""
        due = []
        for name, sched in self.schedules.items():
            last = self._last(name)
            if last is None or sched.is_due(last).is_due:
                due.append(name)
        return due

    def tick(self) -> list[str]:
        """Run every entry due now, one after the other; the names of those run. Nothing when
        another tick holds the lock (in this process or another): it runs them."""
        if not self._lock.acquire(blocking=False):
            return []
        try:
            with _file_lock(self.lock_path) as held:
                if not held:
                    return []
                ran = []
                for name in self.due():
                    self.last_run[name] = self.clock()
                    entry = self.entries[name]
                    try:
                        self.run(entry["task"], entry.get("args", ()), entry.get("kwargs", {}))
                    except Exception:  # one task's failure never stops the others, nor a request
                        logger.exception("embedded beat: %s (%s) failed", name, entry["task"])
                    ran.append(name)
                return ran
        finally:
            self._lock.release()


def _entries(checks: bool) -> dict[str, Mapping[str, Any]]:
    names = getattr(settings, "EMBEDDED_BEAT_ENTRIES", ())
    apart = set(getattr(settings, "EMBEDDED_BEAT_CHECKS", ()))
    schedule_ = settings.CELERY_BEAT_SCHEDULE
    return {name: schedule_[name] for name in names if name in schedule_ and (name in apart) is checks}


def floor_entries() -> dict[str, Mapping[str, Any]]:
    """The entries of ``CELERY_BEAT_SCHEDULE`` the embedded beat runs (``EMBEDDED_BEAT_ENTRIES``)
    in its floor's thread: all but the checks."""
    return _entries(checks=False)


def check_entries() -> dict[str, Mapping[str, Any]]:
    """The entries of ``EMBEDDED_BEAT_ENTRIES`` the checks' thread runs (``EMBEDDED_BEAT_CHECKS``)."""
    return _entries(checks=True)


def _thread(beat: EmbeddedBeat, name: str, stop: threading.Event) -> threading.Thread:
    def loop() -> None:
        if stop.wait(FIRST_TICK_SECONDS):
            return
        while not stop.is_set():
            try:
                beat.tick()
            except Exception:  # pragma: no cover - tick catches each task's; this is the lock's
                logger.exception("embedded beat: tick failed")
            finally:
                connections.close_all()  # this thread's own: no connection held while it sleeps
            stop.wait(TICK_SECONDS)

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    return thread


def start(stop: threading.Event | None = None) -> threading.Thread:
    """Start the daemon threads that tick every :data:`TICK_SECONDS` (the development server; they
    end with the process, or once ``stop`` is set): the floor's (returned, ``embedded-beat``) and,
    when there are checks to run, the checks' (``embedded-beat-checks``)."""
    stop = stop or threading.Event()
    var = Path(settings.VAR_DIR)
    recorded = recorded_runs()
    floor = EmbeddedBeat(floor_entries(), lock_path=var / "embedded-beat.lock", recorded=recorded)
    thread = _thread(floor, "embedded-beat", stop)
    checks = EmbeddedBeat(check_entries(), lock_path=var / "embedded-beat-checks.lock", recorded=recorded)
    if checks.entries:
        _thread(checks, "embedded-beat-checks", stop)
    logger.info(
        "embedded beat: %s; checks: %s (no broker: beat's work runs in this process)",
        ", ".join(floor.entries),
        ", ".join(checks.entries) or "none",
    )
    return thread
