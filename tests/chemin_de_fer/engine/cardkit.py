"""Small builders for engine tests: hands with a given total, records in a line."""

from __future__ import annotations

from typing import TypedDict

from chemin_de_fer.engine.coup import Action, CoupRecord, Hand, Stake

RANK_FOR_POINTS = {0: "K", 1: "A", 2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9"}


def card(points: int, suit: str = "S") -> str:
    return RANK_FOR_POINTS[points] + suit


def two_cards(total: int, suits: str = "HD") -> tuple[str, str]:
    """Two cards making ``total``: the total itself and a ten-value card (K)."""
    return (card(total, suits[0]), "K" + suits[1])


def record(
    *,
    player: tuple[str, ...],
    player_action: str,
    banker: tuple[str, ...],
    banker_action: str,
    profile: str = "casino",
    bank: int = 100,
    bets: tuple[tuple[str, int], ...] = (("seat-1", 60), ("seat-2", 40)),
    banco: bool = False,
    shoe_next: tuple[str, ...] = (),
    **extra: object,
) -> CoupRecord:
    return CoupRecord(
        id="t",
        profile=profile,
        bank=bank,
        bets=tuple(Stake(p, a) for p, a in bets),
        player=Hand(player, Action(player_action)),
        banker=Hand(banker, Action(banker_action)),
        banco=banco,
        shoe_next=shoe_next,
        # each test names the few record fields it sets beyond the hands: typed by CoupRecord itself
        **extra,  # type: ignore[arg-type]
    )


class RecordKwargs(TypedDict):
    """The keyword arguments of :func:`record` that :func:`record_kwargs` gives back."""

    profile: str
    bank: int
    bets: tuple[tuple[str, int], ...]
    player: tuple[str, ...]
    player_action: str
    banker: tuple[str, ...]
    banker_action: str


def record_kwargs(rec: CoupRecord) -> RecordKwargs:
    """The keyword arguments of :func:`record` that rebuild ``rec`` (to vary one of them)."""
    return {
        "profile": rec.profile,
        "bank": rec.bank,
        "bets": tuple((b.punter, b.amount) for b in rec.bets),
        "player": rec.player.cards,
        "player_action": rec.player.action.value,
        "banker": rec.banker.cards,
        "banker_action": rec.banker.action.value,
    }
