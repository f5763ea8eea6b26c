"""Fixtures for the older games: a table of each game the croupier persona works at, with an open
session and seated players who hold chips."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.services import cage_buy_in
from tables import services
from tables.models import Player, Table, TableSession
from tests.factories import CroupierAssignmentFactory, PlayerFactory, TableFactory

GAME_SETTINGS: dict[str, dict[str, Any]] = {
    "macao": {"unit": 10},
    "landsknecht": {"min_stake": 10, "fund_due": 10},
    "old-baccarat": {"min_stake": 10},
}


@pytest.fixture
def game_table(croupier, table) -> Callable[..., tuple[Table, TableSession, list[Player]]]:
    """``game_table("macao", players=4, chips=1000)``: the table, its open session, its seated players."""

    def make(game: str, *, players: int = 4, chips: int = 1000, settings: dict[str, Any] | None = None):
        t = TableFactory(casino=table.casino, game=game, game_settings=settings or GAME_SETTINGS[game])
        CroupierAssignmentFactory(user=croupier, table=t)
        session = services.table_session_open(actor=croupier, table=t)
        seated = []
        for n in range(1, players + 1):
            player = PlayerFactory(casino=t.casino)
            if chips:
                cage_buy_in(
                    casino=t.casino, player=player, amount=chips, actor=croupier, key=f"buy:{player.pk}"
                )
            services.seat_take(actor=croupier, session=session, player=player, number=n)
            seated.append(player)
        return t, session, seated

    return make
