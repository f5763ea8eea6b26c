"""Fixtures for the older games' books, exports and review: a settled coup of each game, a void
one and an open one (``game_table`` is tests/conftest.py's)."""

from __future__ import annotations

import pytest

from older_games import services as svc
from tables.models import GameCoup
from tests.older_games.coups import GameHistory, landsknecht_steps, macao_steps, old_baccarat_tie_steps, play
from tests.tables.api.conftest import api  # noqa: F401  (the API clients, for the wing's API tests)


@pytest.fixture
def games(game_table, croupier, pit_boss) -> GameHistory:
    """A settled coup of each game (old baccarat's a pooled tie), a void and an open Macao coup."""
    _t, m_session, m_players = game_table("macao", players=3)
    macao = play(croupier, m_session, macao_steps())
    void = svc.game_coup_start(actor=croupier, session=m_session).coup
    svc.game_step_record(actor=croupier, coup=void, payload={"kind": "deal", "card": "2C"})
    voided = svc.game_coup_void(actor=pit_boss, coup=void, reason="misdeal")
    assert isinstance(voided, GameCoup)  # no void limit at this casino: voided at once
    void = voided
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
