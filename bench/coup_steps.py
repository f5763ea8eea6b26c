"""The steps of clean coups through the REST API, for the benchmarks that drive a table
(step_bench.py, multitable_bench.py): a card dealer that never shows a card more often than the
shoe holds, and four coup patterns the engine accepts.

The coups are stand-offs and small banker naturals so that the banker keeps the bank and play never
stops for a bank rotation; between them they use every step kind a clean coup has.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

SUITS = "SHDC"
DECKS = 8


RANKS = "A23456789TJQK"
VALUE = {r: (i + 1) % 10 if i < 9 else 0 for i, r in enumerate(RANKS)}


class Cards:
    """Hands out cards worth what is asked, spreading ranks and suits so that no card is seen more
    often than the shoe holds (which would raise a shoe alarm)."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def _take(self, rank: str) -> str:
        suit = min(SUITS, key=lambda s: self.seen[rank + s])
        card = rank + suit
        self.seen[card] += 1
        assert self.seen[card] <= DECKS, card
        return card

    def _left(self, rank: str) -> int:
        return sum(DECKS - self.seen[rank + s] for s in SUITS)

    def pair(self, total: int) -> tuple[str, str]:
        """Two cards totalling ``total`` (mod 10)."""
        pairs = [(a, b) for a in RANKS for b in RANKS if (VALUE[a] + VALUE[b]) % 10 == total]
        a, b = max(pairs, key=lambda p: min(self._left(p[0]), self._left(p[1])) - (p[0] == p[1]))
        return self._take(a), self._take(b)

    def zero(self) -> str:
        return self._take(max("TJQK", key=self._left))

    def left(self) -> int:
        """Cards left in the shoe."""
        return DECKS * 52 - sum(self.seen.values())


def coup_plan(pattern: int, bank: int, cards: Cards) -> list[dict[str, Any]]:
    """The steps of one coup after the bank is declared (the engine agrees with each one)."""
    if pattern == 0:  # three bets; both sides draw by the tableau: 3 + 0 each, a stand-off
        third = bank // 3
        bets = [(2, third), (3, third), (4, bank - 2 * third)]
        plan = [{"kind": "bet", "seat": s, "amount": a} for s, a in bets] + [{"kind": "bets_closed"}]
        plan += deal(cards.pair(3), cards.pair(3))
        plan += [
            {"kind": "player_draw"},
            {"kind": "card_to_player", "card": cards.zero()},
            {"kind": "banker_draw"},
            {"kind": "card_to_banker", "card": cards.zero()},
        ]
    elif pattern == 1:  # two bets; both stand on 6: a stand-off
        plan = [{"kind": "bet", "seat": 2, "amount": bank // 2}, {"kind": "bet", "seat": 4, "amount": 1}]
        plan += [{"kind": "bets_closed"}, *deal(cards.pair(6), cards.pair(6))]
        plan += [{"kind": "player_stand"}, {"kind": "banker_stand"}]
    elif pattern == 2:  # banco; two naturals of 9: a stand-off
        plan = [{"kind": "banco", "callers": [{"seat": 3}]}, {"kind": "bets_closed"}]
        plan += [*deal(cards.pair(9), cards.pair(9)), {"kind": "player_natural"}]
    else:  # one small bet; the banker shows a natural 8 against the player's 5
        plan = [{"kind": "bet", "seat": 2, "amount": 10}, {"kind": "bets_closed"}]
        plan += [*deal(cards.pair(5), cards.pair(8)), {"kind": "player_stand"}, {"kind": "banker_natural"}]
    return [*plan, {"kind": "reveal"}]


def deal(player: tuple[str, str], banker: tuple[str, str]) -> list[dict[str, Any]]:
    """P1, B1, P2, B2."""
    order = [("card_to_player", player[0]), ("card_to_banker", banker[0])]
    order += [("card_to_player", player[1]), ("card_to_banker", banker[1])]
    return [{"kind": kind, "card": card} for kind, card in order]
