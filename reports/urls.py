"""Accounting's pages, mounted at /review/exports/ in the "review" namespace (casino/urls.py,
together with review/urls.py; docs/reports.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from reports import views

#: the exports page, the report runs it asks for and lists, and the direct downloads
exports_urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.exports_page, name="exports"),
    path("runs/", views.report_run_create, name="report_runs"),
    path("runs/<id:run_id>/", views.report_run_row, name="report_run"),
    path("runs/<id:run_id>/file", views.report_run_file, name="report_run_file"),
    path("<slug:kind>/", views.export_download, name="export"),
]

urlpatterns: list[URLPattern | URLResolver] = [path("exports/", include(exports_urlpatterns))]
