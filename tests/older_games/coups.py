"""Finished coups of each older game, played through the services, for the books, the exports
and the pit boss's pages (the steps are those of tests/older_games/test_game_coups.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from older_games import services as svc
from tables.models import GameCoup, Player, TableSession


def play(croupier: Any, session: TableSession, steps: list[dict[str, Any]]) -> GameCoup:
    coup = svc.game_coup_start(actor=croupier, session=session).coup
    for payload in steps:
        svc.game_step_record(actor=croupier, coup=coup, payload=payload)
    coup.refresh_from_db()
    return coup


def macao_steps() -> list[dict[str, Any]]:
    """Three seated: the two punters' 9 and 8 beat the banker's 5 (he pays 30 + 20)."""
    return [
        *({"kind": "deal", "card": c} for c in ("9H", "8S", "5D")),
        *({"kind": "stand"} for _ in range(3)),
    ]


def landsknecht_steps(players: list[Player]) -> list[dict[str, Any]]:
    """Two seated, the fund holding 20: the banker's rank comes again, he wins and takes."""
    return [
        {"kind": "stake", "amount": 50},
        {"kind": "cover", "player": svc.player_key(players[1]), "amount": 30},
        {"kind": "close"},
        *({"kind": "card", "card": c} for c in ("5H", "KS", "5D")),
        {"kind": "decide", "decision": "take"},
    ]


def old_baccarat_tie_steps(players: list[Player]) -> list[dict[str, Any]]:
    """Three seated, ties pooled: b ties the banker (pooled), c loses 10 to him."""
    a, b, c = (svc.player_key(p) for p in players)
    return [
        {"kind": "stake", "player": b, "amount": 20},
        {"kind": "stake", "player": c, "amount": 10},
        {"kind": "cut", "player": b},
        *({"kind": "card", "card": card} for card in ("3H", "2H", "4H", "2S", "3S", "3D")),
        {"kind": "stand", "player": c},
        {"kind": "stand", "player": b},
        {"kind": "draw", "player": a},
        {"kind": "card", "card": "9D"},
    ]


@dataclass
class GameHistory:
    macao: GameCoup
    landsknecht: GameCoup
    tie: GameCoup
    void: GameCoup
    open: GameCoup
    players: dict[str, list]
