"""The audit trail: every event that occurred in the period, in ``seq`` order, with every field
needed to re-verify the hash chain offline given the key (docs/audit.md), one JSON object a line
(keys sorted), ending with ``{"anchor": {...}}``: the chain's signed head when the report was taken.

The chain is one for every casino, so this report is of all of them; with a casino its period
is that casino's gaming days, without one midnight to midnight UTC.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from audit.anchors import Anchor
from audit.canonical import event_content, to_jsonable
from audit.selectors import audit_events_between
from reports.builders import Scope
from reports.model import RecordReport


def audit_event_dict(event: Any) -> dict[str, Any]:
    """Every field the hash covers, in the form it is hashed (docs/audit.md: ``key_id`` only for a
    keyed event), plus the links."""
    return {**to_jsonable(event_content(event)), "prev_hash": event.prev_hash, "hash": event.hash}


def audit_event_dicts(scope: Scope) -> Iterator[dict[str, Any]]:
    start, end = scope.bounds()
    for event in audit_events_between(start=start, end=end).iterator(chunk_size=2000):
        yield audit_event_dict(event)


def audit_trail_report(scope: Scope, anchor: Anchor) -> RecordReport:
    return RecordReport(
        records=audit_event_dicts(scope),
        trailer={"anchor": anchor.as_dict()},
        chain_head=anchor.hash,
        sort_keys=True,
    )
