"""A service's transaction inside a caller's that is all or nothing: no savepoint.

A service that writes is ``atomic``: called alone it is its own transaction; called inside
another one, Django opens a savepoint for it (``SAVEPOINT`` and ``RELEASE``: two statements) so
that its caller could catch its failure and go on. The idempotent request's transaction
(core.services.idempotency ``idempotent_run``) never does: whatever the work raises, the claim,
the work and the stored answer are rolled back together. Inside it, a savepoint only costs two
round trips a write. So ``idempotent_run`` says so (:func:`whole_transaction`), and a hot-path
service decorated with :func:`service_atomic` then joins the transaction without a savepoint.

Should a caller inside that transaction catch such a service's failure all the same, Django has
marked the transaction for rollback: its next statement raises ``TransactionManagementError``,
loudly, and nothing half-written can be committed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from django.db import transaction

P = ParamSpec("P")
R = TypeVar("R")

#: True while the work of a transaction that is rolled back whole on any exception runs
_WHOLE: ContextVar[bool] = ContextVar("whole_transaction", default=False)


@contextmanager
def whole_transaction() -> Iterator[None]:
    """Inside this block, the caller's transaction is rolled back whole on any exception that
    leaves the block, and nothing in it catches a failure of a :func:`service_atomic` service."""
    token = _WHOLE.set(True)
    try:
        yield
    finally:
        _WHOLE.reset(token)


def in_whole_transaction() -> bool:
    """True inside a :func:`whole_transaction`: a failure there rolls everything back, so a
    statement that may be refused needs no savepoint of its own."""
    return _WHOLE.get()


def service_atomic(func: Callable[P, R]) -> Callable[P, R]:
    """``transaction.atomic`` for a service, without the savepoint inside a
    :func:`whole_transaction` (everywhere else, exactly ``transaction.atomic``)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with transaction.atomic(savepoint=not _WHOLE.get()):
            return func(*args, **kwargs)

    return wrapper
