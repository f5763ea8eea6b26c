"""Coup records: one interchange record (docs/coup-record.md) per coup revealed in the period (by
its creation, on the casino's gaming days), oldest first, for ``manage.py validate_coups``; the
last line is ``{"anchor": {...}}``, the signed head of the casino's audit chain (where the coups'
events are) when the report was taken — one per chain for a report of every casino (the validator
skips them: they hold no record)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django.db.models import Prefetch

from audit.anchors import Anchor
from reports.builders import Scope
from reports.builders.audit_trail import anchors_for
from reports.model import RecordReport
from review.period import Period
from tables.engine_bridge import exported_record
from tables.models import Casino, Coup, CoupStep, Table
from tables.rules.interchange import record_to_dict

#: the coup states that have been revealed (a void or unfinished coup has no record)
REVEALED_STATES = (Coup.State.AWAITING_CORRECTION, Coup.State.AWAITING_APPROVAL, Coup.State.SETTLED)


def coup_record_dicts(
    *, period: Period, table: Table | None = None, casino: Casino | None = None
) -> Iterator[dict[str, Any]]:
    """One record per coup revealed (created in the period), oldest first; a flagged coup's
    ``shoe_next`` holds the cards its correction took from the shoe."""
    start, end = period.bounds
    coups = Coup.objects.filter(state__in=REVEALED_STATES, created_at__gte=start, created_at__lt=end)
    if table is not None:
        coups = coups.filter(shoe__table=table)
    if casino is not None:
        coups = coups.filter(shoe__table__casino=casino)
    coups = (
        coups.select_related("shoe")
        .prefetch_related(Prefetch("steps", queryset=CoupStep.objects.order_by("index")))
        .order_by("created_at", "pk")
    )
    for coup in coups.iterator(chunk_size=500):
        yield record_to_dict(exported_record(coup, list(coup.steps.all())))


def coup_records_report(scope: Scope, anchors: Sequence[Anchor]) -> RecordReport:
    # the coups' events are on their casino's chain: its anchor vouches for them (every chain's
    # without a casino)
    mine = anchors_for(scope, anchors)
    return RecordReport(
        records=coup_record_dicts(period=scope.period, table=scope.table, casino=scope.casino),
        trailers=tuple({"anchor": a.as_dict()} for a in mine),
        chain_head=mine[0].hash,
    )
