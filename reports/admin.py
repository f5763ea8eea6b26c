"""The admin's view of report runs (read-only: runs change only through reports.services), and
beat's periodic tasks with every add, change and delete audited like the rest of the admin (an
administrator moving the daily close is a change the regulator may ask about)."""

from __future__ import annotations

from django.contrib import admin
from django_celery_beat.admin import PeriodicTaskAdmin
from django_celery_beat.models import PeriodicTask

from audit.admin import AuditedModelAdmin, ReadOnlyAdmin
from reports.models import ReportRun


@admin.register(ReportRun)
class ReportRunAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "kind",
        "format",
        "start",
        "end",
        "casino",
        "table",
        "status",
        "row_count",
        "requested_label",
        "requested_at",
        "attempts",
    )
    list_filter = ("status", "kind", "format", "casino")
    search_fields = ("kind", "requested_label", "sha256", "file")
    date_hierarchy = "requested_at"


class AuditedPeriodicTaskAdmin(AuditedModelAdmin, PeriodicTaskAdmin):
    pass


admin.site.unregister(PeriodicTask)
admin.site.register(PeriodicTask, AuditedPeriodicTaskAdmin)
