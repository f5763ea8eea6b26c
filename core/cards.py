"""Cards, points and the composition of a shoe.

A card is its two-character code, rank then suit: ``"AS"``, ``"TD"``, ``"QH"``. Codes are kept as
plain strings because the engine judges hundreds of thousands of coups a second and a dict lookup
is the cheapest validation there is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from core.sentence import said

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RANK_POINTS: dict[str, int] = {r: (i + 1 if i < 9 else 0) for i, r in enumerate(RANKS)}

#: every legal card code and its points (A=1, 2..9 face value, T/J/Q/K=0)
POINTS: dict[str, int] = {r + s: RANK_POINTS[r] for r in RANKS for s in SUITS}
ALL_CARDS: tuple[str, ...] = tuple(POINTS)

#: the one other spelling of a rank the rules accept: RULES.md §11 lets a house "accept ``10`` as a
#: ten everywhere" (or refuse it everywhere); the product accepts it, live and in a record alike,
#: so ``10D`` is ``TD`` wherever it is read. Nothing else is: ``1S`` is no card (the ace is ``A``)
_TEN = "10"

#: how many cards lie under the stop card, counted from the bottom of the shoe (docs/rules.md §8):
#: fewer would leave too little for the last coup, more would waste the shoe
STOP_CARD_FROM_BOTTOM = range(7, 11)


def stop_card_refusal(from_bottom: int, shoe_size: int) -> str | None:
    """Why a stop card ``from_bottom`` cards from the bottom of a shoe of ``shoe_size`` cards
    cannot stand there (None: it can). It must lie 7 to 10 cards from the bottom, which in a
    312-card shoe is after card 302 to 305."""
    lo, hi = STOP_CARD_FROM_BOTTOM[0], STOP_CARD_FROM_BOTTOM[-1]
    if lo <= from_bottom <= hi and from_bottom < shoe_size:
        return None
    return said(
        "The stop card goes {low} to {high} cards from the bottom of the shoe (in this {size}-card "
        "shoe: after card {first} to {last}), not {position}.",
        low=lo,
        high=hi,
        size=shoe_size,
        first=shoe_size - hi,
        last=shoe_size - lo,
        position=from_bottom,
    )


class CardError(ValueError):
    """A card code that names no card."""


def _bad_card(text: object) -> str:
    """Why a typed card is refused, and what a card looks like, so whoever typed it (a croupier at
    his tablet, a program at the API) knows how to go on. Its English starts as it always did
    ("bad card 'ZZ'"); a screen says it in its language (tables.wording.say)."""
    return said(
        "bad card {card!r}: a card is a rank (A, 2-9, T or 10, J, Q, K) and a suit (S, H, D, C), e.g. 9H",
        card=text,
    )


def card_code(text: object) -> str | None:
    """The code of a card as a record writes it: one of the 52 codes, or a ten written ``10``
    (``10D`` is ``TD``, see :data:`_TEN`); None for anything else (``1S``, ``ZZ``, a number). A
    record is written, not typed: ``td`` or `` 9H`` is no code (a croupier's typing is
    :func:`parse_card`'s), but the ten reads the same in both."""
    if type(text) is not str:
        return None
    if text in POINTS:
        return text
    if len(text) == 3 and text.startswith(_TEN) and "T" + text[2] in POINTS:
        return "T" + text[2]
    return None


def card_read(text: str) -> str:
    """A record's card as the rules read it: its code (:func:`card_code`), or the text as written
    when it is none, so that the finding at its place quotes what the record says."""
    return card_code(text) or text


def parse_card(text: str) -> str:
    """Read a card the way a croupier types it (``9h``, ``td``, ``10D``, ``As``) into its code:
    case and spaces aside, the reading of a record (:func:`card_code`), so ``10`` is a ten here as
    everywhere, and ``1S`` is refused here as everywhere (RULES.md §11).

    Raises :class:`CardError` for anything that is not one of the 52 cards.
    """
    if not isinstance(text, str):
        raise CardError(_bad_card(text))
    code = card_code(text.strip().upper())
    if code is None:
        raise CardError(_bad_card(text))
    return code


def hand_total(cards: Iterable[str]) -> int:
    """The total of a hand: the sum of its points modulo 10."""
    return sum(POINTS[c] for c in cards) % 10


def is_natural(cards: tuple[str, ...] | list[str]) -> bool:
    """Two cards making 8 ("la petite") or 9 ("la grande")."""
    return len(cards) == 2 and (POINTS[cards[0]] + POINTS[cards[1]]) % 10 >= 8


@dataclass(frozen=True, slots=True)
class ImpossibleCard:
    """A card seen more often than the shoe holds: a game-protection alarm, not a rules violation."""

    card: str
    seen: int
    held: int

    @property
    def message(self) -> str:
        return f"{self.card} seen {self.seen} times, the shoe holds {self.held}"


def shoe_alarms(cards_seen: Iterable[str], decks: int) -> list[ImpossibleCard]:
    """Every card seen more often than a shoe of ``decks`` decks holds, in card order."""
    if decks < 1:
        raise ValueError("a shoe holds at least one deck")
    counts = Counter(cards_seen)
    return [ImpossibleCard(card, counts[card], decks) for card in ALL_CARDS if counts[card] > decks]


def remaining_by_points(cards_seen: Iterable[str], decks: int) -> tuple[int, ...]:
    """How many cards of each point value (index 0..9) a shoe of ``decks`` decks still holds
    after ``cards_seen``. Never negative: an impossible card is an alarm, counted elsewhere."""
    left = [16 * decks] + [4 * decks] * 9  # ten, jack, queen, king all count 0
    for card in cards_seen:
        p = POINTS[card]
        if left[p] > 0:
            left[p] -= 1
    return tuple(left)
