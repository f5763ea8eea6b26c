"""Reads for tables, staff and assignments. No writes here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.utils import timezone

from tables.models import CroupierAssignment, RuleProfile, Table, TableSession
from tables.roles import ROLE_LABELS, Role


def user_roles(*, user: AbstractBaseUser | AnonymousUser) -> list[str]:
    """The user's role names (groups that are roles), in a stable order."""
    if not user.is_authenticated:
        return []
    names = set(user.groups.values_list("name", flat=True))
    return [role.value for role in Role if role.value in names]


def assignments_current(
    *, user: AbstractBaseUser, at: dt.datetime | None = None
) -> QuerySet[CroupierAssignment]:
    """The user's assignments whose shift covers ``at`` (default: now)."""
    at = at or timezone.now()
    return (
        CroupierAssignment.objects.filter(user=user, shift_start__lte=at, shift_end__gt=at)
        .select_related("table", "table__casino")
        .order_by("shift_start")
    )


def table_open_session(*, table: Table) -> TableSession | None:
    return TableSession.objects.filter(table=table, closed_at__isnull=True).first()


def builtin_profiles() -> QuerySet[RuleProfile]:
    return RuleProfile.objects.filter(casino__isnull=True).order_by("slug")


@dataclass(frozen=True, slots=True)
class StaffProfile:
    username: str
    full_name: str
    roles: list[str]
    role_labels: list[str]
    is_superuser: bool
    current_assignments: list[CroupierAssignment] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "username": self.username,
            "full_name": self.full_name,
            "roles": self.roles,
            "is_superuser": self.is_superuser,
            "current_assignments": [
                {
                    "table_id": a.table_id,
                    "table": str(a.table),
                    "shift_start": a.shift_start,
                    "shift_end": a.shift_end,
                }
                for a in self.current_assignments
            ],
        }


def staff_profile(*, user: AbstractBaseUser) -> StaffProfile:
    """Who the logged-in user is, for the home page and /api/v1/me/."""
    roles = user_roles(user=user)
    return StaffProfile(
        username=user.get_username(),
        full_name=user.get_full_name() if hasattr(user, "get_full_name") else "",
        roles=roles,
        role_labels=[ROLE_LABELS[r] for r in roles],
        is_superuser=bool(getattr(user, "is_superuser", False)),
        current_assignments=list(assignments_current(user=user)),
    )
