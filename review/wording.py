"""What the pit boss's pages say: the meaning of each violation code, the refusals, percentages."""

from __future__ import annotations

from fractions import Fraction

from tables.rules.coup import Code

#: what each violation code means, in the pit boss's words
VIOLATION_TEXT: dict[str, str] = {
    Code.BETS_EXCEED_BANK: "The bets add up to more than the bank.",
    Code.WRONG_ACTIVE_PUNTER: "The wrong punter played the hand.",
    Code.NATURAL_NOT_SHOWN: "A natural (8 or 9 on two cards) was not shown at once.",
    Code.CARD_AFTER_NATURAL: "A third card was dealt although a natural decided the coup.",
    Code.PLAYER_SHOULD_DRAW: "The player had to draw.",
    Code.PLAYER_SHOULD_STAND: "The player had to stand.",
    Code.BANKER_SHOULD_DRAW: "The banker had to draw.",
    Code.BANKER_SHOULD_STAND: "The banker had to stand.",
}

#: why a user may not approve or reject a correction (the services refuse the same)
PIT_BOSS_ONLY_REFUSAL = "Only a pit boss may approve or reject a correction."
SELF_REVIEW_REFUSAL = "You submitted this correction: another pit boss must approve or reject it."


def percent(value: Fraction | None, digits: int = 2) -> str:
    """A share as a percentage for the screen ("4.56 %"); "—" when undefined."""
    return "—" if value is None else f"{float(value) * 100:.{digits}f} %"


def violation_items(codes: list[str]) -> list[tuple[str, str]]:
    return [(code, VIOLATION_TEXT.get(code, code)) for code in codes]
