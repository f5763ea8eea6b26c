"""Fixtures for the older games: a table of each game the croupier persona works at, with an open
session and seated players who hold chips."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.services import cage_buy_in
from tables import services
from tables.models import Player, Table, TableSession
from tables.services import game_coups as svc
from tests.factories import CroupierAssignmentFactory, PlayerFactory, TableFactory
from tests.tables.games.coups import GameHistory, landsknecht_steps, macao_steps, old_baccarat_tie_steps, play

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


@pytest.fixture
def games(game_table, croupier, pit_boss) -> GameHistory:
    """A settled coup of each game (old baccarat's a pooled tie), a void and an open Macao coup."""
    _t, m_session, m_players = game_table("macao", players=3)
    macao = play(croupier, m_session, macao_steps())
    void = svc.game_coup_start(actor=croupier, session=m_session).coup
    svc.game_step_record(actor=croupier, coup=void, payload={"kind": "deal", "card": "2C"})
    void = svc.game_coup_void(actor=pit_boss, coup=void, reason="misdeal")
    opened = svc.game_coup_start(actor=croupier, session=m_session).coup
    _t, l_session, l_players = game_table("landsknecht", players=2)
    svc.game_fund_collect(actor=croupier, session=l_session)
    landsknecht = play(croupier, l_session, landsknecht_steps(l_players))
    _t, o_session, o_players = game_table(
        "old-baccarat", players=3, settings={"min_stake": 10, "tie_rule": "pool"}
    )
    tie = play(croupier, o_session, old_baccarat_tie_steps(o_players))
    return GameHistory(
        macao,
        landsknecht,
        tie,
        void,
        opened,
        {"macao": m_players, "landsknecht": l_players, "tie": o_players},
    )
