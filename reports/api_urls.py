"""Report runs' REST routes, mounted at /api/v1/ (casino/urls.py; docs/api.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from reports import apis

app_name = "reports-api"
urlpatterns: list[URLPattern | URLResolver] = [
    path("reports/runs/", apis.ReportRunsView.as_view(), name="runs"),
    path("reports/runs/<id:run_id>/", apis.ReportRunView.as_view(), name="run"),
    path("reports/runs/<id:run_id>/file", apis.ReportRunFileView.as_view(), name="run-file"),
]
