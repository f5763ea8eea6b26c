"""The chips a settlement moves, the same in every older game: each game's judge settles a coup as
transfers between parties (the players by name, the reserve fund, the tie pool), and the uniform
face of :mod:`older_games.engine.game_play` hands the same transfers to the floor.

Pure Python, no Django, like every engine module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Transfer:
    """``payer`` pays ``amount`` chips to ``payee``: positive in a finished settlement (a game's
    judge may count a zero on the way and drops it before it settles)."""

    payer: str
    payee: str
    amount: int


def transfer_nets(transfers: Iterable[Transfer]) -> dict[str, int]:
    """Each party's net over ``transfers`` (won positive), in the order the parties are first
    named; a party whose transfers cancel out keeps its 0 (old baccarat's pool always does). The
    values sum to zero."""
    out: dict[str, int] = {}
    for t in transfers:
        out[t.payer] = out.get(t.payer, 0) - t.amount
        out[t.payee] = out.get(t.payee, 0) + t.amount
    return out


def settlement_to_dict(transfers: Iterable[Transfer], net: Mapping[str, int]) -> dict[str, Any]:
    """A settlement in the games' shared JSON frame (docs/coup-record.md): its transfers in order
    and each party's net, as every older game's verdict writes it."""
    return {
        "transfers": [{"payer": t.payer, "payee": t.payee, "amount": t.amount} for t in transfers],
        "net": dict(net),
    }
