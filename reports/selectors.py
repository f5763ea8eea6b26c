"""Reads of report runs: the history the page and the API list."""

from __future__ import annotations

from django.db.models import QuerySet

from reports.models import ReportRun


def report_runs() -> QuerySet[ReportRun]:
    """Every run, newest first (pit bosses and accountants share one history)."""
    return ReportRun.objects.select_related("casino", "table").order_by("-requested_at", "-id")


def report_run_get(run_id: int) -> ReportRun | None:
    return report_runs().filter(pk=run_id).first()
