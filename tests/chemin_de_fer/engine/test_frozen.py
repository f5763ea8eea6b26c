"""fast_init keeps every property of a frozen dataclass but its speed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from chemin_de_fer.engine.coup import Settlement, Stake
from chemin_de_fer.engine.frozen import fast_init


@fast_init
@dataclass(frozen=True, slots=True)
class Sample:
    name: str
    amount: int = 3
    tags: dict[str, int] = field(default_factory=dict)


def test_fields_defaults_and_factories_behave_as_the_dataclass_says() -> None:
    a = Sample("x")
    assert (a.name, a.amount, a.tags) == ("x", 3, {})
    b = Sample("x")
    assert a.tags is not b.tags  # a fresh default per instance, as default_factory promises
    assert Sample("y", 5, {"k": 1}) == Sample(name="y", amount=5, tags={"k": 1})
    assert repr(Sample("z", 1)) == "Sample(name='z', amount=1, tags={})"


def test_instances_stay_frozen() -> None:
    bet = Stake("seat-1", 10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        bet.amount = 20  # type: ignore[misc]  # assigning to a frozen field is what is tested
    assert hash(bet) == hash(Stake("seat-1", 10, False))
    assert dataclasses.replace(bet, amount=5) == Stake("seat-1", 5)


def test_missing_arguments_are_still_an_error() -> None:
    with pytest.raises(TypeError):
        Settlement(1, 2)  # type: ignore[call-arg]  # the missing arguments are what is tested


def test_it_refuses_what_it_cannot_speed_up_safely() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(slots=True)
    class NotFrozen:
        a: int

    @dataclass(frozen=True, slots=True)
    class Validating:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (NoSlots, NotFrozen, Validating):
        with pytest.raises(TypeError):
            fast_init(cls)
