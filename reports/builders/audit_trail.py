"""The audit trail: every event that occurred in the period, chain by chain, each in ``seq`` order,
with every field needed to re-verify the hash chains offline given the key (docs/audit.md), one
JSON object a line (keys sorted), ending with ``{"anchor": {...}}`` lines: the chains' signed heads
when the report was taken.

With a casino, the report is that casino's chain (its events, on its gaming days) and its anchor;
without one, every chain (the global one first) and every anchor, midnight to midnight UTC.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from audit.anchors import Anchor, anchor_make
from audit.canonical import event_content, to_jsonable
from audit.selectors import audit_events_between
from reports.builders import Scope, in_english
from reports.model import RecordReport


def audit_event_dict(event: Any) -> dict[str, Any]:
    """Every field the hash covers, in the form it is hashed (docs/audit.md: ``key_id`` only for a
    keyed event, ``chain`` only for a casino's), plus the links, and ``chain`` always (0: the global
    chain, whose events do not hash it: drop it before hashing when it is 0)."""
    return {
        **to_jsonable(event_content(event)),
        "chain": event.chain,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def audit_event_dicts(scope: Scope) -> Iterator[dict[str, Any]]:
    start, end = scope.bounds()
    events = audit_events_between(start=start, end=end)
    if scope.casino is not None:  # that casino's chain, which verifies on its own
        events = events.filter(chain=scope.casino.pk)
    for event in events.iterator(chunk_size=2000):
        yield audit_event_dict(event)


def anchors_for(scope: Scope, anchors: Sequence[Anchor]) -> list[Anchor]:
    """The anchors a report of ``scope`` vouches with: its casino's chain's, or every chain's."""
    if scope.casino is None:
        return list(anchors)
    return [a for a in anchors if a.chain == scope.casino.pk] or [anchor_make(chain=scope.casino.pk)]


@in_english
def audit_trail_report(scope: Scope, anchors: Sequence[Anchor]) -> RecordReport:
    mine = anchors_for(scope, anchors)
    return RecordReport(
        records=audit_event_dicts(scope),
        trailers=tuple({"anchor": a.as_dict()} for a in mine),
        chain_head=mine[0].hash,
        sort_keys=True,
    )
