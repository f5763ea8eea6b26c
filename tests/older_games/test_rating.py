"""The older games' coups on a player's rating slip, through the game seam (older_games/selectors.py
``game_rating_coups``, asked by review/selectors/rating.py through every wing)."""

from __future__ import annotations

import pytest
from django.utils import timezone

from review.selectors.rating import player_rating
from tables.gaming_day import casino_calendar

pytestmark = pytest.mark.django_db


def total(player):
    today = casino_calendar(player.casino).day_of(timezone.now())
    return player_rating(player=player, first=today, last=today, now=timezone.now()).total


def figures(player) -> tuple[int, int, int, int, int, int]:
    t = total(player)
    return (t.coups, t.banked, t.staked, t.largest_stake, t.net, t.levy)


def test_macao_punters_risk_three_units_and_the_banker_pays(games) -> None:
    # unit 10, the banker collects on the scale: a punter risks at most 3 units (a banker's 9);
    # the punters' 9 and 8 beat the banker's 5: he pays them 30 and 20
    banker, nine, eight = games.players["macao"]
    assert figures(banker) == (1, 1, 0, 0, -50, 0)
    assert figures(nine) == (1, 0, 30, 30, 30, 0)
    assert figures(eight) == (1, 0, 30, 30, 20, 0)


def test_landsknecht_a_cover_is_the_stake(games) -> None:
    # the banker stakes 50, the punter covers 30 and the reserve fund (holding 20) the other 20
    # (docs/games/landsknecht.md); the banker's rank comes again: he wins 30 + 20
    banker, punter = games.players["landsknecht"]
    assert figures(banker) == (1, 1, 0, 0, 50, 0)
    assert figures(punter) == (1, 0, 30, 30, -30, 0)


def test_old_baccarat_stakes_and_the_void_coup_left_out(games) -> None:
    # c staked 10 and lost it to the banker; a voided Macao coup counts for nobody
    _banker, _tied, c = games.players["tie"]
    assert figures(c) == (1, 0, 10, 10, -10, 0)
    banker = games.players["macao"][0]
    assert total(banker).coups == 1  # the settled coup only, not the void one nor the open one
