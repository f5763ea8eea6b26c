"""The API's generic inputs: strict serializers (an unknown key is refused) and strict fields (a
JSON integer is an integer, an id a JSON integer, a text a JSON string, a flag a JSON boolean:
nothing is converted), the ranges a request may name, and how much of a refused value a refusal
quotes back (:func:`clipped`). The apps' own input serializers build on these."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar

from rest_framework import serializers

#: the largest number of chips a request may name (PostgreSQL ``integer``)
MAX_CHIPS = 2_147_483_647
#: the largest id a request may name (``BigAutoField``)
MAX_ID = 2**63 - 1
#: the most characters of a refused value a refusal quotes: enough to recognise it, never the
#: megabyte a client sent (answered twice over: under its field and in ``detail``)
QUOTED_MAX = 20


def clipped(value: object) -> str:
    """``value`` as a refusal quotes it: its first :data:`QUOTED_MAX` characters, then "…"."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= QUOTED_MAX else text[:QUOTED_MAX] + "…"


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know, so a misspelt field is an error, never silently dropped."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                # a key is input too: named by its first characters, as a refused value is quoted
                raise serializers.ValidationError({clipped(name): ["Unknown field."] for name in unknown})
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


class IdField(serializers.PrimaryKeyRelatedField):
    """A row named by its id, a JSON integer from 1 to :data:`MAX_ID`, looked up in ``queryset``:
    ``14.9`` (which would name row 14), ``"14"`` and ``true`` are no ids."""

    def to_internal_value(self, data: Any) -> Any:
        if type(data) is not int:
            self.fail("incorrect_type", data_type=type(data).__name__)
        if not 1 <= data <= MAX_ID:  # beyond a BigAutoField: no row, and no query that overflows
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """A JSON string: ``9`` and ``true`` are refused rather than turned into ``"9"``/``"True"``.

    One longer than ``max_length`` (its blanks around aside, as DRF counts it) is refused by its
    length before anything else reads it: a subclass that parses the text (a card) never reads, nor
    quotes back, the megabyte a client sent; DRF's own check comes after ``to_internal_value``."""

    default_error_messages = {"invalid": "A string is required."}

    def to_internal_value(self, data: Any) -> str:
        if type(data) is not str:
            self.fail("invalid")
        text = data.strip() if self.trim_whitespace else data
        if self.max_length is not None and len(text) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return str(super().to_internal_value(data))


class TextChoiceField(serializers.ChoiceField):
    """One of ``choices`` (strings), sent as a JSON string (``5`` is refused rather than read as
    ``"5"``); a value that is none of them is quoted by its first characters (:func:`clipped`),
    where DRF's ChoiceField quotes it whole."""

    default_error_messages = {"invalid": "A string is required."}

    def to_internal_value(self, data: Any) -> Any:
        if type(data) is not str:
            self.fail("invalid")
        if data == "" and self.allow_blank:
            return ""
        try:
            return self.choice_strings_to_values[data]
        except KeyError:
            self.fail("invalid_choice", input=clipped(data))


class FlagField(serializers.BooleanField):
    """A JSON boolean: ``"true"``, ``1``, ``"yes"`` and ``"no"`` are refused rather than read as one."""

    def to_internal_value(self, data: Any) -> bool:
        if type(data) is not bool:
            self.fail("invalid")
        return data


class BoundedListField(serializers.ListField):
    """A JSON array refused by its length (``max_length``) before any item is read: a hundred
    thousand bad items get one refusal, not a hundred thousand (DRF checks the length after)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
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
    reason = TextField(max_length=200, required=False, allow_blank=True, default="")
