"""Admin: a casino's cash policy is set here (its preset or custom thresholds, its currency and the
value of one chip; audited like every admin change). The log and the reports are read-only here
(filing a report is compliance's page, audited with who and when); identifications are not shown
at all: a read of one is audited by compliance.services.identification_read, the admin would not."""

from __future__ import annotations

from django.contrib import admin

from audit.admin import AuditedModelAdmin, ReadOnlyAdmin
from compliance.models import CashLogEntry, CashPolicy, CashReport


@admin.register(CashPolicy)
class CashPolicyAdmin(AuditedModelAdmin):
    list_display = ("casino", "preset", "log_threshold", "report_threshold", "identification_threshold",
                    "currency", "chip_value_cents")  # fmt: skip
    list_filter = ("preset", "currency")
    search_fields = ("casino__name",)


@admin.register(CashLogEntry)
class CashLogEntryAdmin(ReadOnlyAdmin):
    list_display = ("logged_at", "gaming_day", "casino", "player", "direction", "amount", "cashier")
    list_filter = ("direction", "casino")
    search_fields = ("player__display_name",)


@admin.register(CashReport)
class CashReportAdmin(ReadOnlyAdmin):
    list_display = ("gaming_day", "casino", "player", "direction", "total", "status", "filed_by", "filed_at")
    list_filter = ("status", "direction", "casino")
    search_fields = ("player__display_name",)
