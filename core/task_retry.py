"""What a periodic task does when the database broke its transaction off (issue 20, item 7).

A deadlock, a serialization failure or a lock not granted within ``lock_timeout`` rolls the task's
transaction back whole. The floor's own requests run such a transaction once more
(core.transient); the per-minute tasks (the alert scan, the rollups, the fee billing) used to fail
instead and wait for the next beat, their run lost. Each task wrapped here is idempotent (a second
run writes nothing the first wrote), so it runs again after a pause that doubles (0.5 s, 1 s, 2 s,
4 s, 8 s; jittered, so two workers that lost to each other do not meet again at once); the sixth
failure raises, as before. Any other error passes through at once.

The retry is the task's own loop, not Celery's ``autoretry_for``: it works the same in a worker
and in the README's default (tasks run in-process, core.embedded_beat), where an eager Celery
retry would surface as an error instead of running again.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.db import OperationalError

from core.errors import busy_refusal
from core.transient import rolled_back_whole

logger = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: the pauses (seconds, before the jitter) between the runs of a task the database broke off
PAUSES = (0.5, 1.0, 2.0, 4.0, 8.0)


def retry_broken_off(work: Callable[P, T]) -> Callable[P, T]:
    """``work`` run again, up to len(PAUSES) more times, while the database breaks it off."""

    @functools.wraps(work)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        for pause in PAUSES:
            try:
                return work(*args, **kwargs)
            except OperationalError as exc:
                if busy_refusal(exc) is None or not rolled_back_whole():
                    raise
                waited = pause * random.uniform(0.5, 1.0)
                logger.warning(
                    "%s: broken off by the database, again in %.1f s: %s", work.__name__, waited, exc
                )
                time.sleep(waited)
        return work(*args, **kwargs)

    return run
