"""Coup records: one interchange record (docs/coup-record.md) per coup revealed in the period (by
its creation, on the casino's gaming days), oldest first, for ``manage.py validate_coups``: chemin
de fer's coups, and the older games' settled coups (their ``"game"``, record and house settings,
older_games.selectors.game_coup_exported_record, asked through the games' wings) in the same
order of creation; the last line is ``{"anchor": {...}}``, the signed head of the casino's audit
chain (where the coups' events are) when the report was taken — one per chain for a report of
every casino (the validator skips them: they hold no record)."""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import Any

from django.db.models import Prefetch

from audit.anchors import Anchor
from chemin_de_fer.engine.interchange import record_to_dict
from reports.builders import Scope, in_english
from reports.builders.audit_trail import anchors_for
from reports.model import RecordReport
from tables.engine_bridge import exported_record
from tables.games import wings
from tables.gaming_day import Period
from tables.models import Casino, Coup, CoupStep, Table

#: the coup states that have been revealed (a void or unfinished coup has no record)
REVEALED_STATES = (Coup.State.AWAITING_CORRECTION, Coup.State.AWAITING_APPROVAL, Coup.State.SETTLED)


def coup_record_dicts(
    *, period: Period, table: Table | None = None, casino: Casino | None = None
) -> Iterator[dict[str, Any]]:
    """One record per coup revealed (created in the period), oldest first, chemin de fer's and the
    older games' merged by creation; a flagged coup's ``shoe_next`` holds the cards its correction
    took from the shoe."""
    chemin = _chemin_de_fer_records(period=period, table=table, casino=casino)
    start, end = period.bounds
    # every other game's, through its wing (tables.games): each keyed (created_at, 1, pk)
    others = [wing.coup_records(start=start, end=end, table=table, casino=casino) for wing in wings()]
    for _key, record in heapq.merge(chemin, *others, key=lambda pair: pair[0]):
        yield record


def _chemin_de_fer_records(
    *, period: Period, table: Table | None, casino: Casino | None
) -> Iterator[tuple[tuple[Any, int, int], dict[str, Any]]]:
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
        # its id (tables.engine_bridge.coup_record_id) names the table, the session and the shoe:
        # unique in the table's history, as import_coups needs (it imports an id once per table);
        # the older games' (T<table>-<game>-coup<n>) are numbered per table
        yield (coup.created_at, 0, coup.pk), record_to_dict(exported_record(coup, list(coup.steps.all())))


@in_english
def coup_records_report(scope: Scope, anchors: Sequence[Anchor]) -> RecordReport:
    # the coups' events are on their casino's chain: its anchor vouches for them (every chain's
    # without a casino)
    mine = anchors_for(scope, anchors)
    return RecordReport(
        records=coup_record_dicts(period=scope.period, table=scope.table, casino=scope.casino),
        trailers=tuple({"anchor": a.as_dict()} for a in mine),
        chain_head=mine[0].hash,
    )
