"""Domain errors and the one mapping from any refusal the services raise to an HTTP answer.

A service refuses by raising: a :class:`DomainError` subclass (which carries its HTTP status and a
stable code), Django's ``ValidationError`` (the input cannot be accepted), ``PermissionDenied``,
``Http404``, or ``IntegrityError`` (a database constraint refused a write that raced another one).
A transaction that the database itself broke off (a deadlock, a lock it waited for too long) is
not a bug either: :func:`busy_refusal` names it (409 ``retry`` / 503 ``lock_timeout``), once it
has been retried (core.transient); a database out of reach is 503 ``database_unavailable``
(:func:`unavailable_refusal`).
:func:`error_answer` turns each of them into the same ``(status, code, message, body)`` for every
surface — the REST API renders ``body`` as JSON, the croupier's screens pick their page from
``status`` and show ``messages`` — so a refusal means the same thing wherever it is met.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.db import IntegrityError, InterfaceError, OperationalError
from django.http import Http404
from django.utils.translation import gettext_noop

#: what a constraint refusal says: nothing was written, the client's view is out of date
INTEGRITY_MESSAGE = gettext_noop("This conflicts with a change recorded meanwhile: reload and retry.")
#: Django REST framework's own messages for a bare PermissionDenied / Http404 (same answer here)
PERMISSION_DENIED_MESSAGE = gettext_noop("You do not have permission to perform this action.")
NOT_FOUND_MESSAGE = gettext_noop("Not found.")


class DomainError(Exception):
    """A refusal of the domain: the request does not fit the rules or the current state.

    Subclasses set ``status`` (the HTTP status it answers with) and ``code`` (a stable, machine-
    readable name a client may branch on); ``message`` is for people.
    """

    status: ClassVar[int] = 400
    code: ClassVar[str] = "domain_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def body(self) -> dict[str, Any]:
        """The JSON answer of the API."""
        return {"code": self.code, "detail": self.message}


class Conflict(DomainError):
    """The request does not fit the current state, which moved on meanwhile (HTTP 409); the
    answer says where it stands (``current_step``, when the refusal is about a coup)."""

    status = 409
    code = "conflict"

    def __init__(self, message: str, *, current_step: int | None = None) -> None:
        super().__init__(message)
        self.current_step = current_step

    def body(self) -> dict[str, Any]:
        return {"detail": self.message, "current_step": self.current_step}


class RetryConflict(Conflict):
    """The database broke the transaction off to undo a deadlock (or a serialization failure):
    nothing was written; the same request, sent again, is expected to go through (HTTP 409)."""

    code = "retry"

    def body(self) -> dict[str, Any]:
        return {"code": self.code, **super().body()}


class DatabaseBusy(DomainError):
    """A lock was not granted in time (settings ``DB_LOCK_TIMEOUT_MS``): nothing was written;
    retry in a moment (HTTP 503)."""

    status = 503
    code = "lock_timeout"


class StatementTimeout(DatabaseBusy):
    """A statement ran longer than ``DB_STATEMENT_TIMEOUT_MS`` and was cancelled (HTTP 503)."""

    code = "statement_timeout"


class DatabaseUnavailable(DomainError):
    """The database cannot be reached (restarted, connection cut, failing over): HTTP 503 with
    ``Retry-After``, not a 500 — the request is fine, the moment is not. Whether a write that met
    it was committed cannot be known, so the client sends it again with the same Idempotency-Key
    (never recorded twice)."""

    status = 503
    code = "database_unavailable"


UNAVAILABLE_MESSAGE = (
    "The database cannot be reached just now: send the request again in a moment "
    "(with the same Idempotency-Key: it is never recorded twice)."
)


#: PostgreSQL's SQLSTATEs for a transaction the database broke off (Appendix A of its manual)
DEADLOCK_DETECTED, SERIALIZATION_FAILURE = "40P01", "40001"
LOCK_NOT_AVAILABLE, QUERY_CANCELED = "55P03", "57014"
BUSY_MESSAGE = gettext_noop("The database was busy and nothing was recorded: send it again.")


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a database error (psycopg 3's ``sqlstate``, psycopg2's ``pgcode``)."""
    for error in (exc, exc.__cause__):
        state = getattr(error, "sqlstate", None) or getattr(error, "pgcode", None)
        if state:
            return str(state)
    return None


#: SQLSTATE 0A000 (feature not supported) raised where PostgreSQL re-checks a prepared statement
#: (``RevalidateCachedQuery``): the statement's result changed type since it was prepared (a
#: migration altered or dropped a column it reads), "cached plan must not change result type"
FEATURE_NOT_SUPPORTED, PLAN_REVALIDATION = "0A000", "RevalidateCachedQuery"


def stale_prepared_plan(exc: BaseException) -> bool:
    """Whether ``exc`` is PostgreSQL refusing a statement prepared before a migration changed what
    it returns (casino/settings, DATABASE_PREPARE_THRESHOLD): nothing wrong with the request, and
    the same statement prepared again runs."""
    if sqlstate(exc) != FEATURE_NOT_SUPPORTED:
        return False
    for error in (exc, exc.__cause__):
        diag = getattr(error, "diag", None)
        if diag is not None and getattr(diag, "source_function", None) == PLAN_REVALIDATION:
            return True
    return False


def busy_refusal(exc: BaseException) -> DomainError | None:
    """The refusal a transaction broken off by the database stands for, None for any other error.

    Deadlock and serialization failure: 409 ``retry``; lock timeout (and SQLite's "database is
    locked"): 503 ``lock_timeout``; statement timeout: 503 ``statement_timeout``.
    """
    if not isinstance(exc, OperationalError):
        return None
    state = sqlstate(exc)
    if state in (DEADLOCK_DETECTED, SERIALIZATION_FAILURE):
        return RetryConflict(BUSY_MESSAGE)
    if state == LOCK_NOT_AVAILABLE or (state is None and "database is locked" in str(exc)):
        return DatabaseBusy(BUSY_MESSAGE)
    if state == QUERY_CANCELED:
        return StatementTimeout("The request took too long and nothing was recorded: try again in a moment.")
    return None


#: SQLSTATE classes of a database out of reach: connection exception (08), operator intervention
#: (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now), too many connections
UNAVAILABLE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "53300")


def unavailable_refusal(exc: BaseException) -> DomainError | None:
    """503 ``database_unavailable`` for a database error about the connection, not the request:
    an ``InterfaceError`` (connection already closed), an ``OperationalError`` whose SQLSTATE says
    so, or one with none from PostgreSQL's driver (connection refused or lost). SQLite's
    ``OperationalError`` without a SQLSTATE ("no such table") stays a bug."""
    if isinstance(exc, InterfaceError):
        return DatabaseUnavailable(UNAVAILABLE_MESSAGE)
    if not isinstance(exc, OperationalError) or busy_refusal(exc) is not None:
        return None
    state = sqlstate(exc)
    if state is not None:
        return DatabaseUnavailable(UNAVAILABLE_MESSAGE) if state.startswith(UNAVAILABLE_SQLSTATES) else None
    cause = exc.__cause__
    if cause is None or type(cause).__module__.startswith("sqlite3"):
        return None
    return DatabaseUnavailable(UNAVAILABLE_MESSAGE)


@dataclass(frozen=True, slots=True)
class ErrorAnswer:
    """A refusal as every surface shows it."""

    status: int
    code: str
    messages: tuple[str, ...]
    body: dict[str, Any]

    @property
    def message(self) -> str:
        return " ".join(self.messages)


def validation_messages(exc: ValidationError) -> list[str]:
    """Every message of a ValidationError, field errors included, in order. A message that is a
    ``str`` of its own kind (a sentence built from values, core.sentence: a screen says it
    again in its language) is handed on as it is, not copied into a plain ``str``."""
    errors = (
        [e for errors in exc.error_dict.values() for e in errors]
        if hasattr(exc, "error_dict")
        else exc.error_list
    )
    out: list[str] = []
    for error in errors:
        message = error.message
        if error.params:
            message = message % error.params
        out.append(message if isinstance(message, str) else str(message))
    return out


def validation_body(exc: ValidationError) -> dict[str, Any]:
    """``{"field": ["message"]}`` for field errors, ``{"detail": "..."}`` for the others."""
    if hasattr(exc, "error_dict"):
        return {
            ("non_field_errors" if field == NON_FIELD_ERRORS else field): messages
            for field, messages in exc.message_dict.items()
        }
    return {"detail": " ".join(exc.messages)}


def _detail(exc: Exception, default: str) -> str:
    # as Django REST framework words it: the exception's first argument, else its default message
    return str(exc.args[0]) if exc.args else default


def error_answer(exc: BaseException) -> ErrorAnswer | None:
    """The answer to a refusal, or None when ``exc`` is not one (a bug: let it become a 500)."""
    if isinstance(exc, DomainError):
        return ErrorAnswer(exc.status, exc.code, (exc.message,), exc.body())
    if isinstance(exc, ValidationError):
        return ErrorAnswer(400, "invalid", tuple(validation_messages(exc)), validation_body(exc))
    if isinstance(exc, PermissionDenied):
        detail = _detail(exc, PERMISSION_DENIED_MESSAGE)
        return ErrorAnswer(403, "permission_denied", (detail,), {"detail": detail})
    if isinstance(exc, Http404):
        detail = _detail(exc, NOT_FOUND_MESSAGE)
        return ErrorAnswer(404, "not_found", (detail,), {"detail": detail})
    if isinstance(exc, IntegrityError):
        return ErrorAnswer(
            409, "write_conflict", (INTEGRITY_MESSAGE,), {"detail": INTEGRITY_MESSAGE, "current_step": None}
        )
    if (busy := busy_refusal(exc) or unavailable_refusal(exc)) is not None:
        return error_answer(busy)
    return None
