"""The pit boss's player page counts the older games' coups in its tiles, through the games' seam
(``GameWing.rating_coups``, review/selectors/player.py), as the rating table on the same page
does: a stake is a bet, a bank held is a coup as banker."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.selectors.player import player_page

pytestmark = pytest.mark.django_db


def _tiles(player) -> tuple[int, int, Fraction | None, int]:
    data = player_page(player=player, now=timezone.now())
    return (data.bets, data.staked, data.average_bet, data.banks_held)


def test_the_tiles_count_the_older_games_coups(games, pit_boss) -> None:
    macao_banker, nine, _eight = games.players["macao"]
    l_banker, l_punter = games.players["landsknecht"]
    _o_banker, _tied, c = games.players["tie"]
    assert _tiles(macao_banker) == (0, 0, None, 1)  # the settled coup: not the void nor the open one
    assert _tiles(nine) == (1, 30, Fraction(30), 0)
    assert _tiles(l_banker) == (0, 0, None, 1)
    assert _tiles(l_punter) == (1, 30, Fraction(30), 0)
    assert _tiles(c) == (1, 10, Fraction(10), 0)
    boss = Client()
    boss.force_login(pit_boss)
    html = boss.get(reverse("review:player", args=[nine.pk])).content.decode()
    assert '<span class="tile-figure" data-testid="bets">1</span>' in html
    assert '<span class="tile-figure" data-testid="banks-held">0</span>' in html
    html = boss.get(reverse("review:player", args=[macao_banker.pk])).content.decode()
    assert '<span class="tile-figure" data-testid="banks-held">1</span>' in html
