"""Punter keys (``seat-4``, ``spectator-17``) written and read by one module, both ways."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chemin_de_fer.engine.punters import (
    PunterKind,
    key_seat_number,
    parse_punter_key,
    punter_key,
    seat_key,
    spectator_key,
)


def test_the_keys_are_the_ones_the_records_use() -> None:
    assert (seat_key(4), spectator_key(17)) == ("seat-4", "spectator-17")
    assert parse_punter_key("seat-4") == (PunterKind.SEAT, 4)
    assert parse_punter_key("spectator-17") == (PunterKind.SPECTATOR, 17)


@given(st.sampled_from(PunterKind), st.integers(min_value=0, max_value=10**9))
def test_key_to_kind_and_number_and_back(kind: PunterKind, number: int) -> None:
    key = punter_key(kind, number)
    assert parse_punter_key(key) == (kind, number)
    assert punter_key(*parse_punter_key(key)) == key
    assert key_seat_number(key) == (number if kind is PunterKind.SEAT else None)


@pytest.mark.parametrize(
    "text",
    ["", "seat", "seat-", "seat-x", "Seat-4", "seat-4\n", " seat-4", "banker", "spectator--1", "seat-٣"],
)
def test_anything_else_is_no_punter_key(text: str) -> None:
    with pytest.raises(ValueError, match="Unknown punter"):
        parse_punter_key(text)
    assert key_seat_number(text) is None
