"""Plain-dict snapshots of model instances for the ``before``/``after`` of audit events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import models

# Never copied into the audit trail, whatever the model.
REDACTED_FIELDS = frozenset({"password"})


def model_snapshot(instance: models.Model, *, with_m2m: bool = True) -> dict[str, Any]:
    """Every concrete field by attribute name (foreign keys as ids), plus many-to-many ids."""
    data: dict[str, Any] = {
        f.attname: f.value_from_object(instance)
        for f in instance._meta.concrete_fields
        if f.name not in REDACTED_FIELDS
    }
    if with_m2m and instance.pk is not None:
        for f in instance._meta.many_to_many:
            data[f.name] = sorted(getattr(instance, f.name).values_list("pk", flat=True))
    return data


def fields_snapshot(instance: models.Model, names: Iterable[str]) -> dict[str, Any]:
    """The named fields alone (by field name; foreign keys as ids, under their attribute name),
    never a redacted one: the ``before`` and ``after`` of an event that changes those fields of a
    row its earlier events already described whole (a bank's minimum raised: one number, not the
    turn's every column twice)."""
    wanted = set(names)
    return {
        f.attname: f.value_from_object(instance)
        for f in instance._meta.concrete_fields
        if (f.name in wanted or f.attname in wanted) and f.name not in REDACTED_FIELDS
    }
