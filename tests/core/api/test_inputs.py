"""The strict serializers' fields: copied per instance from a prototype the class builds once
(core.api.inputs.StrictSerializer.get_fields), with the same answers as DRF's deep copies; and the
strict fields themselves (a text, a choice, a flag, a list: nothing converted, a value too long
refused by its length first, a refused value quoted by its first characters)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework import serializers

from core.api.inputs import (
    BoundedListField,
    FlagField,
    StrictSerializer,
    TextChoiceField,
    TextField,
    clipped,
)
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


# ---------------------------------------------------------------------- the strict fields
def test_a_refused_value_is_quoted_by_its_first_twenty_characters() -> None:
    assert clipped("x" * 20) == "x" * 20
    assert clipped("x" * 21) == "x" * 20 + "…"
    assert clipped(["bet"] * 9) == "['bet', 'bet', 'bet'…"


def test_a_text_too_long_is_refused_before_a_subclass_reads_it() -> None:
    read: list[str] = []

    class Parsed(TextField):
        def to_internal_value(self, data: Any) -> str:
            text = super().to_internal_value(data)
            read.append(text)
            return text.upper()

    class In(StrictSerializer):
        card = Parsed(max_length=8)

    assert answer(In, {"card": " 9h      "}) == (True, {"card": "9H"})  # blanks around: not its length
    assert answer(In, {"card": "x" * 1_000_000}) == (
        False,
        {"card": ["Ensure this field has no more than 8 characters."]},
    )
    assert answer(In, {"card": 9}) == (False, {"card": ["A string is required."]})
    assert read == ["9h"]


@pytest.mark.parametrize(
    ("value", "valid", "result"),
    [
        ("bet", True, {"kind": "bet"}),
        ("x" * 21, False, {"kind": [f'"{"x" * 20}…" is not a valid choice.']}),
        (5, False, {"kind": ["A string is required."]}),
        (["bet"], False, {"kind": ["A string is required."]}),
        (None, False, {"kind": ["This field may not be null."]}),
    ],
)
def test_a_choice_is_a_json_string_quoted_by_its_first_characters(
    value: Any, valid: bool, result: Any
) -> None:
    class In(StrictSerializer):
        kind = TextChoiceField(choices=["bet", "banco"])

    assert answer(In, {"kind": value}) == (valid, result)


@pytest.mark.parametrize("value", [True, False])
def test_a_flag_is_a_json_boolean(value: bool) -> None:
    class In(StrictSerializer):
        flag = FlagField()

    assert answer(In, {"flag": value}) == (True, {"flag": value})


@pytest.mark.parametrize("value", ["true", "no", 1, 0, "on"])
def test_a_flag_that_is_no_json_boolean_is_refused(value: Any) -> None:
    class In(StrictSerializer):
        flag = FlagField()

    assert answer(In, {"flag": value}) == (False, {"flag": ["Must be a valid boolean."]})


def test_a_list_too_long_is_refused_before_its_items_are_read() -> None:
    class In(StrictSerializer):
        cards = BoundedListField(child=TextField(max_length=8), max_length=2)

    assert answer(In, {"cards": [9] * 100_000}) == (
        False,
        {"cards": ["Ensure this field has no more than 2 elements."]},
    )
    assert answer(In, {"cards": ["9H", 9]}) == (False, {"cards": {1: ["A string is required."]}})


def test_an_unknown_key_is_named_by_its_first_characters() -> None:
    assert answer(StepIn, {"step": 1, "kind": "bets_closed", "k" * 1_000: 1}) == (
        False,
        {"k" * 20 + "…": ["Unknown field."]},
    )
