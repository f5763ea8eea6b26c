"""The id in every path (core.converters): a 64-bit positive integer, anything larger no match."""

from __future__ import annotations

import pytest
from django.urls import Resolver404, resolve, reverse

from core.converters import IdConverter


@pytest.mark.parametrize(("text", "number"), [("1", 1), ("007", 7), ("9223372036854775807", 2**63 - 1)])
def test_an_id_is_read_as_its_number(text: str, number: int) -> None:
    assert IdConverter().to_python(text) == number


def test_an_id_past_64_bits_matches_nothing() -> None:
    with pytest.raises(ValueError, match="9223372036854775808 is beyond any id"):
        IdConverter().to_python("9223372036854775808")


@pytest.mark.parametrize("number", ["9223372036854775808", "99999999999999999999", "1" * 400])
def test_a_path_with_such_an_id_resolves_to_no_view(number: str) -> None:
    with pytest.raises(Resolver404):
        resolve(f"/api/v1/coups/{number}/steps/")


def test_the_routes_take_and_give_their_ids() -> None:
    assert resolve("/api/v1/coups/42/steps/").kwargs == {"coup_id": 42}
    assert reverse("api:coup-steps", kwargs={"coup_id": 42}) == "/api/v1/coups/42/steps/"
