"""Reads for the corrections queue (docs/review.md): the coups whose restored settlement waits for
a pit boss, each row with its violations and whether the viewer may decide. No writes here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.fields.json import KT

from tables.models import Coup, CoupStep, Table
from tables.permissions import can_approve, coups_recorded_by, in_casinos
from tables.wording import (
    PIT_BOSS_ONLY_REFUSAL,
    RECORDER_REVIEW_REFUSAL,
    SELF_REVIEW_REFUSAL,
    violation_items,
)

if TYPE_CHECKING:  # django-stubs-ext is a dev requirement
    from django_stubs_ext import WithAnnotations

#: rows per page of the queue
QUEUE_PAGE_SIZE = 20


def _latest_correction(field: Any) -> Subquery:
    """A subquery for one value of the coup's latest correction step (a field or a JSON key)."""
    steps = CoupStep.objects.filter(coup=OuterRef("pk"), kind=CoupStep.Kind.CORRECTION).order_by("-index")
    return Subquery(steps.values(field)[:1] if isinstance(field, str) else steps.values(value=field)[:1])


class QueueAnnotations(TypedDict):
    """What the queue adds to each of its coups (see review_queue)."""

    submitted_by_id: int | None
    submitted_by_name: str | None
    submitted_at: dt.datetime | None
    played_outcome: str | None
    restored_outcome: str | None
    wrong_steps: list[CoupStep]


if TYPE_CHECKING:
    QueueCoup = WithAnnotations[Coup, QueueAnnotations]


def _for_queue(coups: QuerySet[Coup]) -> QuerySet[QueueCoup]:
    return (
        coups.select_related("shoe", "shoe__table", "banker")
        .annotate(
            submitted_by_id=_latest_correction("actor_id"),
            submitted_by_name=_latest_correction("actor__username"),
            submitted_at=_latest_correction("created_at"),
            played_outcome=Subquery(
                CoupStep.objects.filter(coup=OuterRef("pk"), kind=CoupStep.Kind.REVEAL).values(
                    outcome=KT("payload__verdict__outcome")
                )[:1]
            ),
            restored_outcome=_latest_correction(KT("payload__restored__outcome")),
        )
        .prefetch_related(
            Prefetch(
                "steps",
                queryset=CoupStep.objects.exclude(violations=[]).order_by("index"),
                to_attr="wrong_steps",
            )
        )
    )


def review_queue(*, table: Table | None = None, casinos: frozenset[int] | None = None) -> QuerySet[QueueCoup]:
    """Coups whose restored settlement waits for a pit boss, oldest coup first, each annotated
    with who submitted the correction and when (``submitted_by_id``, ``submitted_by_name``,
    ``submitted_at``), the outcome as played and as restored, its wrong steps prefetched as
    ``wrong_steps``. ``casinos``: only theirs (``CasinoScope.casino_ids``; None: every casino)."""
    coups = in_casinos(
        Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL), casinos, "shoe__table__casino"
    )
    if table is not None:
        coups = coups.filter(shoe__table=table)
    return _for_queue(coups).order_by("created_at", "pk")


def review_queue_count(*, casinos: frozenset[int] | None = None) -> int:
    waiting = Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL)
    return in_casinos(waiting, casinos, "shoe__table__casino").count()


def review_refusal(*, user: Any, submitted_by_id: int | None, recorded: bool) -> str:
    """Why ``user`` may not approve or reject this correction ("" when he may): the services
    check the same (tables.services.corrections). ``recorded``: he recorded a step of the coup
    (tables.permissions.coups_recorded_by)."""
    if not can_approve(user):
        return PIT_BOSS_ONLY_REFUSAL
    if submitted_by_id == user.pk:
        return SELF_REVIEW_REFUSAL
    if recorded:
        return RECORDER_REVIEW_REFUSAL
    return ""


@dataclass(frozen=True)
class QueueRow:
    coup: Coup  # annotated by review_queue
    violations: list[tuple[str, str]]
    refusal: str
    decided: CoupStep | None = None  # set when the row is re-rendered after a decision


def queue_rows(coups: Iterable[QueueCoup], *, user: Any) -> list[QueueRow]:
    coups = list(coups)
    recorded = coups_recorded_by(user, [c.pk for c in coups])  # one query for the page
    return [
        QueueRow(
            coup=c,
            violations=violation_items([code for s in c.wrong_steps for code in s.violations]),
            refusal=review_refusal(user=user, submitted_by_id=c.submitted_by_id, recorded=c.pk in recorded),
        )
        for c in coups
    ]


def queue_row_after_decision(*, coup: Coup, user: Any) -> QueueRow:
    """A queue row re-rendered after the pit boss decided (the coup has left the queue)."""
    queued = _for_queue(Coup.objects.filter(pk=coup.pk)).get()
    decided = (
        queued.steps.filter(kind__in=[CoupStep.Kind.CORRECTION_APPROVED, CoupStep.Kind.CORRECTION_REJECTED])
        .select_related("actor")
        .order_by("-index")
        .first()
    )
    row = queue_rows([queued], user=user)[0]
    return replace(row, decided=decided)
