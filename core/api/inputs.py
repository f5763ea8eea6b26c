"""The API's generic inputs: strict serializers (an unknown key is refused, a JSON integer is an
integer) and the ranges a request may name. The apps' own input serializers build on these."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

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
