"""Beat's periodic work under ``make run``: the README's default has no broker (tasks run in the
web process, eagerly) and so no Celery beat, yet the floor's periodic work — the pit boss's alerts,
the rollups the dashboard and the reports read, the hourly fees, the outbox, the summary of refused
logins — must still happen while nobody has a dashboard open.

The development server runs it in one daemon thread (:func:`start`), started from
``CoreConfig.ready`` only where :func:`wanted` says so: ``manage.py runserver``'s serving process
(not the autoreloader's watcher), no ``CELERY_BROKER_URL`` (eager tasks), ``EMBEDDED_BEAT`` on
(off in the test settings and in production). Never in the tests, a management command, gunicorn
or a Celery worker: there beat runs, or nothing should.

Why a thread and not a hook after each coup step: most of this work is about time passing (a coup
left unfinished, an hour to bill, a rollup to catch up), which no single write sees, and ``tables``
may not import ``review``. Why it is safe:

- the entries are beat's own (``CELERY_BEAT_SCHEDULE``, names in ``EMBEDDED_BEAT_ENTRIES``), run
  as beat would have them run: the same tasks, each its own transaction(s), each idempotent, with
  their own database locks (the alert scan's ``AlertScan`` row, the rollups' marks), so a tick and
  a dashboard's poll never raise an alert twice;
- never two ticks at once: a lock in the process and an exclusive lock on a file in ``var/`` across
  processes (two ``make run`` on one database, or the autoreloader's old and new server), so on
  SQLite one tick at a time holds the database's write lock, briefly, and a request waits for it
  (SQLite's busy timeout) rather than failing;
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
from django.conf import settings
from django.db import connections
from django.utils import timezone

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


class EmbeddedBeat:
    """Beat's entries (``{"name": {"task": ..., "schedule": ..., "args": ..., "kwargs": ...}}``),
    run in the web process when they are due. ``clock``: the time now (aware); ``run``: how a task
    is run (by default, Celery's ``apply``: in this process, at once, its errors raised)."""

    def __init__(
        self,
        entries: Mapping[str, Mapping[str, Any]],
        *,
        clock: Callable[[], dt.datetime] = timezone.now,
        run: Callable[[str, Sequence[Any], Mapping[str, Any]], Any] | None = None,
        lock_path: Path | None = None,
    ) -> None:
        self.entries = dict(entries)
        self.clock = clock
        self.run = run or self._apply
        self.lock_path = lock_path
        self.schedules: dict[str, BaseSchedule] = {}
        for name, entry in self.entries.items():
            sched = _as_schedule(entry["schedule"])
            sched.nowfun = clock  # the schedule asks our clock what time it is (tests set it)
            self.schedules[name] = sched
        started = clock()
        # an interval entry is due once its interval has passed since the server started; a
        # crontab entry at its next time: as beat would from a fresh start
        self.last_run: dict[str, dt.datetime] = dict.fromkeys(self.entries, started)
        self._lock = threading.Lock()

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
        return [name for name, sched in self.schedules.items() if sched.is_due(self.last_run[name]).is_due]

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


def floor_entries() -> dict[str, Mapping[str, Any]]:
    """The entries of ``CELERY_BEAT_SCHEDULE`` the embedded beat runs (``EMBEDDED_BEAT_ENTRIES``)."""
    names = getattr(settings, "EMBEDDED_BEAT_ENTRIES", ())
    schedule_ = settings.CELERY_BEAT_SCHEDULE
    return {name: schedule_[name] for name in names if name in schedule_}


def start(stop: threading.Event | None = None) -> threading.Thread:
    """Start the daemon thread that ticks every :data:`TICK_SECONDS` (the development server; it
    ends with the process, or once ``stop`` is set)."""
    beat = EmbeddedBeat(floor_entries(), lock_path=Path(settings.VAR_DIR) / "embedded-beat.lock")
    stop = stop or threading.Event()

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

    thread = threading.Thread(target=loop, name="embedded-beat", daemon=True)
    thread.start()
    logger.info("embedded beat: %s (no broker: beat's work runs in this process)", ", ".join(beat.entries))
    return thread
