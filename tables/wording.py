"""What the game's facts read as, wherever they are shown: the croupier's tablet, the pit boss's
pages and the refusals of the services. One owner per sentence: a card, an outcome, a phase, a
step's button and its recorded detail, a violation code's meaning (and, in the middle of a coup,
what exactly it breaks), what the tableau requires, who may decide a correction.

It lives on the game side (tables/ never imports the back office) and reads no database: the
callers hand it step kinds, payloads, codes and the engine's state. Layout stays with each screen
(tables/views/display.py for the tablet, review/ for the pit boss).

Every sentence here is English, as the services refuse, the API answers, the audit trail and the
exports record it, and the tests read it. The screens translate at their edge (docs/i18n.md): a
fixed sentence is marked ``gettext_noop`` (found by ``makemessages``, unchanged at run time) and a
template or view translates it when it shows it; a sentence built from values takes ``tr``, the
screens' ``gettext``, which translates its pattern before the values go in (default: English).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext_noop

from tables.rules.coup import Code, Violation
from tables.rules.machine import CoupProgress, Move
from tables.rules.tableau import Requirement

# ------------------------------------------------------------------------------------------ cards
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {
    "S": gettext_noop("spades"),
    "H": gettext_noop("hearts"),
    "D": gettext_noop("diamonds"),
    "C": gettext_noop("clubs"),
}

Translate = Callable[[str], str]


def _english(text: str) -> str:
    return text
RANK_LABELS = {"T": "10"}


def card_label(code: str) -> str:
    """A card code as it is printed: ``TD`` → ``10♦``."""
    rank, suit = code[:-1], code[-1]
    return f"{RANK_LABELS.get(rank, rank)}{SUIT_SYMBOLS[suit]}"


# ------------------------------------------------------------------------------ outcomes and phases
#: an outcome as the tablet announces it (the pit boss's pages show the outcome's own name)
OUTCOME_LABELS = {
    "player": gettext_noop("Player wins"),
    "banker": gettext_noop("Banker wins"),
    "tie": gettext_noop("Stand-off"),
}

#: the coup's phase (the engine's ``Phase`` values) as the tablet's heading names it
PHASE_LABELS = {
    "declaring": gettext_noop("Bank to declare"),
    "betting": gettext_noop("Bets"),
    "dealing": gettext_noop("Dealing"),
    "player_to_act": gettext_noop("Player to act"),
    "playing": gettext_noop("Play"),
    "done": gettext_noop("Hands shown"),
}

# ------------------------------------------------------------------------------------------ steps
#: the step the croupier records, as its button says it
BUTTON_LABELS = {
    Move.BETS_CLOSED: gettext_noop("No more bets"),
    Move.PLAYER_NATURAL: gettext_noop("Player shows his natural"),
    Move.PLAYER_DRAW: gettext_noop("Player draws"),
    Move.PLAYER_STAND: gettext_noop("Player stands"),
    Move.BANKER_NATURAL: gettext_noop("Banker shows his natural"),
    Move.BANKER_DRAW: gettext_noop("Banker draws"),
    Move.BANKER_STAND: gettext_noop("Banker stands"),
    Move.REVEAL: gettext_noop("Show both hands"),
    Move.CARD_TO_PLAYER: gettext_noop("Card to the player"),
    Move.CARD_TO_BANKER: gettext_noop("Card to the banker"),
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
    Code.BANK_BELOW_MINIMUM: gettext_noop("The bank was under the table's minimum bank."),
    Code.SPECTATOR_BET_NOT_ALLOWED: gettext_noop(
        "A spectator bet, or called banco, where the table's rules forbid it."
    ),
    Code.BETS_EXCEED_BANK: gettext_noop("The bets add up to more than the bank."),
    Code.WRONG_ACTIVE_PUNTER: gettext_noop("The wrong punter played the hand."),
    Code.NATURAL_NOT_SHOWN: gettext_noop("A natural (8 or 9 on two cards) was not shown at once."),
    Code.CARD_AFTER_NATURAL: gettext_noop("A third card was dealt although a natural decided the coup."),
    Code.PLAYER_SHOULD_DRAW: gettext_noop("The player had to draw."),
    Code.PLAYER_SHOULD_STAND: gettext_noop("The player had to stand."),
    Code.BANKER_SHOULD_DRAW: gettext_noop("The banker had to draw."),
    Code.BANKER_SHOULD_STAND: gettext_noop("The banker had to stand."),
}


def violation_meaning(code: str) -> str:
    """A violation code's meaning; an unknown code reads as itself."""
    return VIOLATION_TEXT.get(code, code)


def violation_items(codes: list[str]) -> list[tuple[str, str]]:
    """``(code, meaning)`` for each code, in order."""
    return [(code, violation_meaning(code)) for code in codes]


def _against(state: CoupProgress, tr: Translate = _english) -> str:
    if len(state.player_cards) == 3:
        return tr(gettext_noop("against the player's third card {card}")).format(
            card=card_label(state.player_cards[2])
        )
    return tr(gettext_noop("when the player stood"))


def violation_text(violation: Violation, state: CoupProgress, tr: Translate = _english) -> str:
    """What a step breaks, said with the hands on the table (the croupier's confirm panel and his
    restoration): the totals the tableau judged. A code that owes nothing to the hands reads as
    its meaning. ``tr``: the screen's gettext (English by default)."""
    code = violation.code
    p2 = state.player_two if len(state.player_cards) >= 2 else None
    b2 = state.banker_two if len(state.banker_cards) >= 2 else None
    against = _against(state, tr)
    if code is Code.PLAYER_SHOULD_DRAW:
        text = gettext_noop("The player must draw on {total}: the tableau does not let him stand.")
        return tr(text).format(total=p2)
    if code is Code.PLAYER_SHOULD_STAND:
        text = gettext_noop("The player must stand on {total}: the tableau does not let him draw.")
        return tr(text).format(total=p2)
    if code is Code.BANKER_SHOULD_DRAW:
        text = gettext_noop("The banker must draw on {total} {against}: the tableau does not let him stand.")
        return tr(text).format(total=b2, against=against)
    if code is Code.BANKER_SHOULD_STAND:
        text = gettext_noop("The banker must stand on {total} {against}: the tableau does not let him draw.")
        return tr(text).format(total=b2, against=against)
    if code is Code.NATURAL_NOT_SHOWN:
        if violation.side == "player":
            text = gettext_noop("The player holds a natural {total}: he must show it, not draw or stand.")
            return tr(text).format(total=p2)
        text = gettext_noop("The banker holds a natural {total}: he must show it, not draw or stand.")
        return tr(text).format(total=b2)
    if code is Code.CARD_AFTER_NATURAL:
        return tr(gettext_noop("A natural decides this coup: no third card may be dealt."))
    profile = state.rules.profile
    if code is Code.BANK_BELOW_MINIMUM and state.bank is not None:
        text = gettext_noop("The bank of {bank} is under the {profile} profile's minimum bank of {minimum}.")
        return tr(text).format(bank=state.bank, profile=profile.slug, minimum=profile.min_bank)
    if code is Code.SPECTATOR_BET_NOT_ALLOWED:
        if not profile.spectators_bet:
            text = gettext_noop("Spectators may not bet under the {profile} profile.")
            return tr(text).format(profile=profile.slug)
        text = gettext_noop(
            "A spectator may not call banco under the {profile} profile: a seated punter plays."
        )
        return tr(text).format(profile=profile.slug)
    if code in VIOLATION_TEXT:
        return tr(VIOLATION_TEXT[code])
    return violation.detail or str(code)


def requirement_text(
    need: tuple[str, Requirement] | None, state: CoupProgress, tr: Translate = _english
) -> str:
    """What the tableau requires of whoever acts now ("" when nobody has to act)."""
    if need is None:
        return ""
    side, req = need
    if side == "player":
        who = tr(gettext_noop("The player ({total})")).format(total=state.player_two)
    else:
        who = tr(gettext_noop("The banker ({total}, {against})")).format(
            total=state.banker_two, against=_against(state, tr)
        )
    if req is Requirement.DRAW:
        return tr(gettext_noop("{who} must draw.")).format(who=who)
    if req is Requirement.STAND:
        return tr(gettext_noop("{who} must stand.")).format(who=who)
    return tr(gettext_noop("{who} is free to draw or stand.")).format(who=who)


# --------------------------------------------------------------------------------------- amending
#: the croupier's typo amended before the reveal (tables.services.amends)
AMEND_AFTER_REVEAL = gettext_noop(
    "The hands are shown: a step can no longer be amended. A wrong step is now put right by the "
    "pit boss's correction (restore the game)."
)
AMEND_ONLY_BETS_AND_CARDS = gettext_noop("Only a bet or a dealt card can be amended")
AMEND_NEEDS_REASON = gettext_noop("Say why the step is amended (e.g. 'typed 50 for 500').")
AMEND_NO_CHANGE = gettext_noop("The amended value is the one recorded: nothing to amend.")


def amend_breaks_later_step(index: int, label: str, why: str, *, amendable: bool) -> str:
    """An amendment refused because a later step could not have happened with the amended value."""
    first = f" Amend step {index} first." if amendable else " A pit boss may void the coup."
    return f"With this amendment step {index} ({label}) would be impossible: {why}.{first}"


# ---------------------------------------------------------------------------------- restoring
#: a closed shoe's restoration takes the cards recorded after the coup (tables.selectors.RestorationShoe)
CLOSED_SHOE_RECORDED = gettext_noop(
    "The shoe is closed: the restored game takes the cards recorded after this coup"
)


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
PIT_BOSS_ONLY_REFUSAL = gettext_noop("Only a pit boss may approve or reject a correction.")
SELF_REVIEW_REFUSAL = gettext_noop("You submitted this correction: another person must review it.")
RECORDER_REVIEW_REFUSAL = gettext_noop(
    "You recorded a step of this coup: another person, who recorded none, must review its correction."
)


# --------------------------------------------------------------------------- exits from a coup
#: why a declared bank cannot be withdrawn (RULES.md §7: only a bank nobody took is withdrawn)
BANK_WITHDRAW_BETS_STAND = gettext_noop(
    "Bets stand on this bank: it is played, not withdrawn (a pit boss may void the coup)."
)
BANK_WITHDRAW_CARDS_DEALT = gettext_noop(
    "Cards were dealt: the coup is played out, or a pit boss voids it; the bank is not withdrawn."
)
#: why a void is refused: the coup is over for good
VOID_FINAL_STATE = (
    "This coup is {state}: only a coup not over yet (being played, or awaiting its correction or "
    "its approval) is voided."
)
VOID_REASON_MISSING = gettext_noop("Say why the coup is voided.")
#: what the pit boss is told once a coup is voided
VOID_DONE = gettext_noop(
    "Coup voided: every stake returned, the bank as declared, the cards dealt stay dealt."
)
