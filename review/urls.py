"""The pit boss's pages, mounted at /review/ in the "review" namespace (casino/urls.py, together
with reports/urls.py; docs/review.md)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from review import flow_views, views
from tables.games import urls_of

#: one chemin de fer coup under review, at coups/<pk>/: read, and the pit boss's decisions on it
coup_urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.coup_detail, name="coup"),
    path("approve/", views.coup_approve, name="coup_approve"),
    path("reject/", views.coup_reject, name="coup_reject"),
    path("void/", views.coup_void, name="coup_void"),
]

urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.dashboard_view, name="dashboard"),
    path("queue/", views.queue, name="queue"),
    path("coups/<id:pk>/", include(coup_urlpatterns)),
    # a void above the casino's limit, decided by a second pit boss (either game)
    path("voids/<id:pk>/approve/", views.void_request_approve_view, name="void_approve"),
    path("voids/<id:pk>/refuse/", views.void_request_refuse_view, name="void_refuse"),
    path("audit/verify/", views.audit_verify, name="audit_verify"),
]
urlpatterns += [
    path("live/", views.dashboard_live, name="dashboard_live"),
    path("alerts/", views.alerts_page, name="alerts"),
    path("alerts/<id:pk>/acknowledge/", views.alert_acknowledge_view, name="alert_acknowledge"),
    path("alerts/<id:pk>/flows/", flow_views.flow_alert_view, name="flow_alert"),
    path("charts/", views.charts_page, name="charts"),
    path("players/<id:pk>/", views.player_detail, name="player"),
    path("lockouts/", views.lockouts_page, name="lockouts"),
    path("lockouts/lift/", views.lockout_lift_view, name="lockout_lift"),
    path("compliance/", views.compliance_view, name="compliance"),
    path("compliance/reports/<id:pk>/file/", views.cash_report_file_view, name="cash_report_file"),
]
urlpatterns += urls_of("review_urls")  # a game's own pages (the older games': tables.games)
