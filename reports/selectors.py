"""Reads of report runs: the history the page and the API list."""

from __future__ import annotations

from collections.abc import Collection

from django.db.models import Q, QuerySet

from reports.models import ReportRun


def report_runs(
    *, casinos: frozenset[int] | None = None, kinds: Collection[str] | None = None
) -> QuerySet[ReportRun]:
    """Every run of ``casinos`` (the reader's, ``CasinoScope.casino_ids``; None: every run), newest
    first: the pit bosses and accountants of a casino share one history. A run of every casino is
    only for those who read every casino. ``kinds``: only runs of these kinds (the ones the
    reader's role takes, ``reports.services.kinds_taken``: compliance never lists a levy run, nor a
    pit boss a cash log); None: every kind."""
    runs = ReportRun.objects.select_related("casino", "table").order_by("-requested_at", "-id")
    if kinds is not None:
        runs = runs.filter(kind__in=list(kinds))
    if casinos is None:
        return runs
    return runs.filter(Q(casino_id__in=casinos) | Q(casino__isnull=True, table__casino_id__in=casinos))


def report_run_kind(run_id: int) -> str | None:
    """The kind of run ``run_id``, whichever casino's (None: no such run): whether the reader's
    role takes that kind at all is said before whether he reads its casino."""
    kind = ReportRun.objects.filter(pk=run_id).values_list("kind", flat=True).first()
    return str(kind) if kind is not None else None


def report_run_get(run_id: int, *, casinos: frozenset[int] | None = None) -> ReportRun | None:
    """The run, if it is one of ``casinos`` (another casino's does not exist for the reader)."""
    return report_runs(casinos=casinos).filter(pk=run_id).first()
