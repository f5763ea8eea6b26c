"""Admin for core: the stored answers to idempotent requests, read-only (a cache of answers)."""

from __future__ import annotations

from django.contrib import admin

from audit.admin import ReadOnlyAdmin
from core.models import IdempotencyRecord


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "key", "status_code")
    search_fields = ("key", "user__username")
    list_filter = ("status_code",)
