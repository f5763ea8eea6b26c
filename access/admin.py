"""Admin for core: the stored answers to idempotent requests (read-only), the API tokens (listed
and revocable, never shown nor created here), the security log of refused logins (read-only) and
the lockouts (django-axes' attempts) with an audited reset."""

from __future__ import annotations

from typing import Any

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from access.services.logins import login_lockout_reset
from access.services.tokens import api_token_revoke
from audit.admin import ReadOnlyAdmin
from core.models import ApiToken, IdempotencyRecord, LoginFailure
from tables.perms import LIFT_LOCKOUT, REVOKE_API_TOKEN


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "user", "key", "status_code")
    search_fields = ("key", "user__username")
    list_filter = ("status_code",)


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Which devices hold a token, and revoking one (audited). No add: a token is only ever minted
    for the user who gives his own password (POST /api/v1/auth/token/), so an administrator cannot
    act in someone else's name. Not even the digest is shown."""

    list_display = ("prefix", "user", "created_at")
    fields = ("prefix", "user", "created_at")
    search_fields = ("prefix", "user__username")
    list_filter = ("created_at",)
    ordering = ("-created_at",)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return bool(request.user.has_perm(REVOKE_API_TOKEN))

    def delete_model(self, request: HttpRequest, obj: ApiToken) -> None:
        api_token_revoke(actor=request.user, token=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        with transaction.atomic():
            for token in queryset:
                api_token_revoke(actor=request.user, token=token)


@admin.register(LoginFailure)
class LoginFailureAdmin(ReadOnlyAdmin):
    list_display = ("occurred_at", "username", "ip", "locked_out", "path", "summarised")
    search_fields = ("username", "ip", "user_agent")
    list_filter = ("locked_out", "summarised", "path")
    ordering = ("-occurred_at",)
    date_hierarchy = "occurred_at"


@admin.action(description="Lift the lockout of the selected usernames and addresses", permissions=["reset"])
def lockout_reset_action(modeladmin: Any, request: HttpRequest, queryset: QuerySet[AccessAttempt]) -> None:
    pairs = {(a.username or "", a.ip_address or "") for a in queryset}
    cleared = 0
    for username, ip in sorted(pairs):
        cleared += login_lockout_reset(actor=request.user, username=username, ip=ip)
    modeladmin.message_user(request, f"{cleared} failure record(s) cleared.", messages.SUCCESS)


@admin.register(AccessAttempt)
class LockoutAdmin(ReadOnlyAdmin):
    """django-axes' failure counters: who is (nearly) locked out, and the reset (audited)."""

    list_display = ("attempt_time", "username", "ip_address", "failures_since_start", "locked")
    fields = ("attempt_time", "username", "ip_address", "user_agent", "path_info", "failures_since_start")
    search_fields = ("username", "ip_address")
    list_filter = ("attempt_time",)
    ordering = ("-attempt_time",)
    actions = [lockout_reset_action]

    @admin.display(boolean=True, description="locked out")
    def locked(self, obj: AccessAttempt) -> bool:
        return int(obj.failures_since_start) >= int(settings.AXES_FAILURE_LIMIT)

    def has_reset_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(LIFT_LOCKOUT))
