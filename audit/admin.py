"""Admin: the audit trail is read-only; every other admin change is written to it.

``AuditedModelAdmin`` is the base class of every writable ModelAdmin in the project, so a change
made through /admin/ is as attributable as one made through a service.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from audit.models import AuditEvent, ChainVerification
from audit.selectors import audit_bound_rows
from audit.services import audit_record
from audit.snapshot import model_snapshot


class AuditedModelAdmin(admin.ModelAdmin):
    """Records create/change/delete made through the admin as audit events."""

    def _action(self, verb: str) -> str:
        return f"admin.{self.model._meta.label_lower}.{verb}"

    def save_model(self, request: HttpRequest, obj: Model, form: Any, change: bool) -> None:
        # The database still holds the old row: the form only changed the in-memory instance.
        # Kept on the form (one per request) because ModelAdmin instances are shared by threads.
        form._audit_before = model_snapshot(self.model._default_manager.get(pk=obj.pk)) if change else None
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        # After save_related, so many-to-many changes (e.g. a user's groups) are in the snapshot.
        super().save_related(request, form, formsets, change)
        audit_record(
            actor=request.user,
            action=self._action("change" if change else "create"),
            target=form.instance,
            before=getattr(form, "_audit_before", None),
            after=model_snapshot(form.instance),
        )

    def delete_model(self, request: HttpRequest, obj: Model) -> None:
        with transaction.atomic():
            before, pk = model_snapshot(obj), obj.pk
            super().delete_model(request, obj)
            obj.pk = pk  # Django clears it on delete; the event still names the row
            audit_record(actor=request.user, action=self._action("delete"), target=obj, before=before)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        with transaction.atomic():
            for obj in queryset:
                self.delete_model(request, obj)


def _shown(values: dict[str, Any] | None) -> str:
    return "" if values is None else orjson.dumps(values, default=str, option=orjson.OPT_SORT_KEYS).decode()


class ReadOnlyAdmin(admin.ModelAdmin):
    """Viewable by those with the view permission; nobody adds, changes or deletes here."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("seq", "occurred_at", "actor_label", "action", "object_type", "object_id")
    list_filter = ("action", "object_type")
    search_fields = ("actor_label", "action", "object_type", "object_id", "hash")
    ordering = ("-seq",)
    date_hierarchy = "occurred_at"
    readonly_fields = ("bound_rows",)

    @admin.display(description="Rows bound, as they stand now")
    def bound_rows(self, event: AuditEvent) -> SafeString | str:
        """What the event recorded of the rows it binds (a step's event names its step, index and
        kind: the step's content is its coupstep row), read from the rows (one event's page)."""
        rows = audit_bound_rows([event]).get(event.pk, [])
        if not rows:
            return "-"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{} {}: {}<pre>{}</pre></li>",
                (
                    (
                        row.table,
                        row.pk,
                        "as this event bound it"
                        if row.as_bound
                        else ("gone" if row.values is None else "changed since this event"),
                        _shown(row.values),
                    )
                    for row in rows
                ),
            ),
        )


admin.site.unregister(User)
admin.site.unregister(Group)


@admin.register(User)
class AuditedUserAdmin(AuditedModelAdmin, UserAdmin):
    @transaction.atomic
    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> HttpResponse:
        response = super().user_change_password(request, id, form_url)
        # A redirect means the form was valid and the password was set; the hash is never logged.
        if request.method == "POST" and isinstance(response, HttpResponseRedirect):
            user = self.get_object(request, id)
            audit_record(actor=request.user, action=self._action("password_set"), target=user)
        return response


@admin.register(Group)
class AuditedGroupAdmin(AuditedModelAdmin, GroupAdmin):
    pass


@admin.register(ChainVerification)
class ChainVerificationAdmin(ReadOnlyAdmin):
    list_display = ("finished_at", "head_seq", "ok", "first_broken_seq", "broken_count", "requested_by")
    list_filter = ("ok",)
    search_fields = ("head_hash", "first_broken_reason", "requested_by__username")
    ordering = ("-finished_at",)
