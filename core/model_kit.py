"""What the models of the house declare again and again, built one way: the user a row keeps as
its history's author, a check (what a row must satisfy) and a unique constraint (what no two rows
may share; with ``condition``, only among the rows it matches: "one open shoe per table"). A
constraint carries the sentence a form or ``full_clean`` shows when a row breaks it. The objects
are exactly those Django would build from the keyword arguments, so the migrations see no change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def check_constraint(condition: Q, name: str, message: str) -> models.CheckConstraint:
    return models.CheckConstraint(condition=condition, name=name, violation_error_message=message)


def unique_constraint(
    fields: Sequence[str], name: str, message: str, *, condition: Q | None = None
) -> models.UniqueConstraint:
    return models.UniqueConstraint(
        fields=fields, condition=condition, name=name, violation_error_message=message
    )


def staff_reference(
    *, related_name: str = "+", help_text: str = ""
) -> models.ForeignKey[User | None, User | None]:
    """The user who did (or asked for) what a row keeps as history: PROTECT, so a user with history
    is deactivated, never deleted; empty where nobody did (the nightly run, a system event)."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name=related_name,
        help_text=help_text,
    )
