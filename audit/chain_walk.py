"""The audit chain walked at the speed of the disk (PostgreSQL): one server-side cursor over the
rows as plain tuples, the canonical content rebuilt with orjson, the HMAC in a tight loop.

``audit.canonical.event_hash`` stays the definition of an event's hash. This walker computes the
same bytes by a faster road (no model instances, no JSONField decoding, orjson for the canonical
JSON); wherever that road could differ from the definition (a value orjson does not take, such as
an integer beyond 64 bits, or any HMAC that does not match), the event is loaded and re-hashed by
``event_hash`` before anything is called broken. So the fast road can make a run slower, never a
verdict different.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import connection, transaction

from audit.canonical import event_hash
from audit.models import AuditEvent

#: rows fetched per round trip from the server-side cursor
FETCH_ROWS = 10_000

# occurred_at formatted by the database exactly as to_jsonable writes an instant (UTC, microseconds),
# the hashes (32 bytes each, HashField) as the hex they are hashed and compared as
_SQL = """
SELECT seq, id, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
       actor_id, actor_label, action, object_type, object_id, before::text, after::text,
       encode(prev_hash, 'hex'), encode(hash, 'hex'), key_id, chain, rows::text
FROM {table} WHERE chain = %s AND seq >= %s ORDER BY seq
"""


@dataclass(frozen=True, slots=True)
class WalkedEvent:
    seq: int
    id: int
    prev_hash: str
    hash: str
    key_id: str
    #: the hash recomputed from the content (HMAC with ``key`` for a keyed event, else SHA-256);
    #: None when the event names a key that is not configured
    computed: str | None


def _canonical(row: tuple[Any, ...]) -> bytes:
    """``canonical_json(event_content(event))`` for a row of ``_SQL``; raises TypeError or
    orjson.JSONDecodeError for what only the reference encoder takes."""
    _seq, _id, at, actor_id, label, action, otype, oid, before, after, _prev, _hash, key_id, chain, rows = row
    content: dict[str, Any] = {
        "seq": row[0],
        "occurred_at": at,
        "actor_id": actor_id,
        "actor_label": label,
        "action": action,
        "object_type": otype,
        "object_id": oid,
        "before": orjson.loads(before) if before is not None else None,
        "after": orjson.loads(after) if after is not None else None,
    }
    if key_id:
        content["key_id"] = key_id
    if chain:
        content["chain"] = chain
    if rows is not None:
        content["rows"] = orjson.loads(rows)
    return orjson.dumps(content, option=orjson.OPT_SORT_KEYS)


def _reference_hash(pk: int, key: bytes | None) -> str:
    return event_hash(AuditEvent.objects.get(pk=pk), key)


def chain_walk_orm(*, chain: int = 0, from_seq: int, keys: dict[str, bytes]) -> Iterator[WalkedEvent]:
    """The same walk through the ORM and ``event_hash`` alone (SQLite, and the reference the fast
    walk is tested against)."""
    events = AuditEvent.objects.filter(chain=chain, seq__gte=from_seq).order_by("seq")
    for event in events.iterator(chunk_size=2000):
        key = keys.get(event.key_id) if event.key_id else None
        computed = None if event.key_id and key is None else event_hash(event, key)
        yield WalkedEvent(
            seq=event.seq,
            id=event.pk,
            prev_hash=event.prev_hash,
            hash=event.hash,
            key_id=event.key_id,
            computed=computed,
        )


def chain_walk(*, chain: int = 0, from_seq: int, keys: dict[str, bytes]) -> Iterator[WalkedEvent]:
    """Every event of ``chain`` from ``from_seq`` on, in seq order, with its hash recomputed
    (the index of UNIQUE(chain, seq) serves the order). PostgreSQL only
    (the caller falls back to the ORM walk elsewhere). Runs in one read-only transaction, so the
    walk sees one snapshot of the chain however long it takes."""
    sql = _SQL.format(table=connection.ops.quote_name(AuditEvent._meta.db_table))
    new_hmac, sha256 = hmac.new, hashlib.sha256
    with transaction.atomic(), connection.chunked_cursor() as cursor:
        cursor.execute(sql, [chain, from_seq])
        while rows := cursor.fetchmany(FETCH_ROWS):
            for row in rows:
                key_id: str = row[12]
                key = keys.get(key_id) if key_id else None
                if key_id and key is None:
                    computed = None
                else:
                    try:
                        content = _canonical(row)
                    except (TypeError, orjson.JSONDecodeError):
                        computed = _reference_hash(row[1], key)
                    else:
                        message = row[10].encode("ascii") + b"\n" + content
                        computed = (
                            new_hmac(key, message, hashlib.sha256).hexdigest()
                            if key is not None
                            else sha256(message).hexdigest()
                        )
                        if computed != row[11]:
                            # the definition decides: a difference of encoding is not a break
                            computed = _reference_hash(row[1], key)
                yield WalkedEvent(
                    seq=row[0], id=row[1], prev_hash=row[10], hash=row[11], key_id=key_id, computed=computed
                )
