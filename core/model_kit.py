"""What the models of the house declare again and again, built one way: the user a row keeps as
its history's author, a check (what a row must satisfy) and a unique constraint (what no two rows
may share; with ``condition``, only among the rows it matches: "one open shoe per table"). A
constraint carries the sentence a form or ``full_clean`` shows when a row breaks it. The objects
are exactly those Django would build from the keyword arguments, so the migrations see no change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

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


_M = TypeVar("_M", bound=models.Model)
#: a model's (attname, default) pairs, in field order, and whether ``__init__`` has anything to
#: do beyond setting them (a receiver of its pre_init/post_init signals)
_FIELDS: dict[type[models.Model], tuple[list[tuple[str, Callable[[], Any]]], list[str], bool]] = {}


def model_new(model: type[_M], **values: Any) -> _M:
    """``model(**values)`` for the rows a bulk writer makes by the thousand (the import's several a
    step, an audit event for each of them): each field's value set as ``Model.__init__`` sets a
    positional one, without its per-field loop, descriptors and signals (where a receiver listens
    for the model, the ORM's own ``__init__`` runs, positional values as ``from_db`` gives them).
    A field not named gets its default, as with keywords. Relations are named by id
    (``coup_id``): their objects are not cached on the instance, as a fresh instance's are not."""
    spec = _FIELDS.get(model)
    if spec is None:
        listened = pre_init.has_listeners(model) or post_init.has_listeners(model)
        fields = [(f.attname, f.get_default) for f in model._meta.concrete_fields]
        spec = _FIELDS[model] = (fields, [name for name, _ in fields], listened)
    fields, names, listened = spec
    row = [values.pop(name) if name in values else default() for name, default in fields]
    if values:
        raise TypeError(f"{model.__name__} has no field {', '.join(values)}")
    if listened:
        return model(*row)
    obj = model.__new__(model)
    obj._state = ModelState()  # adding, no database yet: what __init__ sets
    obj.__dict__.update(zip(names, row, strict=True))
    return obj
