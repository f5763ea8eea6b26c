"""Accounting's pages, mounted at /review/exports/ in the "review" namespace (casino/urls.py,
together with review/urls.py; docs/reports.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from reports import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("exports/", views.exports_page, name="exports"),
    path("exports/runs/", views.report_run_create, name="report_runs"),
    path("exports/runs/<int:run_id>/", views.report_run_row, name="report_run"),
    path("exports/runs/<int:run_id>/file", views.report_run_file, name="report_run_file"),
    path("exports/<slug:kind>/", views.export_download, name="export"),
]
