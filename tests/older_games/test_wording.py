"""The floor's words name the older games' parties by the keys their engines use."""

from __future__ import annotations

from older_games.engine.game_play import FUND, POOL
from tables.wording import PARTY_LABELS


def test_the_parties_that_are_no_player_are_named_by_the_engines_keys() -> None:
    assert set(PARTY_LABELS) == {FUND, POOL} == {"fund", "pool"}
