"""Coup records: one interchange record (docs/coup-record.md) per coup revealed in the period (by
its creation, on the casino's gaming days), oldest first, for ``manage.py validate_coups``; the
last line is ``{"anchor": {...}}``, the audit chain's signed head when the report was taken (the
validator skips it: it holds no record)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Prefetch

from audit.anchors import Anchor
from reports.builders import Scope
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


def coup_records_report(scope: Scope, anchor: Anchor) -> RecordReport:
    return RecordReport(
        records=coup_record_dicts(period=scope.period, table=scope.table, casino=scope.casino),
        trailer={"anchor": anchor.as_dict()},
        chain_head=anchor.hash,
    )
