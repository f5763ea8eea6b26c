"""The API's generic inputs: strict serializers (an unknown key is refused, a JSON integer is an
integer) and the ranges a request may name. The apps' own input serializers build on these."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

from rest_framework import serializers

#: the largest number of chips a request may name (PostgreSQL ``integer``)
MAX_CHIPS = 2_147_483_647
#: the largest id a request may name (``BigAutoField``)
MAX_ID = 2**63 - 1


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know, so a misspelt field is an error, never silently dropped."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)

    #: per class: its declared fields, copied once, never bound (``get_fields``)
    _field_prototypes: ClassVar[dict[str, serializers.Field] | None] = None

    def get_fields(self) -> dict[str, serializers.Field]:
        """The declared fields, each a fresh copy for this instance as DRF's own are, but a shallow
        copy of a prototype the class builds once: DRF deep-copies every declared field for every
        instance, which rebuilds each field's validators and took 0.4 ms of every step POST
        (docs/benchmarks.md). A field's own state is set by ``bind`` on the copy; what the copies
        share (validators, choices, error messages) nothing changes after the field is built. A
        nested serializer is still deep-copied: its fields are bound to it."""
        cls = type(self)
        prototypes = cls.__dict__.get("_field_prototypes")
        if prototypes is None:
            prototypes = copy.deepcopy(self._declared_fields)
            cls._field_prototypes = prototypes
        return {name: _field_copy(field) for name, field in prototypes.items()}


def _field_copy(field: serializers.Field) -> serializers.Field:
    """A new field with the prototype's attributes (what ``copy.copy`` makes, without its
    protocol's detour); a nested serializer deep-copied, its own fields with it."""
    if isinstance(field, serializers.BaseSerializer):
        return copy.deepcopy(field)
    fresh = object.__new__(type(field))
    fresh.__dict__.update(field.__dict__)
    return fresh


class WholeNumberField(serializers.IntegerField):
    """A JSON integer: ``"10"``, ``10.0`` and ``true`` are refused rather than converted."""

    default_error_messages = {"invalid": "A whole number is required."}

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


def step_fields_check(attrs: Mapping[str, Any], *, optional: Sequence[str], allowed: Collection[str]) -> None:
    """Refuse (400, under each field's name) the optional fields of a step that its ``kind`` does not
    take: a card sent with a bet is an error, never silently dropped."""
    extra = [name for name in optional if name in attrs and name not in allowed]
    if extra:
        raise serializers.ValidationError(
            {name: [f"A {attrs['kind']} step does not take this field."] for name in extra}
        )


def chips(**kwargs: Any) -> WholeNumberField:
    return WholeNumberField(min_value=1, max_value=MAX_CHIPS, **kwargs)


def optional_number(*, min_value: int, max_value: int | None, **kwargs: Any) -> WholeNumberField:
    """A whole number a request may leave out or send as null (both read as None)."""
    return WholeNumberField(
        min_value=min_value, max_value=max_value, required=False, allow_null=True, default=None, **kwargs
    )


class EmptyIn(StrictSerializer):
    """No body (or ``{}``)."""


class ReasonIn(StrictSerializer):
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
