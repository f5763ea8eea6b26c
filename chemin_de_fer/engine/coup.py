"""The coup as data: what was recorded at the table, and the engine's verdict on it.

These are the engine's public value types. They mirror the interchange format of
docs/coup-record.md one to one, so that a history exported by the back-office can be re-judged
offline by exactly the code that judged it live.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from chemin_de_fer.engine.frozen import fast_init


class Outcome(StrEnum):
    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


class Action(StrEnum):
    """What a hand did, as recorded."""

    NATURAL = "natural"  # 8 or 9 shown on two cards
    DRAW = "draw"
    STAND = "stand"
    NONE = "none"  # never got to decide: the other side had a natural


class Code(StrEnum):
    """Violation codes. A violation is something that happened at the table against the rules:
    it is recorded, flagged and (for game violations) restored — never refused in a recorded
    history. (A live table refuses the procedural ones outright: a spectator's forbidden bet, a
    bank under the minimum or above the house limit, a banco suivi the profile lacks, a
    spectator's bet before the seated round is over, bets beyond the bank; a record of them is
    flagged instead.)"""

    BANK_BELOW_MINIMUM = "BANK_BELOW_MINIMUM"
    BANK_ABOVE_LIMIT = "BANK_ABOVE_LIMIT"
    SPECTATOR_BET_NOT_ALLOWED = "SPECTATOR_BET_NOT_ALLOWED"
    SPECTATOR_BEFORE_SEATED = "SPECTATOR_BEFORE_SEATED"
    SUIVI_NOT_ALLOWED = "SUIVI_NOT_ALLOWED"
    BETS_EXCEED_BANK = "BETS_EXCEED_BANK"
    WRONG_ACTIVE_PUNTER = "WRONG_ACTIVE_PUNTER"
    NATURAL_NOT_SHOWN = "NATURAL_NOT_SHOWN"
    CARD_AFTER_NATURAL = "CARD_AFTER_NATURAL"
    PLAYER_SHOULD_DRAW = "PLAYER_SHOULD_DRAW"
    PLAYER_SHOULD_STAND = "PLAYER_SHOULD_STAND"
    BANKER_SHOULD_DRAW = "BANKER_SHOULD_DRAW"
    BANKER_SHOULD_STAND = "BANKER_SHOULD_STAND"


#: procedural violations — about the bank, the bets and who may make them rather than the play of
#: the cards: the coup is judged, settled and restored as recorded, so they restore nothing
NON_GAME_CODES = frozenset(
    {
        Code.BANK_BELOW_MINIMUM,
        Code.BANK_ABOVE_LIMIT,
        Code.SPECTATOR_BET_NOT_ALLOWED,
        Code.SPECTATOR_BEFORE_SEATED,
        Code.SUIVI_NOT_ALLOWED,
        Code.BETS_EXCEED_BANK,
        Code.WRONG_ACTIVE_PUNTER,
    }
)


@fast_init
@dataclass(frozen=True, slots=True)
class Stake:
    """One bet in a coup: the punter's key, his chips, and whether he bets standing (a spectator)."""

    punter: str
    amount: int
    spectator: bool = False


@fast_init
@dataclass(frozen=True, slots=True)
class Hand:
    cards: tuple[str, ...]
    action: Action


@fast_init
@dataclass(frozen=True, slots=True)
class CoupRecord:
    """One coup as it was played. ``bets`` are in betting order; ``shoe_next`` are the cards that
    were next in the shoe (used only to restore a wrongly played coup)."""

    id: object
    profile: str
    bank: int
    bets: tuple[Stake, ...]
    player: Hand
    banker: Hand
    banco: bool = False
    first_coup_of_bank: bool = False
    shoe_next: tuple[str, ...] = ()
    house_limit: int | None = None
    chip_unit: int = 1
    active_punter: str | None = None
    banco_suivi: bool = False  # the banco caller claimed his suivi (only with ``banco``)


@fast_init
@dataclass(frozen=True, slots=True)
class Violation:
    code: Code
    side: str  # "player" | "banker" | "punters"
    detail: str = ""


@fast_init
@dataclass(frozen=True, slots=True)
class Settlement:
    """Who gains what. ``banker_net`` is after the levy; ``punters`` maps each bettor to his gain
    (positive) or loss (negative); ``banker_net + sum(punters) + tax == 0`` always."""

    covered: int
    uncovered: int
    tax: int
    banker_net: int
    punters: Mapping[str, int]
    next_bank_min: int | None
    # who reimburses whom under the club rule (active punter stood on his option and lost):
    # {punter: chips he receives back from the active punter}
    reimbursed: Mapping[str, int] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True)
class Restored:
    """The coup as it should have gone (docs/rules.md §9)."""

    player_cards: tuple[str, ...]
    banker_cards: tuple[str, ...]
    player_total: int
    banker_total: int
    outcome: Outcome
    void_cards: tuple[str, ...]
    player_action: Action
    banker_action: Action
    extra_cards: tuple[str, ...] = ()  # cards taken from ``shoe_next`` to complete the game


@fast_init
@dataclass(frozen=True, slots=True)
class NeedsCards:
    """The correct game needs cards the record does not supply: at least ``needs_cards`` more
    from the shoe before it can be completed."""

    needs_cards: int


@fast_init
@dataclass(frozen=True, slots=True)
class Verdict:
    id: object
    player_total: int
    banker_total: int
    outcome: Outcome  # as actually played
    violations: tuple[Violation, ...]
    settlement: Settlement | None  # as restored when restorable, else as played
    restored: Restored | NeedsCards | None

    @property
    def flagged(self) -> bool:
        return bool(self.violations)
