"""Ledger admin: everything read-only. Chips move only through ledger.services (transactions and
entries are append-only in the database too; an account's balance follows its entries)."""

from __future__ import annotations

from django.contrib import admin

from audit.admin import ReadOnlyAdmin
from ledger.models import Account, BooksVerification, Entry, Transaction


class EntryInline(admin.TabularInline):
    model = Entry
    fields = ("account", "amount")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("name", "kind", "casino", "balance", "opened_at")
    list_filter = ("casino", "kind")
    search_fields = ("name", "player__display_name", "player__membership_number", "table__name")


@admin.register(Transaction)
class TransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "posted_at", "kind", "casino", "actor", "coup", "memo")
    list_filter = ("casino", "kind")
    search_fields = ("idempotency_key", "memo")
    date_hierarchy = "posted_at"
    inlines = [EntryInline]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ("id", "transaction", "account", "amount")
    list_filter = ("account__casino", "account__kind", "transaction__kind")
    search_fields = ("account__name", "transaction__idempotency_key")


@admin.register(BooksVerification)
class BooksVerificationAdmin(ReadOnlyAdmin):
    list_display = ("started_at", "status", "coups_checked", "difference_count", "requested_by")
    list_filter = ("status",)
    search_fields = ("requested_by__username",)
    ordering = ("-started_at",)
