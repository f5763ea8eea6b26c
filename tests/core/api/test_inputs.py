"""The strict serializers' fields: copied per instance from a prototype the class builds once
(core.api.inputs.StrictSerializer.get_fields), with the same answers as DRF's deep copies."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import serializers

from core.api.inputs import StrictSerializer
from reports.apis import ReportRunIn
from tables.api.inputs import StepIn


class DeepCopiedStepIn(StepIn):
    """StepIn with DRF's own ``get_fields`` (every declared field deep-copied for each instance)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return serializers.Serializer.get_fields(self)


BODIES: list[Any] = [
    {"step": 3, "kind": "card_to_player", "card": "9H"},
    {"step": 1, "kind": "bet", "seat": 2, "amount": 40},
    {"step": 1, "kind": "bet", "amout": 40},
    {"step": "1", "kind": "bet", "seat": 2.0, "amount": True},
    {"step": 1, "kind": "banco", "callers": [{"seat": 3}, {"spectator": 5, "suivi": True}]},
    {"step": 1, "kind": "banco", "callers": [{"seat": 13, "extra": 1}, "x"]},
    {"step": 1, "kind": "bet", "card": "9H"},
    {"kind": "nothing", "confirm": "maybe"},
    {},
    [],
]


def answer(serializer_class: type[serializers.Serializer], body: Any) -> tuple[bool, Any]:
    serializer = serializer_class(data=body)
    valid = serializer.is_valid()
    return valid, dict(serializer.validated_data) if valid else serializer.errors


@pytest.mark.parametrize("body", BODIES)
def test_the_answers_are_drfs_own(body: Any) -> None:
    for _ in range(2):  # the second instance's fields come from the prototype the first built
        assert answer(StepIn, body) == answer(DeepCopiedStepIn, body)


def test_each_instance_has_its_own_fields_bound_to_it() -> None:
    first, second = StepIn(data={}), StepIn(data={})

    assert first.fields["step"] is not second.fields["step"]
    assert (first.fields["step"].parent, second.fields["step"].parent) == (first, second)
    callers, other = first.fields["callers"], second.fields["callers"]
    assert isinstance(callers, serializers.ListSerializer) and isinstance(other, serializers.ListSerializer)
    assert callers.child is not other.child
    assert callers.parent is first


def test_what_an_instance_changes_on_its_fields_stays_with_it() -> None:
    """reports.apis.ReportRunIn sets its ``kind`` choices per instance: the next one starts from
    the declaration, not from what the last one set."""
    changed = ReportRunIn(data={})
    kind = changed.fields["kind"]
    assert isinstance(kind, serializers.ChoiceField)
    kind.choices = ["only-this"]
    changed.fields["start"].required = False

    fresh = ReportRunIn(data={}).fields

    assert isinstance(fresh["kind"], serializers.ChoiceField)
    assert "only-this" not in fresh["kind"].choices
    assert fresh["start"].required is True


def test_a_subclass_builds_its_own_prototypes() -> None:
    class Base(StrictSerializer):
        a = serializers.IntegerField()

    class Child(Base):
        b = serializers.IntegerField()

    assert list(Base(data={}).fields) == ["a"]
    assert list(Child(data={}).fields) == ["a", "b"]
    assert list(Base(data={}).fields) == ["a"]
