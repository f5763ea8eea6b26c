"""Running a write once more when the database broke its transaction off.

A deadlock (PostgreSQL picks a victim), a serialization failure or a lock not granted within
``lock_timeout`` rolls the victim's transaction back whole. The lock order (tables/services/
locking.py) makes deadlocks rare, and waits are short, but neither is impossible (two transactions
opening the same new account; a slow statement holding a table's lock). Such a request is run
once more — it is safe: nothing of the first run remains — and, failing again, refused with
core.errors' ``retry`` (409) or ``lock_timeout`` (503) answer instead of a 500.

So is a transaction that met a statement its connection prepared before a migration changed what
the statement returns (core.errors.stale_prepared_plan): the rollback discards the connection's
prepared statements (psycopg does on every rollback), and the second run prepares them anew.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS, NotSupportedError, OperationalError, connections

from core.errors import busy_refusal, stale_prepared_plan

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: the pause before the second run (seconds, drawn at random): the transaction that won the
#: deadlock goes through first, instead of meeting the same one again straight away
RETRY_PAUSE = (0.01, 0.05)


def rolled_back_whole(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether no transaction of the code is open any more on ``using`` (a test case's own atomic
    blocks aside): the failed work's transaction was rolled back completely, so running it again
    cannot leave half of the first run behind."""
    conn = connections[using]
    return not conn.needs_rollback and all(
        getattr(block, "_from_testcase", False) for block in conn.atomic_blocks
    )


def run_retrying(work: Callable[[], T], *, using: str = DEFAULT_DB_ALIAS) -> T:
    """``work()`` (a whole transaction: it opens and ends its own ``atomic`` block), run once more
    if the database broke it off (deadlock, serialization failure, lock timeout, a statement
    prepared before the schema changed) and it rolled back completely; a second failure to get a
    lock raises core.errors' refusal (RetryConflict, DatabaseBusy) from the database's error. Any
    other error passes through untouched."""
    try:
        return work()
    except NotSupportedError as first:
        if not stale_prepared_plan(first) or not rolled_back_whole(using):
            raise
        # no other transaction to let through first: the second run goes straight away
        logger.warning("a statement prepared before the schema changed, running it once more: %s", first)
        return work()
    except OperationalError as first:
        refusal = busy_refusal(first)
        if refusal is None:
            raise
        if not rolled_back_whole(using):
            raise  # inside an enclosing transaction: the whole of it is to be run again, not this part
        logger.warning("transaction broken off by the database, running it once more: %s", first)
    time.sleep(random.uniform(*RETRY_PAUSE))
    try:
        return work()
    except OperationalError as second:
        refusal = busy_refusal(second)
        if refusal is None:
            raise
        logger.warning("transaction broken off by the database again, refused: %s", second)
        raise refusal from second
