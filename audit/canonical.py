"""Canonical JSON and the (keyed) hash of an audit event (the byte layout is in docs/audit.md).

The same functions serve the writer (audit.services) and the verifier (audit.selectors), so a
chain written by one version of the code is re-checked with exactly the same bytes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import uuid
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from audit.models import AuditEvent

GENESIS_HASH = "0" * 64
_PLAIN = frozenset({str, int, bool, type(None)})


def to_jsonable(value: Any) -> Any:
    """``value`` as plain JSON types, in the form it will have after a round trip through the DB.

    Refused on purpose: floats (chips are integers; a float would not survive every JSON store
    bit-for-bit), naive datetimes (ambiguous instant) and non-string dict keys (JSON would turn
    them into strings, so the stored record would differ from the hashed one).
    """
    kind = type(value)
    # the common exact types first (an audit payload is mostly these), a plain leaf kept as it is
    # without a call of its own; subclasses take the long way
    if kind in _PLAIN:
        return value
    if kind is dict and (out := _dict_of_text_keys(value)) is not None:
        return out
    if kind is list:
        return [item if type(item) in _PLAIN else to_jsonable(item) for item in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        raise TypeError("floats are not allowed in audit records (amounts are integer chips)")
    if isinstance(value, dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("naive datetime in an audit record")
        return instant_text(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):  # a wall-clock time of day (a casino's gaming-day cut-off)
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"audit record keys must be strings, got {key!r}")
            out[key] = to_jsonable(item)
        return out
    if isinstance(value, list | tuple):
        return [to_jsonable(item) for item in value]
    raise TypeError(f"cannot put {type(value).__name__} in an audit record")


def instant_text(at: dt.datetime) -> str:
    """An aware instant as audit records and row digests write it: UTC, microseconds, a "Z"
    (``%Y-%m-%dT%H:%M:%S.%fZ``). ISO's form where it gives the same characters, strftime costing
    about one and a half times as much (every event has an instant, every bound row one or two):
    ISO's "+00:00" becomes the "Z"; a year before 1000, which %Y does not pad, keeps the strftime."""
    if at.tzinfo is not dt.UTC:
        at = at.astimezone(dt.UTC)
    if type(at) is dt.datetime and at.year >= 1000:
        text = at.isoformat()  # without timespec=, whose keyword alone costs a third of the call
        return text[:-6] + "Z" if at.microsecond else text[:-6] + ".000000Z"
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _dict_of_text_keys(value: dict[Any, Any]) -> dict[str, Any] | None:
    """``to_jsonable`` of a plain dict whose keys are all text; None at the first key that is not
    (the long way then names it, converting the items before it alike)."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        if type(key) is not str:
            return None
        out[key] = item if type(item) in _PLAIN else to_jsonable(item)
    return out


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8 (not \\u-escaped), NaN refused."""
    return json.dumps(
        to_jsonable(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def event_content(event: AuditEvent) -> dict[str, Any]:
    """Every field of an event that the hash covers (all but ``id``, ``prev_hash`` and ``hash``).

    ``key_id`` is covered only when the event is keyed: an event hashed before the cut-over to
    keyed hashes has none, and its content is byte for byte what it was when it was written.
    ``chain`` only when it is a casino's (not 0, the global chain): every event written before the
    chains were split is on the global chain, and its content is unchanged; a casino's event names
    its chain, so it cannot be moved to another chain (or the global one) and still verify.
    ``rows`` only when the event binds rows (audit.rows): an event written before rows were bound
    hashes as it did."""
    content = {
        "seq": event.seq,
        "occurred_at": event.occurred_at,
        "actor_id": event.actor_id,
        "actor_label": event.actor_label,
        "action": event.action,
        "object_type": event.object_type,
        "object_id": event.object_id,
        "before": event.before,
        "after": event.after,
    }
    if event.key_id:
        content["key_id"] = event.key_id
    if event.chain:
        content["chain"] = event.chain
    if event.rows is not None:
        content["rows"] = event.rows
    return content


def _digest(prev_hash: str, content: bytes, key: bytes | None) -> str:
    """HMAC-SHA256 keyed with ``key`` (SHA-256 for a plain event, ``key`` None) over ``prev_hash``
    (64 ASCII hex digits), one LF byte, then the canonical content."""
    message = prev_hash.encode("ascii") + b"\n" + content
    if key is None:
        return hashlib.sha256(message).hexdigest()
    # hmac.new with the OpenSSL constructor: measured faster here than hmac.digest(..., "sha256"),
    # which looks the digest up by name on every call (docs/audit.md, "Measured")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def event_hash(event: AuditEvent, key: bytes | None = None) -> str:
    """The hash ``event`` must carry: HMAC-SHA256 with the key named by its ``key_id`` (``key``, or
    looked up in settings: ``audit.keys.UnknownAuditKey`` if it is not configured), plain SHA-256
    for an event without one (written before the cut-over)."""
    if event.key_id and key is None:
        from audit.keys import audit_key

        key = audit_key(event.key_id)
    return _digest(event.prev_hash, canonical_json(event_content(event)), key if event.key_id else None)


def event_hash_written(event: AuditEvent, key: bytes | None) -> str:
    """``event_hash`` of an event the writer has just built (its ``key_id`` set, ``key`` that key),
    whose ``before`` and ``after`` are already in JSON form (``to_jsonable``'s output, on which it
    is the identity): the same bytes, without walking them a second time. The verifier always
    uses ``event_hash``."""
    content = event_content(event)
    content["occurred_at"] = to_jsonable(event.occurred_at)
    return _digest(event.prev_hash, _sorted_json(content), key if event.key_id else None)


def _sorted_json(content: dict[str, Any]) -> bytes:
    """``canonical_json``'s bytes of content already in JSON form: orjson's sorted output is the
    same bytes (keys sorted by code point, only the quote, the backslash and control characters
    escaped, in the same way) for what it takes, and costs a fraction of the standard encoder's
    (a bulk writer hashes tens of thousands of events: import_coups); what it refuses (an integer
    beyond 64 bits, nesting deeper than it goes) takes the standard encoder."""
    try:
        return orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return canonical_json(content)
