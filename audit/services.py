"""The only writer of the audit trail.

Every other service calls :func:`audit_record` inside its own transaction, so the business change
and its audit event commit or roll back together: nothing is changed without a trace and no trace
describes a change that did not happen.

The chain is appended to LAST, at the end of the transaction: ``audit_record`` checks the event
and keeps it on the connection, and the database backend (audit/backends/) appends every event the
transaction kept, in the order recorded, just before COMMIT (or, inside a test's transaction, when
the outermost atomic block of the code under test is released). Only then is the chain's lock
taken: held from the append to COMMIT, not from the first audited change to COMMIT, so tables that
write at the same time queue on it for a moment instead of for their whole transaction, and no
transaction ever waits for a row lock while holding it (docs/audit.md, "Serialising writers").
A rolled-back savepoint drops the events recorded inside it, as it drops the change they describe.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict, deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
from django.apps import apps
from django.core.exceptions import PermissionDenied
from django.db import connection, models, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models.expressions import DatabaseDefault
from django.http import HttpRequest
from django.utils import timezone

from audit.canonical import GENESIS_HASH, event_hash_written, to_jsonable
from audit.flush import audit_flush_point, connection_now
from audit.keys import audit_key_current
from audit.models import GLOBAL_CHAIN, AuditEvent, ChainVerification, HashField
from audit.rows import RowSpec, rows_settle, specs_check
from audit.selectors import ChainReport
from audit.snapshot import model_snapshot
from core.client_ip import client_ip
from core.model_kit import attributes_reader, model_new

#: the task that walks the chains (audit.tasks), named: the outbox sends it by its name
AUDIT_VERIFY_TASK = "audit.verify_chain"

# Arbitrary but fixed key for pg_advisory_xact_lock: "audit" in ASCII. The global chain's lock
# (the one lock every transaction took before the chains were split: an old process still running
# during a rollout and a new one exclude each other on the global chain).
_CHAIN_LOCK_KEY = 0x6175646974
# A casino's chain: the two-int4 form pg_advisory_xact_lock(class, casino id), a key space apart
# from the one-bigint keys (PostgreSQL tags them differently), "audt" in ASCII.
_CASINO_LOCK_CLASS = 0x61756474


# ---------------------------------------------------------------- which chain an event goes on
# Which audit chain an event goes on: its casino's, or the global one (docs/audit.md, "Chains").
#
# Each casino has its own hash chain, so that the casinos' writers never queue on one another's
# lock; what belongs to no casino (users, logins, tokens, settings) goes on the global chain, 0.
#
# The casino of an event is, in order: what the caller says (``audit_record(casino=...)``); else
# found from the target, along the path of non-null foreign keys that leads from the target's model
# to ``tables.Casino`` (``casino_path``: worked out once per model from ``_meta``, or named in
# ``_PATHS`` where a model has several roads and one is the authority); else the global chain.
#
# Resolution costs no query when the path's related objects are already on the instance (the hot
# path's services lock and attach them: a coup's ``shoe.table``); otherwise the id of the first hop
# that is not loaded is kept and every such event of the transaction is resolved at COMMIT, one
# query per model and path (``chains_resolve``), before any chain lock is taken.

CASINO_MODEL = "tables.casino"

#: the authoritative road to the casino where a model has more than one (a coup's banker is a
#: player of the same casino, but the coup belongs to the table its shoe is dealt at)
_PATHS: dict[str, tuple[str, ...]] = {
    "tables.coup": ("shoe", "table", "casino"),
    "tables.bet": ("coup", "shoe", "table", "casino"),
    "tables.coupstep": ("coup", "shoe", "table", "casino"),
    "tables.shoecard": ("shoe", "table", "casino"),
    "tables.banktax": ("coup", "shoe", "table", "casino"),
    "tables.shoe": ("table", "casino"),
    "tables.seat": ("session", "table", "casino"),
    "tables.spectator": ("session", "table", "casino"),
    "tables.bankturn": ("session", "table", "casino"),
    "tables.bankshare": ("turn", "session", "table", "casino"),
    "tables.bankoffer": ("session", "table", "casino"),
}
#: how far the automatic search looks (a bet is four hops from its casino)
_MAX_HOPS = 5


@cache
def casino_path(label: str) -> tuple[str, ...] | None:
    """The foreign keys (field names) from model ``label`` to its casino, the last one pointing at
    ``tables.Casino``; ``()`` for the casino itself; None for a model that belongs to no casino.

    Only non-null foreign keys count (a nullable one may be empty, and then says nothing); the
    shortest road wins, ties going to the field declared first."""
    if label == CASINO_MODEL:
        return ()
    if label in _PATHS:
        return _PATHS[label]
    model = apps.get_model(label)
    queue: deque[tuple[type[models.Model], tuple[str, ...]]] = deque([(model, ())])
    seen = {label}
    while queue:
        current, path = queue.popleft()
        if len(path) >= _MAX_HOPS:
            continue
        for field in current._meta.concrete_fields:
            if not isinstance(field, models.ForeignKey) or field.null:
                continue
            target: type[models.Model] = field.related_model
            target_label = target._meta.label_lower
            if target_label == CASINO_MODEL:
                return (*path, field.name)
            if target_label not in seen:
                seen.add(target_label)
                queue.append((target, (*path, field.name)))
    # a nullable casino (a built-in rule profile, an alert about no casino): on the instance only
    if any(
        isinstance(f, models.ForeignKey) and f.related_model._meta.label_lower == CASINO_MODEL
        for f in model._meta.concrete_fields
    ):
        return ("casino",)
    return None


@dataclass(frozen=True, slots=True)
class ChainLookup:
    """A chain not known yet: the casino id reached from ``model``'s row ``pk`` along ``lookup``
    (an ORM path such as ``table__casino_id``), read at COMMIT with the transaction's others."""

    model: type[models.Model]
    pk: Any
    lookup: str


def chain_of(target: models.Model | None, casino: Any = None) -> int | ChainLookup:
    """The chain of an event about ``target``: ``casino`` (a Casino or its id) when given, else the
    target's casino found from what is loaded on it (or a ``ChainLookup`` for COMMIT), else 0."""
    if casino is not None:
        return int(casino if isinstance(casino, int) else casino.pk)
    if target is None:
        return GLOBAL_CHAIN
    path = casino_path(target._meta.label_lower)
    if path is None:
        return GLOBAL_CHAIN
    if not path:  # the casino itself
        return int(target.pk) if target.pk is not None else GLOBAL_CHAIN
    obj: models.Model = target
    for i, name in enumerate(path):
        field = obj._meta.get_field(name)
        value = getattr(obj, field.attname)  # type: ignore[union-attr]
        if value is None:
            return GLOBAL_CHAIN  # a nullable casino left empty: global
        if i == len(path) - 1:
            return int(value)
        if not field.is_cached(obj):  # type: ignore[union-attr]
            # not loaded: the rest of the road from that row, at COMMIT
            rest = "__".join(path[i + 1 :]) + "_id"
            return ChainLookup(model=field.related_model, pk=value, lookup=rest)  # type: ignore[arg-type]
        obj = field.get_cached_value(obj)  # type: ignore[union-attr,assignment]
    return GLOBAL_CHAIN  # pragma: no cover (the loop returns)


def chains_resolve(lookups: list[ChainLookup], *, using: str) -> dict[ChainLookup, int]:
    """The chain of every lookup, one query per model and path; a row that is gone (deleted in the
    same transaction) leaves its events on the global chain."""
    wanted: dict[tuple[type[models.Model], str], set[Any]] = defaultdict(set)
    for lookup in lookups:
        wanted[(lookup.model, lookup.lookup)].add(lookup.pk)
    found: dict[tuple[type[models.Model], str, Any], int] = {}
    for (model, path), pks in wanted.items():
        rows = model._base_manager.using(using).filter(pk__in=pks).values_list("pk", path)
        found.update(((model, path, pk), int(casino_id)) for pk, casino_id in rows if casino_id is not None)
    return {lk: found.get((lk.model, lk.lookup, lk.pk), GLOBAL_CHAIN) for lk in lookups}


class AuditOutsideTransaction(RuntimeError):
    """audit_record was called outside a transaction: the event could outlive a rolled-back change."""


def _actor_and_label(actor: Any) -> tuple[Any, str]:
    if actor is None:
        return None, "system"
    if not getattr(actor, "is_authenticated", False):
        return None, "anonymous"
    return actor, actor.get_username()


def audit_chain_lock(conn: BaseDatabaseWrapper | None = None, chain: int = GLOBAL_CHAIN) -> None:
    """Serialise the appenders of ``chain`` until this transaction ends, so two events never share
    a predecessor; the other chains' appenders do not wait.

    PostgreSQL: a transaction-scoped advisory lock (released at COMMIT/ROLLBACK), its key derived
    from the chain id. SQLite: every transaction already holds the database write lock (settings:
    transaction_mode IMMEDIATE). UNIQUE(chain, seq) and UNIQUE(chain, prev_hash) back this up: a
    fork would fail to insert. Taken only by :func:`audit_pending_flush`, the last thing a
    transaction does before COMMIT, chain by chain in ascending order (so two transactions that
    touch the same chains never wait for each other crosswise).
    """
    conn = conn or connection
    if conn.vendor == "postgresql":
        with conn.cursor() as cursor:
            if chain == GLOBAL_CHAIN:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CHAIN_LOCK_KEY])
            else:
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_CASINO_LOCK_CLASS, chain])


def _chain_head(conn: BaseDatabaseWrapper, chain: int = GLOBAL_CHAIN) -> tuple[int, str] | None:
    """The last event of ``chain``: ``(seq, hash)``, None for an empty chain (an index lookup on
    UNIQUE(chain, seq)). In SQL: every posting of the ledger appends an event, and the ORM took
    longer to build this query than the database to answer it (docs/ledger.md, "Measured")."""
    with conn.cursor() as cursor:
        cursor.execute(
            "SELECT seq, hash FROM audit_auditevent WHERE chain = %s ORDER BY seq DESC LIMIT 1", [chain]
        )
        row = cursor.fetchone()
        return (int(row[0]), bytes(row[1]).hex()) if row else None  # the column's 32 bytes


def _chain_head_locked(conn: BaseDatabaseWrapper, chain: int) -> tuple[int, str] | None:
    """Take ``chain``'s lock, then read its head. PostgreSQL: in one round trip, through
    ``audit_chain_head_locked`` (audit 0007), whose second statement runs on a snapshot taken
    after the lock was granted (a plpgsql function's statements each take their own), so it reads
    what the previous holder committed; one query less on every audited transaction."""
    if conn.vendor != "postgresql":
        audit_chain_lock(conn, chain)
        return _chain_head(conn, chain)
    with conn.cursor() as cursor:
        cursor.execute("SELECT head_seq, head_hash FROM audit_chain_head_locked(%s)", [chain])
        row = cursor.fetchone()
        return (int(row[0]), str(row[1])) if row else None


# The columns an append writes (all but ``id``), in the model's order.
_FIELDS = [f for f in AuditEvent._meta.concrete_fields if not f.primary_key]
_INSERT_SQL = "INSERT INTO {table} ({columns}) VALUES {rows} RETURNING {pk}"
#: more events than this are appended with COPY (one INSERT's parameters also run out at 65,535)
_COPY_FROM = 200


def _chains_settle(conn: BaseDatabaseWrapper, events: list[AuditEvent]) -> None:
    """Give every event whose chain waited for a lookup (``ChainLookup`` above) its chain:
    one query per model and path for the whole transaction, before any chain lock is taken."""
    waiting = [e for e in events if getattr(e, "_chain_lookup", None) is not None]
    if not waiting:
        return
    resolved = chains_resolve([e._chain_lookup for e in waiting], using=conn.alias)  # type: ignore[attr-defined]
    for event in waiting:
        event.chain = resolved[event._chain_lookup]  # type: ignore[attr-defined]
        event._chain_lookup = None  # type: ignore[attr-defined]


def _append(conn: BaseDatabaseWrapper, events: list[AuditEvent]) -> None:
    """Link ``events`` to their chains' heads (each chain's events in the order recorded) and
    insert them, each chain under its own lock, the locks taken in ascending chain order.

    Raw SQL rather than the ORM: this may run inside COMMIT, where Django's own atomic blocks
    (which ``bulk_create`` opens) are not to be nested, and it is the only time the locks are held.
    """
    key_id, key = audit_key_current()  # from settings: the database never sees the key
    _chains_settle(conn, events)
    # the digests of the rows the events bind, as the transaction leaves them (before any lock)
    rows_settle(events, using=conn.alias, before=getattr(conn, "audit_rows_before", None))
    by_chain: dict[int, list[AuditEvent]] = {}
    for event in events:
        by_chain.setdefault(event.chain, []).append(event)
    heads: dict[int, tuple[int, str]] = getattr(conn, "audit_heads", None) or {}
    conn.audit_heads = heads  # type: ignore[attr-defined]
    (only,) = by_chain if len(by_chain) == 1 else (None,)
    if conn.vendor == "postgresql" and only is not None and only in heads and len(events) <= _COPY_FROM:
        # the head this connection appended last is most often still the head: link to it and
        # insert in one statement that takes the lock and inserts only if it is
        inserted, head = _append_at_head(conn, events, heads[only], key_id, key)
        if inserted:
            heads[only] = (events[-1].seq, str(events[-1].hash))
            return
        # another transaction appended meanwhile: the lock is held now, link to the real head
        heads.pop(only)
        _link(by_chain[only], head, key_id, key)
    else:
        for chain in sorted(by_chain):
            _link(by_chain[chain], _chain_head_locked(conn, chain), key_id, key)
    if len(by_chain) > 1:
        # inserted chain by chain: ids follow the order the chains were linked in
        events = [event for chain in sorted(by_chain) for event in by_chain[chain]]
    if conn.vendor == "postgresql" and len(events) > _COPY_FROM:
        # a bulk writer's thousands of events (import_coups): one COPY, the ids taken beforehand
        with conn.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
                [AuditEvent._meta.db_table, len(events)],
            )
            ids = sorted(row[0] for row in cursor.fetchall())
        for event, pk in zip(events, ids, strict=True):
            event.pk = pk
        rows_copy(AuditEvent, events, conn=conn)
        for event in events:
            event._state.adding, event._state.db = False, conn.alias
        return
    values, columns = _values(events, conn)
    row = "(" + ", ".join(["%s"] * len(_FIELDS)) + ")"
    sql = _INSERT_SQL.format(
        table=f'"{AuditEvent._meta.db_table}"',
        columns=columns,
        rows=", ".join([row] * len(events)),
        pk='"id"',
    )
    with conn.cursor() as cursor:
        cursor.execute(sql, values)
        ids = [r[0] for r in cursor.fetchall()]
    _saved(events, ids, conn)  # RETURNING gives the rows in VALUES order
    if len(by_chain) == 1:
        heads[events[-1].chain] = (events[-1].seq, str(events[-1].hash))


def _values(events: list[AuditEvent], conn: BaseDatabaseWrapper) -> tuple[list[Any], str]:
    """The events' columns as the INSERT's parameters, row after row, and the columns' names."""
    values = [f.get_db_prep_save(getattr(e, f.attname), conn) for e in events for f in _FIELDS]
    return values, ", ".join(f'"{f.column}"' for f in _FIELDS)


def _saved(events: list[AuditEvent], ids: Sequence[int], conn: BaseDatabaseWrapper) -> None:
    """Mark ``events`` as the rows the database holds under ``ids`` (in the same order)."""
    for event, pk in zip(events, ids, strict=True):
        event.pk = pk
        event._state.adding, event._state.db = False, conn.alias


def _link(events: list[AuditEvent], head: tuple[int, str] | None, key_id: str, key: bytes) -> None:
    """Give one chain's ``events`` their seq, predecessor, time and hash after ``head``."""
    seq, prev_hash = head if head else (0, GENESIS_HASH)
    for event in events:
        seq += 1
        event.seq, event.prev_hash, event.key_id = seq, prev_hash, key_id
        # Taken under the lock (or, linked to the head this connection wrote, kept only if no one
        # appended since), so occurred_at never goes backwards along a chain's seq.
        event.occurred_at = timezone.now()
        event.hash = prev_hash = event_hash_written(event, key)


def _append_at_head(
    conn: BaseDatabaseWrapper, events: list[AuditEvent], expected: tuple[int, str], key_id: str, key: bytes
) -> tuple[bool, tuple[int, str] | None]:
    """PostgreSQL, one chain: link ``events`` to the ``expected`` head (the hashes need it before
    the INSERT: the key never reaches the database), then, in one statement, take the chain's lock
    and read its head (``audit_chain_head_locked``, whose read runs after the lock is granted) and
    insert the events only if that head is ``expected``. Returns whether they were inserted, and
    the real head (None: an empty chain), the lock held either way. UNIQUE(chain, seq) and
    UNIQUE(chain, prev_hash) still refuse a fork."""
    _link(events, expected, key_id, key)
    values, columns = _values(events, conn)
    row = "(" + ", ".join(f"%s::{f.db_type(conn)}" for f in _FIELDS) + ")"
    sql = (
        "WITH head AS MATERIALIZED (SELECT head_seq, head_hash FROM audit_chain_head_locked(%s)), "
        "at_head AS MATERIALIZED (SELECT 1 FROM head WHERE head_seq = %s AND head_hash = %s), "
        f'added AS (INSERT INTO "{AuditEvent._meta.db_table}" ({columns}) '
        f"SELECT * FROM (VALUES {', '.join([row] * len(events))}) AS v ({columns}) "
        'WHERE EXISTS (SELECT 1 FROM at_head) RETURNING "id") '
        "SELECT h.head_seq, h.head_hash, (SELECT array_agg(id ORDER BY id) FROM added) "
        "FROM (SELECT 1) AS one LEFT JOIN head AS h ON true"
    )
    with conn.cursor() as cursor:
        cursor.execute(sql, [events[0].chain, expected[0], expected[1], *values])
        head_seq, head_hash, ids = cursor.fetchone()
    head = (int(head_seq), str(head_hash)) if head_seq is not None else None
    if ids is None:
        return False, head
    _saved(events, sorted(ids), conn)  # ids follow the VALUES order
    return True, head


def audit_pending_flush(conn: Any) -> None:
    """Append the events this transaction kept (the backend calls this just before COMMIT)."""
    pending, conn.audit_pending, conn.audit_flush_at = conn.audit_pending, [], None
    if pending:
        _append(conn, [event for _, event in pending])
    conn.audit_rows_before = {}  # what the transaction loaded: its bindings are written


def audit_pending_discard(conn: Any, sid: str | None = None) -> None:
    """Forget the events kept since savepoint ``sid`` (all of them when None): rolled back."""
    if sid is None:
        conn.audit_pending = []
    else:
        conn.audit_pending = [(sids, event) for sids, event in conn.audit_pending if sid not in sids]
    if not conn.audit_pending:
        conn.audit_flush_at = None


def audit_pending_mark() -> int | None:
    """How many events this transaction keeps to append, for ``audit_pending_rewind``; None when
    events are not kept but appended at once (a backend that does not defer), where nothing can be
    taken back but by rolling back."""
    conn: Any = connection
    return len(conn.audit_pending) if audit_flush_point(conn) is not None else None


def audit_pending_rewind(mark: int) -> None:
    """Forget the events recorded since ``mark`` (``audit_pending_mark``): a bulk writer that
    drops, in memory, a change it had started (import_coups' refused record) drops their trace."""
    conn: Any = connection
    del conn.audit_pending[mark:]
    if not conn.audit_pending:
        conn.audit_flush_at = None


def rows_copy(
    model: type[models.Model], objs: Sequence[models.Model], *, conn: BaseDatabaseWrapper | None = None
) -> None:
    """INSERT ``objs`` with one PostgreSQL COPY (the values adapted in C: for thousands of rows with
    JSON, several times faster than a multi-row INSERT, whose parameters the client-side cursor
    quotes in Python; other databases get ``bulk_create``). Every concrete field is written but an
    id left to its sequence and a database default (``db_default``) left unset; triggers and
    constraints apply as to an INSERT. Nothing is read back: the caller sets the ids it needs
    beforehand."""
    conn = conn or connection
    if not objs:
        return
    if conn.vendor != "postgresql":  # no COPY: the ORM's INSERT, which reads the ids back
        model._default_manager.using(conn.alias).bulk_create(objs, batch_size=500)
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
    # a hash's hex as the 32 bytes its column keeps (HashField)
    hash_at = [i for i, f in enumerate(fields) if isinstance(f, HashField)]
    columns = ", ".join(conn.ops.quote_name(f.column or f.attname) for f in fields)
    sql = f"COPY {conn.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN"
    # every row's attributes in one call (the import copies some 40 rows a coup)
    read = attributes_reader(model, names)
    with conn.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        write = copy.write_row
        if not json_at and not hash_at:
            for obj in objs:
                write(read(obj))
            return
        for obj in objs:
            values = list(read(obj))
            for i in json_at:
                if values[i] is not None:
                    values[i] = _json_text(values[i])
            for i in hash_at:
                values[i] = fields[i].get_prep_value(values[i])
            write(values)


def _json_text(value: Any) -> str:
    """JSON text for a jsonb column (the database keeps its own binary form of it)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # what orjson does not take (an integer beyond 64 bits…): the slower encoder
        return json.dumps(value, ensure_ascii=False)


#: the event's actor field: its cache is where ``AuditEvent(actor=user)`` keeps the user
_ACTOR = AuditEvent._meta.get_field("actor")


def audit_record(
    *,
    actor: Any,
    action: str,
    target: models.Model | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    casino: Any = None,
    rows: Sequence[RowSpec] = (),
) -> AuditEvent:
    """Record one event on its chain. Must run inside the caller's ``transaction.atomic()``.

    ``actor`` is the user who acted (``None`` for the system, an anonymous user for failed
    logins); ``target`` the model instance acted upon; ``before``/``after`` its relevant state.
    ``casino`` (a Casino or its id) puts the event on that casino's chain; without it the chain is
    the target's casino (``chain_of`` above), or the global chain for what belongs to no casino.
    ``rows``: the rows of bound tables this change wrote (model instances, ``RowWritten`` or ``RowsWhere``),
    bound to the event by their digests as the transaction leaves them (audit/rows.py).

    The event is checked and its content fixed now; it is appended (``seq``, ``occurred_at``,
    ``prev_hash``, ``hash`` and ``pk`` set on the returned instance) at the end of the transaction,
    after every other lock it takes (see the module docstring).
    """
    # this thread's connection (an audit.backends wrapper, as a rule), looked up once: a bulk
    # writer records tens of thousands of events, and each lookup through the proxy costs more
    # than the rest of the attribute read
    conn: Any = connection_now()
    # An explicit raise, not ``assert``: this must hold under ``python -O`` too.
    if not conn.in_atomic_block:
        raise AuditOutsideTransaction("audit_record must be called inside transaction.atomic()")
    if not action:
        raise ValueError("an audit event needs an action")
    user, label = _actor_and_label(actor)

    # built as the import builds its rows (core.model_kit.model_new), the user cached as the
    # ``actor=`` keyword caches him
    event = model_new(
        AuditEvent,
        occurred_at=timezone.now(),  # provisional: set again when appended
        actor_id=user.pk if user is not None else None,
        actor_label=label,
        action=action,
        object_type=target._meta.label_lower if target is not None else "",
        object_id=str(target.pk) if target is not None else "",
        # Stored in exactly the JSON form that is hashed, so verification recomputes the same bytes.
        before=to_jsonable(before),
        after=to_jsonable(after),
        prev_hash=GENESIS_HASH,
    )
    if user is not None:
        _ACTOR.set_cached_value(event, user)
    event._bind = specs_check(rows) if rows else None  # type: ignore[attr-defined]
    chain = chain_of(target, casino)
    if isinstance(chain, ChainLookup):  # the target's road to its casino is not loaded: at COMMIT
        event.chain, event._chain_lookup = GLOBAL_CHAIN, chain  # type: ignore[attr-defined]
    else:
        event.chain = chain
    point = audit_flush_point(conn)
    if point is None:
        _append(conn, [event])
    else:
        # tagged with the savepoints it was recorded under, to be dropped with any of them
        conn.audit_pending.append((frozenset(s for s in conn.savepoint_ids if s), event))
        conn.audit_flush_at = point
    return event


# ------------------------------------------------------------------------- chain verifications


@transaction.atomic
def chain_verification_record(
    *, report: ChainReport, started_at: dt.datetime, requested_by: Any = None
) -> ChainVerification:
    """Store the result of one verification run (the nightly task's or one asked for on the
    dashboard) and audit it: who asked, how far the chain was checked, where it broke."""
    first = report.first_broken
    verification = ChainVerification.objects.create(
        chain=report.chain,
        requested_by=requested_by if getattr(requested_by, "is_authenticated", False) else None,
        started_at=started_at,
        finished_at=max(timezone.now(), started_at),
        checked=report.checked,
        from_seq=report.from_seq,
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
def chain_verification_request(*, actor: Any, chains: Collection[int] | None = None) -> None:
    """Ask for a verification of every chain now (or of ``chains`` only: a pit boss's casinos'
    and the global one): audited (the event names the chains asked for, when not all of them),
    then run by a Celery task once this transaction commits (in-process when there is no broker).
    The caller checks that the actor may ask, and which chains (the pit boss's dashboard)."""
    if not getattr(actor, "is_authenticated", False):
        raise PermissionDenied("Log in to ask for a verification.")
    from core.services.outbox import outbox_enqueue

    asked = sorted({int(chain) for chain in chains}) if chains is not None else None
    audit_record(
        actor=actor,
        action="audit.chainverification.request",
        target=None,
        after={"chains": asked} if asked is not None else None,
    )
    kwargs: dict[str, Any] = {"requested_by_id": actor.pk}
    if asked is not None:
        kwargs["chains"] = asked
    # through the outbox: a broker that is down delays the run, and neither loses it nor fails
    # the request (a run sent twice stores one more verification of a read-only check)
    outbox_enqueue(task=AUDIT_VERIFY_TASK, kwargs=kwargs)


def request_client(request: HttpRequest | None) -> dict[str, str]:
    """Who was at the other end of a request, as an audit event records it (address, browser)."""
    if request is None:
        return {}
    return {
        "ip": client_ip(request),
        "user_agent": request.META.get("HTTP_USER_AGENT", "")[:200],
    }
