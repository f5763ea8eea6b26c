"""Admin: a casino's alert thresholds are edited here (audited like every admin change); alerts
are read-only in the admin (acknowledging them is the alerts page's, with its note and audit)."""

from __future__ import annotations

from django.contrib import admin

from audit.admin import AuditedModelAdmin, ReadOnlyAdmin
from review.models import Alert, AlertSettings


@admin.register(AlertSettings)
class AlertSettingsAdmin(AuditedModelAdmin):
    list_display = (
        "casino",
        "unfinished_minutes",
        "win_threshold",
        "error_rate_bp",
        "error_rate_coups",
        "flow_threshold",
        "flow_days",
        "flow_z",
    )


@admin.register(Alert)
class AlertAdmin(ReadOnlyAdmin):
    list_display = ("raised_at", "kind", "summary", "casino", "acknowledged_at", "acknowledged_by")
    list_filter = ("kind", "casino")
