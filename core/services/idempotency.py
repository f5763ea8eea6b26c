"""Idempotent requests: the first response to a (user, Idempotency-Key) pair is kept and replayed.

A client that did not hear the answer to a POST (the tablet lost the network) sends it again with
the same key; it must get the answer of the first attempt, and the work must not run twice.

One transaction does three things, in this order:

1. **claim** the key: INSERT an ``IdempotencyRecord`` (unique on user and key). A concurrent
   replay of the same key blocks on that unique index until the first transaction ends; then it
   either finds the finished response (first one committed) or claims the key itself (first one
   rolled back);
2. run the **work** (one service call and the rendering of its response);
3. **store** the status and body on the record (packed: core.answers).

A refused request (any 4xx) rolls back with its work — nothing of it is stored, so a retry runs
again (after the client fixed what was refused). An unexpected error rolls back the same way.
The same key with another request (method, path or body) is refused: :class:`IdempotencyKeyReused`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core.answers import answer_pack, answer_unpack
from core.atomic import whole_transaction
from core.errors import Conflict, DomainError
from core.models import IdempotencyRecord
from core.types import Staff

HEADER = "Idempotency-Key"
#: a key is 1-64 visible ASCII characters (a UUID fits); 64 because the coup step that a request
#: records keeps the key too (``CoupStep.idempotency_key``)
KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,64}$")


class IdempotencyKeyReused(DomainError):
    """The key was already used by this user for a different request (HTTP 422)."""

    status = 422
    code = "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__(
            "This Idempotency-Key was already used for a different request: use a new key for a new request."
        )


class IdempotencyInProgress(Conflict):
    """The key is claimed but has no response yet (cannot happen while the claim and the response
    are written in one transaction; kept as a guard, HTTP 409)."""

    code = "idempotency_in_progress"


#: the record's columns by field name (``user``'s is ``user_id``)
_FIELDS = {field.name: field for field in IdempotencyRecord._meta.concrete_fields}


def _column(name: str) -> str:
    return f'"{_FIELDS[name].column}"'


_TABLE = f'"{IdempotencyRecord._meta.db_table}"'
#: the claim and the answer, as fixed statements: every API write runs both, and the ORM's
#: ``create`` and ``save`` spent more CPU building them than the database spends running them
#: (about 0.8 ms a request on the 2-core machine: docs/benchmarks.md). PostgreSQL and SQLite.
_CLAIM = (
    f"INSERT INTO {_TABLE} ({_column('user')}, {_column('key')}, {_column('fingerprint')},"
    f" {_column('status_code')}, {_column('answer')}, {_column('created_at')})"
    " VALUES (%s, %s, %s, 0, %s, %s)"
)
_ANSWER = (
    f"UPDATE {_TABLE} SET {_column('status_code')} = %s, {_column('answer')} = %s"
    f" WHERE {_column('user')} = %s AND {_column('key')} = %s"
)


def _prepared(name: str, value: Any) -> Any:
    """``value`` as the column ``name`` takes it on this database (a datetime's text on SQLite,
    bytes' adapter), by the field's own conversion."""
    return _FIELDS[name].get_db_prep_save(value, connection)


def _claim(*, user: Staff, key: str, fingerprint: bytes) -> None:
    """INSERT the claim (no answer yet): IntegrityError when (user, key) is claimed already."""
    params = [user.pk, key, _prepared("fingerprint", fingerprint), _prepared("answer", b""),
              _prepared("created_at", timezone.now())]  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM, params)


def _answer_store(*, user: Staff, key: str, status: int, body: Any) -> None:
    params = [status, _prepared("answer", answer_pack(body)), user.pk, key]
    with connection.cursor() as cursor:
        cursor.execute(_ANSWER, params)


@dataclass(frozen=True, slots=True)
class IdempotentResponse:
    status: int
    body: Any
    replayed: bool


class _Refused(Exception):
    """The work answered with an error: roll everything back, keep nothing, pass the answer on."""

    def __init__(self, status: int, body: Any) -> None:
        super().__init__(status)
        self.status = status
        self.body = body


def idempotency_key_check(key: str | None) -> str:
    """The request's key, or a ValidationError naming the header (HTTP 400)."""
    if not key:
        raise ValidationError({HEADER: f"This header is required on every POST ({HEADER}: a new UUID)."})
    if not KEY_PATTERN.match(key):
        raise ValidationError({HEADER: "A key is 1 to 64 visible ASCII characters, without spaces."})
    return key


def request_fingerprint(*, method: str, path: str, body: Any) -> bytes:
    """SHA-256 (32 bytes) of the method, the path and the body as a JSON value (key order and
    whitespace do not matter; values do)."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(f"{method.upper()}\n{path}\n{canonical}".encode()).digest()


def idempotent_run(
    *,
    user: Staff,
    key: str,
    fingerprint: bytes,
    work: Callable[[], tuple[int, Any]],
) -> IdempotentResponse:
    """Run ``work`` once for (``user``, ``key``); replay its first response afterwards.

    ``work`` returns ``(status, body)`` with a JSON-ready body. It runs inside the transaction that
    holds the claim, so the services it calls join it (their ``atomic`` blocks become savepoints, except a
    ``core.atomic.service_atomic`` service's, which needs none: nothing here catches its failure).
    """
    key = idempotency_key_check(key)
    claimed = False
    try:
        with transaction.atomic():
            _claim(user=user, key=key, fingerprint=fingerprint)
            claimed = True
            # whatever the work raises leaves this block, and the claim goes with it: its services
            # need no savepoints of their own (core.atomic)
            with whole_transaction():
                status, body = work()
            if status >= 400:
                raise _Refused(status, body)
            _answer_store(user=user, key=key, status=status, body=body)
    except _Refused as refused:
        return IdempotentResponse(refused.status, refused.body, replayed=False)
    except IntegrityError:
        if claimed:
            raise  # the work's own conflict, not the claim's
        stored = IdempotencyRecord.objects.filter(user=user, key=key).first()
        if stored is None:
            raise
        return _replay(stored, fingerprint)
    return IdempotentResponse(status, body, replayed=False)


def _replay(stored: IdempotencyRecord, fingerprint: bytes) -> IdempotentResponse:
    if bytes(stored.fingerprint) != fingerprint:
        raise IdempotencyKeyReused()
    if not stored.status_code:
        raise IdempotencyInProgress("This request is still being processed: retry in a moment.")
    return IdempotentResponse(stored.status_code, answer_unpack(stored.answer), replayed=True)
