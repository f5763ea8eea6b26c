"""The pit boss's and accounting's pages, mounted at /review/ (docs/review.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from tables import review_views as views

app_name = "review"
urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.dashboard_view, name="dashboard"),
    path("queue/", views.queue, name="queue"),
    path("coups/<int:pk>/", views.coup_detail, name="coup"),
    path("coups/<int:pk>/approve/", views.coup_approve, name="coup_approve"),
    path("coups/<int:pk>/reject/", views.coup_reject, name="coup_reject"),
    path("coups/<int:pk>/void/", views.coup_void, name="coup_void"),
    path("audit/verify/", views.audit_verify, name="audit_verify"),
    path("exports/", views.exports_page, name="exports"),
    path("exports/<slug:kind>/", views.export_download, name="export"),
]
