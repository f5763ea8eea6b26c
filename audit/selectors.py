"""Reads of the audit trail, chief among them the chain verification."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

from audit.canonical import GENESIS_HASH
from audit.chain_walk import chain_walk, chain_walk_orm
from audit.keys import audit_keys
from audit.models import AuditEvent, ChainVerification


@dataclass(frozen=True, slots=True)
class BrokenEvent:
    seq: int
    id: int
    reason: str


@dataclass(frozen=True, slots=True)
class ChainPoint:
    """An event of the chain by position and hash: where a verification ended."""

    seq: int
    hash: str


@dataclass(slots=True)
class ChainReport:
    checked: int = 0
    #: the first seq walked: 1 for the whole chain, past the vouched-for point for an incremental run
    from_seq: int = 1
    head_seq: int | None = None
    head_hash: str = GENESIS_HASH
    broken: list[BrokenEvent] = field(default_factory=list)
    #: events hashed with plain SHA-256 (before the cut-over to keyed hashes), and the last of them
    plain: int = 0
    last_plain_seq: int | None = None
    #: how many events each key id signed
    keys_used: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.broken

    @property
    def first_broken(self) -> BrokenEvent | None:
        return self.broken[0] if self.broken else None


def audit_events_for(*, object_type: str, object_id: str) -> QuerySet[AuditEvent]:
    """Every event about one object, oldest first."""
    return AuditEvent.objects.filter(object_type=object_type, object_id=object_id).order_by("seq")


def audit_chain_verify(*, after: ChainPoint | None = None) -> ChainReport:
    """Walk the chain in ``seq`` order and recheck every sequence number, link and hash: all of it,
    or (``after``, a point an earlier verification vouched for) only what was appended since, once
    that point's event is confirmed to still carry the hash it had.

    A keyed event's HMAC is recomputed with the key its ``key_id`` names (settings): whoever
    rewrites an event and re-hashes the chain after it without the key breaks every HMAC from
    there on. A plain (SHA-256) event is accepted only before the first keyed one and, when
    ``AUDIT_PLAIN_UNTIL_SEQ`` is set, up to that seq: a forger cannot "downgrade" the events he
    rewrites to hashes he can compute.

    Checking continues past a broken event (linking to its *stored* hash) so that one tampered
    row is reported once, not as a cascade — but a re-hashed stretch is reported event by event,
    since none of its HMACs match.
    """
    report = ChainReport()
    keys = audit_keys()
    plain_until = settings.AUDIT_PLAIN_UNTIL_SEQ
    keyed_seen = False
    expected_seq = 1
    expected_prev = GENESIS_HASH
    if after is not None:
        report.from_seq = after.seq + 1
        anchor = AuditEvent.objects.filter(seq=after.seq).values("id", "hash", "key_id").first()
        if anchor is None or anchor["hash"] != after.hash:
            report.broken.append(
                BrokenEvent(
                    seq=after.seq,
                    id=anchor["id"] if anchor else 0,
                    reason="the event an earlier verification vouched for is gone or its hash changed",
                )
            )
        keyed_seen = (
            bool(anchor and anchor["key_id"])
            or AuditEvent.objects.filter(seq__lte=after.seq).exclude(key_id="").exists()
        )
        expected_seq, expected_prev = after.seq + 1, after.hash
        report.head_seq, report.head_hash = after.seq, after.hash
    walk = chain_walk if connection.vendor == "postgresql" else chain_walk_orm
    for event in walk(from_seq=expected_seq, keys=keys):
        problems = []
        if event.seq != expected_seq:
            problems.append(f"seq {event.seq} where {expected_seq} was expected (events missing)")
        if event.prev_hash != expected_prev:
            problems.append("prev_hash does not match the previous event's hash")
        if event.key_id:
            keyed_seen = True
            report.keys_used[event.key_id] = report.keys_used.get(event.key_id, 0) + 1
            if event.computed is None:
                problems.append(f"hashed with key {event.key_id!r}, which is not configured")
            elif event.computed != event.hash:
                problems.append("content does not match its hash")
        else:
            report.plain += 1
            report.last_plain_seq = event.seq
            if keyed_seen:
                problems.append("plain SHA-256 hash after the cut-over to keyed hashes")
            elif plain_until is not None and event.seq > plain_until:
                problems.append(f"plain SHA-256 hash beyond AUDIT_PLAIN_UNTIL_SEQ={plain_until}")
            if event.computed != event.hash:
                problems.append("content does not match its hash")
        if problems:
            report.broken.append(BrokenEvent(seq=event.seq, id=event.id, reason="; ".join(problems)))
        report.checked += 1
        report.head_seq = event.seq
        report.head_hash = event.hash
        expected_seq = event.seq + 1
        expected_prev = event.hash
    return report


def audit_chain_vouched() -> ChainPoint | None:
    """The furthest point of the chain a successful verification vouched for (its head): where an
    incremental verification starts. None when nothing was verified yet (verify everything)."""
    last = (
        ChainVerification.objects.filter(ok=True, head_seq__isnull=False)
        .order_by("-head_seq", "-finished_at")
        .values("head_seq", "head_hash")
        .first()
    )
    if last is None or last["head_seq"] is None:
        return None
    return ChainPoint(seq=last["head_seq"], hash=last["head_hash"])


# ----------------------------------------------------------------- the review dashboard's reads


@dataclass(frozen=True, slots=True)
class ChainState:
    """What the dashboard shows of the trail: its length, its head, the last verification."""

    events: int
    head_seq: int | None
    head_hash: str
    head_at: dt.datetime | None
    last_verification: ChainVerification | None
    pending_since: dt.datetime | None  # a verification asked for and not finished yet


def audit_chain_state() -> ChainState:
    head = AuditEvent.objects.order_by("-seq").values("seq", "hash", "occurred_at").first()
    last = ChainVerification.objects.select_related("requested_by").first()
    asked = (
        AuditEvent.objects.filter(action="audit.chainverification.request")
        .order_by("-seq")
        .values_list("occurred_at", flat=True)
        .first()
    )
    return ChainState(
        events=AuditEvent.objects.count(),
        head_seq=head["seq"] if head else None,
        head_hash=head["hash"] if head else GENESIS_HASH,
        head_at=head["occurred_at"] if head else None,
        last_verification=last,
        pending_since=asked if asked is not None and (last is None or asked > last.started_at) else None,
    )


def audit_events_between(
    *, start: dt.datetime | None = None, end: dt.datetime | None = None
) -> QuerySet[AuditEvent]:
    """Events with ``start <= occurred_at < end`` (either bound optional), in ``seq`` order: what
    the audit-trail export streams. ``occurred_at`` never decreases along ``seq``, so the result
    is one unbroken stretch of the chain."""
    events = AuditEvent.objects.order_by("seq")
    if start is not None:
        events = events.filter(occurred_at__gte=start)
    if end is not None:
        events = events.filter(occurred_at__lt=end)
    return events
