"""Accounting's exports, mounted at /review/exports/ in the "review" namespace (casino/urls.py,
together with review/urls.py; docs/review.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from reports import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("exports/", views.exports_page, name="exports"),
    path("exports/<slug:kind>/", views.export_download, name="export"),
]
