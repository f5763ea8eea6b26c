"""What the models of the house declare again and again, built one way: the user a row keeps as
its history's author, a check (what a row must satisfy) and a unique constraint (what no two rows
may share; with ``condition``, only among the rows it matches: "one open shoe per table"). A
constraint carries the sentence a form or ``full_clean`` shows when a row breaks it. The objects
are exactly those Django would build from the keyword arguments, so the migrations see no change.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
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


def set_only_index(field: str, name: str) -> models.Index:
    """An index of a nullable foreign key over the rows where it is set: a key that most rows leave
    empty (a correction's step, a reversal's posting) is found by value as fast, and the empty
    rows cost the index nothing (PostgreSQL and SQLite both use it for ``field = value``)."""
    return models.Index(fields=[field], name=name, condition=Q(**{f"{field}__isnull": False}))


def set_once_unique(field: str, name: str, message: str) -> models.UniqueConstraint:
    """A nullable reference that no two rows may share where it is set (the step an amendment
    supersedes, the bet or card one replaces): a foreign key with this instead of a
    ``OneToOneField``, whose unique index holds every empty row too (most rows replace nothing);
    the partial index also serves the key's lookups (``replaced_by__isnull``, PROTECT's check)."""
    return unique_constraint([field], name, message, condition=Q(**{f"{field}__isnull": False}))


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


@dataclass(frozen=True, slots=True)
class _Spec:
    """What ``model_new`` needs of a model, worked out once."""

    #: attname → its default, every field in field order (a placeholder where made afresh)
    fixed: dict[str, Any]
    made: tuple[tuple[str, Callable[[], Any]], ...]  # the defaults made afresh each time (list, now…)
    known: frozenset[str]  # every concrete field's attname
    listened: bool  # a receiver of the model's pre_init/post_init signals: the ORM's __init__ runs


_SPECS: dict[type[models.Model], _Spec] = {}


def _spec(model: type[models.Model]) -> _Spec:
    fixed: dict[str, Any] = {}
    made: list[tuple[str, Callable[[], Any]]] = []
    for f in model._meta.concrete_fields:
        # a field with no default gives None or "" every time, one with a plain value that same
        # value (``Field._get_default`` shares it too); a callable's and the database's default
        # are made afresh for every row
        if callable(f.default) if f.has_default() else f.has_db_default():
            made.append((f.attname, f.get_default))
            fixed[f.attname] = None
        else:
            fixed[f.attname] = f.get_default()
    listened = pre_init.has_listeners(model) or post_init.has_listeners(model)
    return _Spec(fixed, tuple(made), frozenset(fixed), listened)


def model_new(model: type[_M], **values: Any) -> _M:
    """``model(**values)`` for the rows a bulk writer makes by the thousand (the import's several a
    step, an audit event for each of them): each field's value set as ``Model.__init__`` sets a
    positional one, without its per-field loop, descriptors and signals (where a receiver listens
    for the model, the ORM's own ``__init__`` runs, positional values as ``from_db`` gives them).
    A field not named gets its default, as with keywords. Relations are named by id
    (``coup_id``): their objects are not cached on the instance, as a fresh instance's are not."""
    spec = _SPECS.get(model)
    if spec is None:
        spec = _SPECS[model] = _spec(model)
    if not spec.known.issuperset(values):
        unknown = [name for name in values if name not in spec.known]
        raise TypeError(f"{model.__name__} has no field {', '.join(unknown)}")
    data = spec.fixed.copy()  # in field order, as __init__ sets them
    for name, default in spec.made:
        if name not in values:
            data[name] = default()
    data.update(values)
    if spec.listened:
        return model(*data.values())
    obj = model.__new__(model)
    obj._state = ModelState()  # adding, no database yet: what __init__ sets
    obj.__dict__.update(data)
    return obj


def attributes_reader(
    model: type[models.Model], names: Sequence[str]
) -> Callable[[models.Model], tuple[Any, ...]]:
    """A function giving an instance's attributes ``names`` as one tuple, for the rows a bulk
    writer copies and binds by the thousand. Where each name is a concrete field's attname read
    by Django's plain descriptor (a foreign key's ``coup_id`` too: a data descriptor, its
    ``__get__`` a Python call per read) the values come straight from the instance's
    ``__dict__``, which is what that descriptor returns; a field not loaded there (a deferred
    one) or any other attribute (a file, a property) goes through ``getattr`` as before."""
    if not names:
        raise ValueError("attributes_reader needs at least one name")
    through_getattr = operator.attrgetter(*names) if len(names) > 1 else _one_attribute(names[0])
    if not _plain_attnames(model).issuperset(names):
        return through_getattr
    from_dict = operator.itemgetter(*names) if len(names) > 1 else _one_item(names[0])

    def read(obj: models.Model) -> tuple[Any, ...]:
        try:
            return from_dict(obj.__dict__)
        except KeyError:  # a deferred field: the descriptor loads it
            return through_getattr(obj)

    return read


def _plain_attnames(model: type[models.Model]) -> frozenset[str]:
    """The attnames of ``model``'s concrete fields whose class attribute is Django's plain
    ``DeferredAttribute`` or a foreign key's (their ``__get__`` gives ``__dict__``'s value)."""
    plain = (DeferredAttribute, ForeignKeyDeferredAttribute)
    return frozenset(
        f.attname for f in model._meta.concrete_fields if type(getattr(model, f.attname, None)) in plain
    )


def _one_attribute(name: str) -> Callable[[Any], tuple[Any, ...]]:
    return lambda obj: (getattr(obj, name),)


def _one_item(name: str) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    return lambda data: (data[name],)
