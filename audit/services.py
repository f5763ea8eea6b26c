"""The only writer of the audit trail.

Every other service calls :func:`audit_record` inside its own transaction, so the business change
and its audit event commit or roll back together: nothing is changed without a trace and no trace
describes a change that did not happen.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

import orjson
from django.core.exceptions import PermissionDenied
from django.db import connection, models, transaction
from django.db.models.expressions import DatabaseDefault
from django.utils import timezone

from audit.canonical import GENESIS_HASH, event_hash_written, to_jsonable
from audit.models import AuditEvent, ChainVerification
from audit.selectors import ChainReport
from audit.snapshot import model_snapshot

# Arbitrary but fixed key for pg_advisory_xact_lock: "audit" in ASCII.
_CHAIN_LOCK_KEY = 0x6175646974


class AuditOutsideTransaction(RuntimeError):
    """audit_record was called outside a transaction: the event could outlive a rolled-back change."""


def _actor_and_label(actor: Any) -> tuple[Any, str]:
    if actor is None:
        return None, "system"
    if not getattr(actor, "is_authenticated", False):
        return None, "anonymous"
    return actor, actor.get_username()


def audit_chain_lock() -> None:
    """Serialise appenders until this transaction ends, so two events never share a predecessor.

    PostgreSQL: a transaction-scoped advisory lock (released at COMMIT/ROLLBACK). SQLite: every
    transaction already holds the database write lock (settings: transaction_mode IMMEDIATE).
    The UNIQUE constraints on ``seq`` and ``prev_hash`` back this up: a fork would fail to insert.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CHAIN_LOCK_KEY])


def _chain_head() -> tuple[int, str] | None:
    """The last event's ``(seq, hash)``, None for an empty chain. In SQL: every posting of the
    ledger appends an event, and the ORM took longer to build this query than the database to
    answer it (docs/ledger.md, "Measured")."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, hash FROM audit_auditevent ORDER BY seq DESC LIMIT 1")
        return cursor.fetchone()


def audit_record(
    *,
    actor: Any,
    action: str,
    target: models.Model | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append one event to the chain. Must run inside the caller's ``transaction.atomic()``.

    ``actor`` is the user who acted (``None`` for the system, an anonymous user for failed
    logins); ``target`` the model instance acted upon; ``before``/``after`` its relevant state.
    """
    # An explicit raise, not ``assert``: this must hold under ``python -O`` too.
    if not connection.in_atomic_block:
        raise AuditOutsideTransaction("audit_record must be called inside transaction.atomic()")
    if not action:
        raise ValueError("an audit event needs an action")
    audit_chain_lock()
    head = _chain_head()
    event = _event_build(
        head=(head[0], head[1]) if head else (0, GENESIS_HASH),
        actor=actor,
        action=action,
        target=target,
        before=before,
        after=after,
    )
    event.save(force_insert=True)
    return event


def _event_build(
    *,
    head: tuple[int, str],
    actor: Any,
    action: str,
    target: models.Model | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> AuditEvent:
    """The event that follows ``head`` (its ``(seq, hash)``; ``(0, GENESIS_HASH)`` for an empty
    chain), hashed: the one place an event's content is put together, for single and batched
    appends alike."""
    user, label = _actor_and_label(actor)
    event = AuditEvent(
        seq=head[0] + 1,
        # Taken after the lock, so occurred_at never goes backwards along seq.
        occurred_at=timezone.now(),
        actor=user,
        actor_label=label,
        action=action,
        object_type=target._meta.label_lower if target is not None else "",
        object_id=str(target.pk) if target is not None else "",
        # Stored in exactly the JSON form that is hashed, so verification recomputes the same bytes.
        before=to_jsonable(before),
        after=to_jsonable(after),
        prev_hash=head[1],
    )
    event.hash = event_hash_written(event)
    return event


class AuditBatch:
    """Events appended in memory and written together (``write``): a bulk writer (import_coups)
    that holds the chain's lock for its whole transaction. Each event is built exactly as
    :func:`audit_record` builds it, linked to the one before; the chain head is read once, under
    the lock (``audit_batch_open``), so nothing else can append in between. ``mark``/``rewind``
    drop the events appended since a mark (a record refused halfway leaves no trace)."""

    def __init__(self, head: tuple[int, str]) -> None:
        self.head = head
        self.events: list[AuditEvent] = []

    def append(
        self,
        *,
        actor: Any,
        action: str,
        target: models.Model | None = None,
        before: dict[str, Any] | None = None,
        after: dict[str, Any] | None = None,
    ) -> AuditEvent:
        if not action:
            raise ValueError("an audit event needs an action")
        event = _event_build(
            head=self.head, actor=actor, action=action, target=target, before=before, after=after
        )
        self.events.append(event)
        self.head = (event.seq, event.hash)
        return event

    def mark(self) -> tuple[int, tuple[int, str]]:
        return len(self.events), self.head

    def rewind(self, mark: tuple[int, tuple[int, str]]) -> None:
        del self.events[mark[0] :]
        self.head = mark[1]

    def write(self) -> None:
        """Insert the events appended so far (in seq order) and start afresh from the new head."""
        if not connection.in_atomic_block:
            raise AuditOutsideTransaction("an audit batch is written inside transaction.atomic()")
        rows_copy(AuditEvent, self.events)
        self.events = []


def _json_text(value: Any) -> str:
    """JSON text for a jsonb column (the database keeps its own binary form of it)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # what orjson does not take (an integer beyond 64 bits…): the slower encoder
        return json.dumps(value, ensure_ascii=False)


def rows_copy(model: type[models.Model], objs: Sequence[models.Model]) -> None:
    """INSERT ``objs`` with one PostgreSQL COPY (the values adapted in C: for thousands of rows with
    JSON, several times faster than a multi-row INSERT, whose parameters the client-side cursor
    quotes in Python; other databases get ``bulk_create``). Every concrete field is written but an
    id left to its sequence and a database default (``db_default``) left unset; triggers and
    constraints apply as to an INSERT. Nothing is read back: the caller sets the ids it needs
    beforehand."""
    if not objs:
        return
    if connection.vendor != "postgresql":  # no COPY: the ORM's INSERT, which reads the ids back
        model._default_manager.bulk_create(objs, batch_size=500)
        return
    first = objs[0]
    fields = [
        f
        for f in model._meta.concrete_fields
        if not (f.primary_key and first.pk is None)
        and not isinstance(getattr(first, f.attname), DatabaseDefault)
    ]
    # what the fields' get_db_prep_save would give, without its per-value cost: the attribute as it
    # is (ids, numbers, text, aware datetimes), JSON as its text
    names = [f.attname for f in fields]
    json_at = [i for i, f in enumerate(fields) if isinstance(f, models.JSONField)]
    columns = ", ".join(connection.ops.quote_name(f.column or f.attname) for f in fields)
    sql = f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for obj in objs:
            values = [getattr(obj, name) for name in names]
            for i in json_at:
                if values[i] is not None:
                    values[i] = _json_text(values[i])
            copy.write_row(values)


def audit_batch_open() -> AuditBatch:
    """Take the chain's lock for the rest of the transaction and start a batch at its head. Every
    event appended must be written (``AuditBatch.write``) before anything else appends to the
    chain in this transaction (an ``audit_record`` call reads the head from the table)."""
    if not connection.in_atomic_block:
        raise AuditOutsideTransaction("an audit batch is opened inside transaction.atomic()")
    audit_chain_lock()
    head = _chain_head()
    return AuditBatch((head[0], head[1]) if head else (0, GENESIS_HASH))


# ------------------------------------------------------------------------- chain verifications


@transaction.atomic
def chain_verification_record(
    *, report: ChainReport, started_at: dt.datetime, requested_by: Any = None
) -> ChainVerification:
    """Store the result of one verification run (the nightly task's or one asked for on the
    dashboard) and audit it: who asked, how far the chain was checked, where it broke."""
    first = report.first_broken
    verification = ChainVerification.objects.create(
        requested_by=requested_by if getattr(requested_by, "is_authenticated", False) else None,
        started_at=started_at,
        finished_at=max(timezone.now(), started_at),
        checked=report.checked,
        head_seq=report.head_seq,
        head_hash=report.head_hash,
        ok=report.ok,
        broken_count=len(report.broken),
        first_broken_seq=first.seq if first else None,
        first_broken_reason=first.reason[:300] if first else "",
    )
    audit_record(
        actor=requested_by,
        action="audit.chainverification.record",
        target=verification,
        after=model_snapshot(verification),
    )
    return verification


@transaction.atomic
def chain_verification_request(*, actor: Any) -> None:
    """Ask for a verification of the whole chain now: audited, then run by a Celery task once
    this transaction commits (in-process when there is no broker). The caller checks that the
    actor may ask (the pit boss's dashboard)."""
    if not getattr(actor, "is_authenticated", False):
        raise PermissionDenied("Log in to ask for a verification.")
    from audit.tasks import audit_chain_verify_task

    audit_record(actor=actor, action="audit.chainverification.request", target=None)
    actor_id = actor.pk
    transaction.on_commit(lambda: audit_chain_verify_task.delay(requested_by_id=actor_id))
