"""The chips shown on the croupier's seating panel (cage.templatetags.cage_chips), written as every
screen writes chips (core.numbers.chips), in the page's language."""

from __future__ import annotations

import pytest
from django.utils import translation

from cage.templatetags.cage_chips import chips_in


@pytest.mark.parametrize(
    ("player_id", "balances", "shown"),
    [
        (7, {7: 2500}, "2,500"),
        (7, {7: 0}, "0"),
        (7, {7: 12}, "12"),
        (7, {7: -300}, "0 · marker 300"),  # a marker: no chips, and what is owed (as the cage shows it)
        (7, {7: -1500}, "0 · marker 1,500"),
        (7, {8: 100}, ""),  # not looked up
        (7, None, ""),
    ],
)
def test_chips_in(player_id: int, balances: dict[int, int] | None, shown: str) -> None:
    with translation.override("en"):
        assert chips_in(player_id, balances) == shown


@pytest.mark.parametrize(
    ("lang", "chips", "marker"),
    [
        ("fr", "10\xa0000", "0 · marqueur 1\xa0500"),
        ("ru", "10\xa0000", "0 · маркер 1\xa0500"),
    ],
)
def test_chips_in_french_and_russian(lang: str, chips: str, marker: str) -> None:
    with translation.override(lang):
        assert chips_in(7, {7: 10000}) == chips
        assert chips_in(7, {7: -1500}) == marker
