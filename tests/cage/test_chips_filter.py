"""The chips shown on the croupier's seating panel (cage.templatetags.cage_chips)."""

from __future__ import annotations

import pytest

from cage.templatetags.cage_chips import chips_in


@pytest.mark.parametrize(
    ("player_id", "balances", "shown"),
    [
        (7, {7: 2500}, 2500),
        (7, {7: 0}, 0),
        (7, {7: -300}, "0 · marker 300"),  # a marker: no chips, and what he owes (as the cage shows it)
        (7, {8: 100}, ""),  # not looked up
        (7, None, ""),
    ],
)
def test_chips_in(player_id: int, balances: dict[int, int] | None, shown: int | str) -> None:
    assert chips_in(player_id, balances) == shown
