"""Reads of the audit trail, chief among them the chain verification."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

from audit.anchor_file import anchor_newest
from audit.canonical import GENESIS_HASH
from audit.chain_walk import chain_walk, chain_walk_orm
from audit.keys import audit_keys
from audit.models import GLOBAL_CHAIN, AuditEvent, ChainVerification
from audit.rows import READ_CHUNK, RowReader, binding_unpack, bound_models, row_reader


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
    #: which chain was walked: 0 the global one, else a casino's id
    chain: int = GLOBAL_CHAIN
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


@dataclass(frozen=True, slots=True)
class BoundRow:
    """A row an event binds (audit.rows), as it stands now. An event that names its rows rather
    than copying them (a step's: its index and kind, the coupstep row bound by digest) shows a
    person what it recorded through this."""

    table: str
    pk: int
    #: every column, by the name the digest gives it (None: the row is no longer there)
    values: dict[str, Any] | None
    #: its digest now is the one this event bound: the row is as the event wrote it (a row bound
    #: again by a later event, a coup as it is played, differs from an earlier event's binding)
    as_bound: bool


def audit_bound_rows(
    events: Sequence[AuditEvent], *, tables: Collection[str] | None = None, using: str = "default"
) -> dict[int, list[BoundRow]]:
    """The rows each event binds (only those of ``tables``, if given), by event id, in the order
    of its binding: one SELECT per table (per 500 rows) for all the events together, so that a
    page of events costs as many statements as the tables it binds, not one a row."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for event in events:
        for table, pk, _packed in event.rows or ():
            if tables is None or table in tables:
                wanted[table].add(int(pk))
    by_table = {m._meta.db_table: m for m in bound_models()}
    found: dict[tuple[str, int], tuple[RowReader, tuple[Any, ...]]] = {}
    for table, pks in wanted.items():
        model = by_table.get(table)
        if model is None:  # a table no longer bound: nothing to show of it
            continue
        reader = row_reader(model, using)
        ids = sorted(pks)
        for at in range(0, len(ids), READ_CHUNK):
            for values in reader.values(pk__in=ids[at : at + READ_CHUNK]):
                found[(table, int(values[reader.pk_at]))] = (reader, values)
    shown: dict[int, list[BoundRow]] = {}
    for event in events:
        rows = shown[event.pk] = []
        for table, pk, packed in event.rows or ():
            if tables is not None and table not in tables:
                continue
            hit = found.get((table, int(pk)))
            if hit is None:
                rows.append(BoundRow(table=table, pk=int(pk), values=None, as_bound=False))
                continue
            reader, values = hit
            try:
                digest = binding_unpack(packed).digest
            except ValueError:  # a forged binding: it vouches for nothing
                digest = None
            rows.append(
                BoundRow(
                    table=table,
                    pk=int(pk),
                    values=dict(zip(reader.columns, values, strict=True)),
                    as_bound=reader.state(values, prints=False).digest == digest,
                )
            )
    return shown


# the chains present, by a loose index scan of UNIQUE(chain, seq): one index probe per chain
# rather than a scan of every event (SELECT DISTINCT would read them all)
_CHAINS_SQL = """
WITH RECURSIVE c(chain) AS (
    SELECT MIN(chain) FROM audit_auditevent
    UNION ALL
    SELECT (SELECT MIN(chain) FROM audit_auditevent WHERE chain > c.chain) FROM c WHERE c.chain IS NOT NULL
)
SELECT chain FROM c WHERE chain IS NOT NULL
"""


def audit_chains() -> list[int]:
    """The chains that hold at least one event, ascending (0, the global chain, first)."""
    with connection.cursor() as cursor:
        cursor.execute(_CHAINS_SQL)
        return [int(row[0]) for row in cursor.fetchall()]


def audit_chain_heads() -> dict[int, ChainPoint]:
    """Every chain's head (its last event), by chain."""
    heads: dict[int, ChainPoint] = {}
    for chain in audit_chains():
        head = AuditEvent.objects.filter(chain=chain).order_by("-seq").values_list("seq", "hash").first()
        if head is not None:
            heads[chain] = ChainPoint(seq=head[0], hash=head[1])
    return heads


def audit_chains_verify(
    *, chain: int | None = None, chains: Collection[int] | None = None, incremental: bool = False
) -> list[ChainReport]:
    """Verify every chain (or only ``chain``, or only those of ``chains``: a pit boss's casinos'
    and the global one), in ascending chain order: each from its first event, or (``incremental``)
    from the point its last successful verification vouched for. A chain of ``chains`` with no
    event yet is walked too (and found empty)."""
    if chain is not None:
        chains = [chain]
    chains = sorted(set(chains)) if chains is not None else audit_chains() or [GLOBAL_CHAIN]
    return [audit_chain_verify(chain=c, after=audit_chain_vouched(chain=c) if incremental else None)
            for c in chains]  # fmt: skip


def audit_chain_verify(*, chain: int = GLOBAL_CHAIN, after: ChainPoint | None = None) -> ChainReport:
    """Walk one chain (0: the global one, else a casino's) in ``seq`` order and recheck every
    sequence number, link and hash: all of it, or (``after``, a point an earlier verification
    vouched for) only what was appended since, once that point's event is confirmed to still
    carry the hash it had. A casino's chain starts at the genesis hash like the global one, and
    every one of its events must be keyed (they were all written after the cut-over to keys).

    A keyed event's HMAC is recomputed with the key its ``key_id`` names (settings): whoever
    rewrites an event and re-hashes the chain after it without the key breaks every HMAC from
    there on. A plain (SHA-256) event is accepted only before the first keyed one and, when
    ``AUDIT_PLAIN_UNTIL_SEQ`` is set, up to that seq: a forger cannot "downgrade" the events he
    rewrites to hashes he can compute.

    Checking continues past a broken event (linking to its *stored* hash) so that one tampered
    row is reported once, not as a cascade — but a re-hashed stretch is reported event by event,
    since none of its HMACs match.
    """
    report = ChainReport(chain=chain)
    keys = audit_keys()
    plain_until = settings.AUDIT_PLAIN_UNTIL_SEQ
    keyed_seen = False
    expected_seq = 1
    expected_prev = GENESIS_HASH
    if after is not None:
        report.from_seq = after.seq + 1
        anchor = AuditEvent.objects.filter(chain=chain, seq=after.seq).values("id", "hash", "key_id").first()
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
            or AuditEvent.objects.filter(chain=chain, seq__lte=after.seq).exclude(key_id="").exists()
        )
        expected_seq, expected_prev = after.seq + 1, after.hash
        report.head_seq, report.head_hash = after.seq, after.hash
    walk = chain_walk if connection.vendor == "postgresql" else chain_walk_orm
    for event in walk(chain=chain, from_seq=expected_seq, keys=keys):
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
            if chain != GLOBAL_CHAIN:
                # a casino's chain began after the cut-over: a plain event there is a forgery
                problems.append("plain SHA-256 hash on a casino's chain (all its events are keyed)")
            elif keyed_seen:
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


def audit_chain_vouched(*, chain: int = GLOBAL_CHAIN) -> ChainPoint | None:
    """The furthest point of ``chain`` vouched for: its newest signed anchor, kept outside the
    database (audit.anchors; an anchor is written only over a verified head). Where an incremental
    verification starts, once that point's event is confirmed to still carry the anchored hash.
    None without an anchor (verify everything). Never a ``ChainVerification`` row: the
    application's database role can insert one (issue 20)."""
    anchor = anchor_newest(chain=chain)
    if anchor is None or anchor.seq == 0:
        return None
    return ChainPoint(seq=anchor.seq, hash=anchor.hash)


# ----------------------------------------------------------------- the review dashboard's reads


@dataclass(frozen=True, slots=True)
class ChainState:
    """What the dashboard shows of the trail (of the chains its reader oversees): its length, its
    head, the latest verification of each chain."""

    events: int
    head_seq: int | None
    head_hash: str
    head_at: dt.datetime | None
    #: the latest verification shown first: a failed one's when there is one, else the newest
    last_verification: ChainVerification | None
    pending_since: dt.datetime | None  # a verification asked for and not finished yet
    #: the chain of the newest event (``head_*``), and how many chains there are
    head_chain: int = GLOBAL_CHAIN
    chains: int = 0
    #: the global chain's newest signed anchor (outside the database): how much of the tail is
    #: vouched for, and how long ago; None without an anchor file or an anchor
    newest_anchor_seq: int | None = None
    newest_anchor_at: dt.datetime | None = None
    #: the last verification that walked the whole of a chain (the nightly run's)
    last_full_at: dt.datetime | None = None
    #: the latest verification of each chain shown, the failed ones first, then by chain: one
    #: chain's break never hides another's
    verifications: tuple[ChainVerification, ...] = ()
    #: only some chains are shown (a reader of some casinos: theirs and the global chain)
    scoped: bool = False


def chain_verifications_latest(*, chains: Collection[int] | None = None) -> list[ChainVerification]:
    """The latest stored verification of each chain (of ``chains`` only, when given), ascending by
    chain."""
    latest: dict[int, ChainVerification] = {}
    recent = ChainVerification.objects.select_related("requested_by").order_by("-finished_at", "-id")
    if chains is not None:
        recent = recent.filter(chain__in=sorted(set(chains)))
    for verification in recent[:500]:
        latest.setdefault(verification.chain, verification)
    return [latest[chain] for chain in sorted(latest)]


#: how many of the newest verification requests the dashboard looks through for one about the
#: chains its reader oversees (a request names its chains, or none: every chain)
_REQUESTS_READ = 50


def _asked_since(chains: Collection[int] | None) -> dt.datetime | None:
    """When the newest verification that covers one of ``chains`` (None: any) was asked for."""
    requests = (
        AuditEvent.objects.filter(action="audit.chainverification.request")
        .order_by("-id")
        .values_list("occurred_at", "after")
    )
    if chains is None:
        return next((at for at, _ in requests[:1]), None)
    for at, after in requests[:_REQUESTS_READ]:
        asked = (after or {}).get("chains")
        if asked is None or set(asked) & set(chains):
            return at
    return None


def audit_chain_state(*, chains: Collection[int] | None = None) -> ChainState:
    """The trail as the dashboard shows it: every chain, or (``chains``) only those, a pit boss's
    casinos' and the global one: their length, their newest event, the latest verification of each
    (every failed one), the newest full verification among them, a request of theirs still
    running. The global chain's newest anchor is shown to all (the anchor file is the group's)."""
    wanted = None if chains is None else set(chains)
    heads: dict[int, dict[str, Any]] = {}
    for chain in audit_chains():
        if wanted is not None and chain not in wanted:
            continue
        head = (
            AuditEvent.objects.filter(chain=chain)
            .order_by("-seq")
            .values("id", "seq", "hash", "occurred_at")
            .first()
        )
        if head is not None:
            heads[chain] = dict(head)
    # the newest event of the chains shown: ids are given at the append, under the chain's lock
    newest = max(heads.items(), key=lambda item: item[1]["id"], default=None)
    latest = chain_verifications_latest(chains=wanted)
    # a chain whose latest verification failed is what the dashboard must show first, whatever
    # the others; every failed one is shown, then the others by chain
    shown = tuple(sorted(latest, key=lambda v: (v.ok, v.chain)))
    newest_run = max(latest, key=lambda v: (v.started_at, v.pk), default=None)
    asked = _asked_since(wanted)
    anchor = anchor_newest(chain=GLOBAL_CHAIN)
    full = ChainVerification.objects.filter(from_seq=1)
    if wanted is not None:
        full = full.filter(chain__in=sorted(wanted))
    return ChainState(
        # every chain is gapless from seq 1, so its head's seq is its length: no COUNT(*) over the
        # whole trail each time the dashboard opens
        events=sum(head["seq"] for head in heads.values()),
        head_seq=newest[1]["seq"] if newest else None,
        head_hash=newest[1]["hash"] if newest else GENESIS_HASH,
        head_at=newest[1]["occurred_at"] if newest else None,
        last_verification=(
            shown[0]
            if shown and not shown[0].ok
            else max(latest, key=lambda v: (v.finished_at, v.pk), default=None)
        ),
        pending_since=(
            asked if asked is not None and (newest_run is None or asked > newest_run.started_at) else None
        ),
        head_chain=newest[0] if newest else GLOBAL_CHAIN,
        chains=len(heads),
        newest_anchor_seq=anchor.seq if anchor else None,
        newest_anchor_at=anchor.moment if anchor else None,
        last_full_at=full.order_by("-finished_at").values_list("finished_at", flat=True).first(),
        verifications=shown,
        scoped=wanted is not None,
    )


def audit_events_between(
    *, start: dt.datetime | None = None, end: dt.datetime | None = None
) -> QuerySet[AuditEvent]:
    """Events with ``start <= occurred_at < end`` (either bound optional), chain by chain, each in
    ``seq`` order: what the audit-trail export streams. ``occurred_at`` never decreases along a
    chain's ``seq``, so each chain's events are one unbroken stretch of it."""
    events = AuditEvent.objects.order_by("chain", "seq")
    if start is not None:
        events = events.filter(occurred_at__gte=start)
    if end is not None:
        events = events.filter(occurred_at__lt=end)
    return events
