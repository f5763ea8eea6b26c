"""What the game's facts read as, wherever they are shown: the croupier's tablet, the pit boss's
pages and the refusals of the services. One owner per sentence: a card, an outcome, a phase, a
step's button and its recorded detail, a violation code's meaning (and, in the middle of a coup,
what exactly it breaks), what the tableau requires, who may decide a correction.

It lives on the game side (tables/ never imports the back office) and reads no database: the
callers hand it step kinds, payloads, codes and the engine's state. Layout stays with each screen
(tables/views/display.py for the tablet, review/ for the pit boss).
"""

from __future__ import annotations

from typing import Any

from tables.rules.coup import Code, Violation
from tables.rules.machine import CoupProgress, Move
from tables.rules.tableau import Requirement

# ------------------------------------------------------------------------------------------ cards
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_LABELS = {"T": "10"}


def card_label(code: str) -> str:
    """A card code as it is printed: ``TD`` → ``10♦``."""
    rank, suit = code[:-1], code[-1]
    return f"{RANK_LABELS.get(rank, rank)}{SUIT_SYMBOLS[suit]}"


# ------------------------------------------------------------------------------ outcomes and phases
#: an outcome as the tablet announces it (the pit boss's pages show the outcome's own name)
OUTCOME_LABELS = {"player": "Player wins", "banker": "Banker wins", "tie": "Stand-off"}

#: the coup's phase (the engine's ``Phase`` values) as the tablet's heading names it
PHASE_LABELS = {
    "declaring": "Bank to declare",
    "betting": "Bets",
    "dealing": "Dealing",
    "player_to_act": "Player to act",
    "playing": "Play",
    "done": "Hands shown",
}

# ------------------------------------------------------------------------------------------ steps
#: the step the croupier records, as its button says it
BUTTON_LABELS = {
    Move.BETS_CLOSED: "No more bets",
    Move.PLAYER_NATURAL: "Player shows his natural",
    Move.PLAYER_DRAW: "Player draws",
    Move.PLAYER_STAND: "Player stands",
    Move.BANKER_NATURAL: "Banker shows his natural",
    Move.BANKER_DRAW: "Banker draws",
    Move.BANKER_STAND: "Banker stands",
    Move.REVEAL: "Show both hands",
    Move.CARD_TO_PLAYER: "Card to the player",
    Move.CARD_TO_BANKER: "Card to the banker",
}


def step_detail(kind: str, payload: dict[str, Any] | None, names: dict[str, str]) -> str:
    """What a recorded step says beyond its kind ("" when nothing): its amounts, cards, verdict or
    reason. ``names`` maps the engine's punter keys (``seat-4``) to what the screen calls them."""
    p = payload or {}

    def who(key: str | None) -> str:
        return names.get(key or "", key or "")

    if kind == "bank_declared":
        return f"bank {p.get('amount')} by {who(p.get('banker'))}"
    if kind == "bet":
        return f"{who(p.get('punter'))} bets {p.get('amount')}"
    if kind == "banco":
        callers = ", ".join(who(c["punter"]) for c in p.get("callers", []))
        return f"banco by {callers}; plays: {who(p.get('winner'))}"
    if kind in ("card_to_player", "card_to_banker"):
        return str(p.get("card", ""))
    if kind == "reveal":
        v = p.get("verdict") or {}
        return f"player {v.get('player_total')}, banker {v.get('banker_total')}: {v.get('outcome')}"
    if kind == "correction":
        cards = ", ".join(p.get("cards", [])) or "none"
        restored = p.get("restored") or {}
        return f"cards from the shoe: {cards}; restored outcome: {restored.get('outcome', '?')}"
    if kind == "correction_rejected":
        return f"reason: {p.get('reason', '')}"
    if kind == "correction_approved":
        return "restored settlement is final"
    if kind == "amend":
        return f"{amend_change(p, names)} (step {p.get('step')}; reason: {p.get('reason', '')})"
    if kind == "coup_voided":
        return f"reason: {p.get('reason', '')}"
    if kind == "bank_withdrawn":
        return f"nobody bet: bank {p.get('bank')} withdrawn without a deal"
    return ""


def amend_change(payload: dict[str, Any], names: dict[str, str]) -> str:
    """What an amendment changed: ``seat 2 bets 50 → 500`` or ``5H → 6H``."""
    was = payload.get("was") or {}
    if payload.get("kind") == "bet":
        old_who = names.get(was.get("punter", ""), was.get("punter"))
        new_who = names.get(payload.get("punter", ""), payload.get("punter"))
        who = old_who if old_who == new_who else f"{old_who} → {new_who}"
        amounts = f"{was.get('amount')} → {payload.get('amount')}"
        if was.get("amount") == payload.get("amount"):
            amounts = str(payload.get("amount"))
        return f"{who} bets {amounts}"
    return f"{was.get('card', '?')} → {payload.get('card', '?')}"


# ------------------------------------------------------------------------------------- violations
#: what each violation code means, once the step is recorded
VIOLATION_TEXT: dict[str, str] = {
    Code.BANK_BELOW_MINIMUM: "The bank was under the table's minimum bank.",
    Code.SPECTATOR_BET_NOT_ALLOWED: "A spectator bet, or called banco, where the table's rules forbid it.",
    Code.BETS_EXCEED_BANK: "The bets add up to more than the bank.",
    Code.WRONG_ACTIVE_PUNTER: "The wrong punter played the hand.",
    Code.NATURAL_NOT_SHOWN: "A natural (8 or 9 on two cards) was not shown at once.",
    Code.CARD_AFTER_NATURAL: "A third card was dealt although a natural decided the coup.",
    Code.PLAYER_SHOULD_DRAW: "The player had to draw.",
    Code.PLAYER_SHOULD_STAND: "The player had to stand.",
    Code.BANKER_SHOULD_DRAW: "The banker had to draw.",
    Code.BANKER_SHOULD_STAND: "The banker had to stand.",
}


def violation_meaning(code: str) -> str:
    """A violation code's meaning; an unknown code reads as itself."""
    return VIOLATION_TEXT.get(code, code)


def violation_items(codes: list[str]) -> list[tuple[str, str]]:
    """``(code, meaning)`` for each code, in order."""
    return [(code, violation_meaning(code)) for code in codes]


def _against(state: CoupProgress) -> str:
    if len(state.player_cards) == 3:
        return f"against the player's third card {card_label(state.player_cards[2])}"
    return "when the player stood"


def violation_text(violation: Violation, state: CoupProgress) -> str:
    """What a step breaks, said with the hands on the table (the croupier's confirm panel and his
    restoration): the totals the tableau judged. A code that owes nothing to the hands reads as
    its meaning."""
    code = violation.code
    p2 = state.player_two if len(state.player_cards) >= 2 else None
    b2 = state.banker_two if len(state.banker_cards) >= 2 else None
    if code is Code.PLAYER_SHOULD_DRAW:
        return f"The player must draw on {p2}: the tableau does not let him stand."
    if code is Code.PLAYER_SHOULD_STAND:
        return f"The player must stand on {p2}: the tableau does not let him draw."
    if code is Code.BANKER_SHOULD_DRAW:
        return f"The banker must draw on {b2} {_against(state)}: the tableau does not let him stand."
    if code is Code.BANKER_SHOULD_STAND:
        return f"The banker must stand on {b2} {_against(state)}: the tableau does not let him draw."
    if code is Code.NATURAL_NOT_SHOWN:
        total = p2 if violation.side == "player" else b2
        return f"The {violation.side} holds a natural {total}: he must show it, not draw or stand."
    if code is Code.CARD_AFTER_NATURAL:
        return "A natural decides this coup: no third card may be dealt."
    profile = state.rules.profile
    if code is Code.BANK_BELOW_MINIMUM and state.bank is not None:
        return (
            f"The bank of {state.bank} is under the {profile.slug} profile's minimum bank"
            f" of {profile.min_bank}."
        )
    if code is Code.SPECTATOR_BET_NOT_ALLOWED:
        if not profile.spectators_bet:
            return f"Spectators may not bet under the {profile.slug} profile."
        return f"A spectator may not call banco under the {profile.slug} profile: a seated punter plays."
    if code in VIOLATION_TEXT:
        return VIOLATION_TEXT[code]
    return violation.detail or str(code)


def requirement_text(need: tuple[str, Requirement] | None, state: CoupProgress) -> str:
    """What the tableau requires of whoever acts now ("" when nobody has to act)."""
    if need is None:
        return ""
    side, req = need
    total = state.player_two if side == "player" else state.banker_two
    who = f"The {side} ({total}"
    who += f", {_against(state)})" if side == "banker" else ")"
    if req is Requirement.DRAW:
        return f"{who} must draw."
    if req is Requirement.STAND:
        return f"{who} must stand."
    return f"{who} is free to draw or stand."


# --------------------------------------------------------------------------------------- amending
#: the croupier's typo amended before the reveal (tables.services.amends)
AMEND_AFTER_REVEAL = (
    "The hands are shown: a step can no longer be amended. A wrong step is now put right by the "
    "pit boss's correction (restore the game)."
)
AMEND_ONLY_BETS_AND_CARDS = "Only a bet or a dealt card can be amended"
AMEND_NEEDS_REASON = "Say why the step is amended (e.g. 'typed 50 for 500')."
AMEND_NO_CHANGE = "The amended value is the one recorded: nothing to amend."


def amend_breaks_later_step(index: int, label: str, why: str, *, amendable: bool) -> str:
    """An amendment refused because a later step could not have happened with the amended value."""
    first = f" Amend step {index} first." if amendable else " A pit boss may void the coup."
    return f"With this amendment step {index} ({label}) would be impossible: {why}.{first}"


# ---------------------------------------------------------------------------------- restoring
#: a closed shoe's restoration takes the cards recorded after the coup (tables.selectors.RestorationShoe)
CLOSED_SHOE_RECORDED = "The shoe is closed: the restored game takes the cards recorded after this coup"


def restoration_needs_cards(n: int) -> str:
    cards_word = "card" if n == 1 else "cards"
    return f"The restored game needs {n} more {cards_word} from the shoe: deal them."


def closed_shoe_cards_gone(shoe_number: int, n: int) -> str:
    cards_word = "card" if n == 1 else "cards"
    return (
        f"Shoe {shoe_number} is closed and a new shoe was started: the {n} more {cards_word} the "
        "restored game needs cannot be dealt any more. A pit boss voids the coup."
    )


# --------------------------------------------------------------------------------------- refusals
#: why a user may not approve or reject a correction: the services refuse with these words, and
#: the pit boss's pages say them before he tries
PIT_BOSS_ONLY_REFUSAL = "Only a pit boss may approve or reject a correction."
SELF_REVIEW_REFUSAL = "You submitted this correction: another person must review it."
RECORDER_REVIEW_REFUSAL = (
    "You recorded a step of this coup: another person, who recorded none, must review its correction."
)


# --------------------------------------------------------------------------- exits from a coup
#: why a declared bank cannot be withdrawn (RULES.md §7: only a bank nobody took is withdrawn)
BANK_WITHDRAW_BETS_STAND = (
    "Bets stand on this bank: it is played, not withdrawn (a pit boss may void the coup)."
)
BANK_WITHDRAW_CARDS_DEALT = (
    "Cards were dealt: the coup is played out, or a pit boss voids it; the bank is not withdrawn."
)
#: why a void is refused: the coup is over for good
VOID_FINAL_STATE = (
    "This coup is {state}: only a coup not over yet (being played, or awaiting its correction or "
    "its approval) is voided."
)
VOID_REASON_MISSING = "Say why the coup is voided."
#: what the pit boss is told once a coup is voided
VOID_DONE = "Coup voided: every stake returned, the bank as declared, the cards dealt stay dealt."
