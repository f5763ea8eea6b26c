"""The older games through the REST API (tables/api/views/games.py): an older game's table, its
coups started, stepped, read, listed and voided, the Landsknecht fund dues; exact values of
hand-picked coups, every refusal with nothing written, and who may do what."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.selectors import player_available
from tables.services.game_coups import player_key

from .conftest import Api

pytestmark = pytest.mark.django_db


def chips(table: Any, players: list[Any]) -> list[int]:
    return [player_available(casino=table.casino, player=p) for p in players]


def play(api: Api, coup: dict[str, Any], *steps: dict[str, Any]) -> dict[str, Any]:
    for payload in steps:
        coup = api.ok(
            api.post(f"/game-coups/{coup['id']}/steps/", {**payload, "expected_steps": coup["step_count"]})
        )
    return coup


def test_macao_a_nine_is_paid_three_units(game_table, croupier) -> None:
    table, _session, players = game_table("macao", players=3)
    a, b, c = players
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/game-coups/"))
    assert coup["banker"] == {"key": player_key(a), "player": a.pk, "name": a.display_name}
    coup = play(
        api,
        coup,
        {"kind": "deal", "card": "9h"},
        {"kind": "deal", "card": "8S"},
        {"kind": "deal", "card": "5D"},
        {"kind": "stand"},
        {"kind": "stand"},
        {"kind": "stand"},
    )
    assert coup["state"] == "settled" and coup["outcome"] == "punters"
    assert coup["net"] == {player_key(a): -50, player_key(b): 30, player_key(c): 20}
    assert chips(table, players) == [950, 1030, 1020]
    assert coup["next_steps"] == []
    import json

    print(json.dumps(coup, indent=1, default=str))
