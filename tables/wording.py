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

The engines' and the services' own sentences built from values (a refusal, a step's recorded
detail) are built with ``said`` (core/sentence.py): English text that keeps its pattern and
values, which :func:`say` says again on a screen — a card as its symbol, a code as its label. What
is stored as English text (a shoe alarm's detail) is read back with its pattern (:class:`Stored`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_noop

from chemin_de_fer.engine.coup import Code, Violation
from chemin_de_fer.engine.machine import CoupProgress, Move
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.tableau import Requirement
from core.cards import POINTS
from core.numbers import chips
from core.sentence import Card, Listing, Sentence, Word, said

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
    """A card code as it is printed: ``TD`` → ``10♦``; what is no card (a typo) as it was typed."""
    if code not in POINTS:
        return str(code)
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
    Move.PLAYER_NATURAL: gettext_noop("Player shows a natural"),
    Move.PLAYER_DRAW: gettext_noop("Player draws"),
    Move.PLAYER_STAND: gettext_noop("Player stands"),
    Move.BANKER_NATURAL: gettext_noop("Banker shows a natural"),
    Move.BANKER_DRAW: gettext_noop("Banker draws"),
    Move.BANKER_STAND: gettext_noop("Banker stands"),
    Move.REVEAL: gettext_noop("Show both hands"),
    Move.CARD_TO_PLAYER: gettext_noop("Card to the player"),
    Move.CARD_TO_BANKER: gettext_noop("Card to the banker"),
}


#: a step's kind (the engine's ``Move``) as a sentence names it: the recorded steps' own labels
STEP_LABELS = {
    Move.BANK_DECLARED: gettext_noop("bank declared"),
    Move.BET: gettext_noop("Bet"),
    Move.BANCO: gettext_noop("Banco"),
    Move.BETS_CLOSED: gettext_noop("no more bets"),
    Move.CARD_TO_PLAYER: gettext_noop("card to the player"),
    Move.CARD_TO_BANKER: gettext_noop("card to the banker"),
    Move.PLAYER_NATURAL: gettext_noop("player shows a natural"),
    Move.PLAYER_DRAW: gettext_noop("player draws"),
    Move.PLAYER_STAND: gettext_noop("player stands"),
    Move.BANKER_NATURAL: gettext_noop("banker shows a natural"),
    Move.BANKER_DRAW: gettext_noop("banker draws"),
    Move.BANKER_STAND: gettext_noop("banker stands"),
    Move.REVEAL: gettext_noop("hands shown"),
}


def step_detail(kind: str, payload: dict[str, Any] | None, names: Mapping[str, str]) -> str:
    """What a recorded step says beyond its kind ("" when nothing): its amounts, cards, verdict or
    reason, as a :class:`Sentence` a screen says in its language (:func:`say`; its ``str`` is the
    English). ``names`` maps the engine's punter keys (``seat-4``) to what the screen calls them
    (a name, or a sentence of its own)."""
    p = payload or {}

    def who(key: str | None) -> str:
        return names.get(key or "", key or "")

    if kind == "bank_declared":
        return said("{banker} banks {amount}", banker=who(p.get("banker")), amount=p.get("amount"))
    if kind == "bet":
        return said("{punter} bets {amount}", punter=who(p.get("punter")), amount=p.get("amount"))
    if kind == "banco":
        callers = Listing(who(c["punter"]) for c in p.get("callers", []))
        return said("banco called by {callers}; {winner} plays", callers=callers, winner=who(p.get("winner")))
    if kind in ("card_to_player", "card_to_banker"):
        return Card(p["card"]) if p.get("card") else ""
    if kind == "reveal":
        v = p.get("verdict") or {}
        return said(
            "{outcome}, {player} to {banker}",
            outcome=Word(str(v.get("outcome")), "outcome"),
            player=v.get("player_total"),
            banker=v.get("banker_total"),
        )
    if kind == "correction":
        outcome = Word(str((p.get("restored") or {}).get("outcome", "?")), "outcome")
        if p.get("cards"):
            cards = Listing(Card(c) for c in p["cards"])
            return said("restored with {cards} from the shoe: {outcome}", cards=cards, outcome=outcome)
        return said("restored with no card from the shoe: {outcome}", outcome=outcome)
    if kind in ("correction_rejected", "coup_voided"):
        return said("reason: {reason}", reason=p.get("reason", ""))
    if kind == "correction_approved":
        return gettext_noop("the restored settlement is final")
    if kind == "amend":
        return said(
            "{change} (step {step}; reason: {reason})",
            change=amend_change(p, names),
            step=p.get("step"),
            reason=p.get("reason", ""),
        )
    if kind == "bank_withdrawn":
        return said("nobody bet: the bank of {bank} withdrawn without a deal", bank=p.get("bank"))
    return ""


def amend_change(payload: dict[str, Any], names: Mapping[str, str]) -> str:
    """What an amendment changed: ``seat 2 bets 50 → 500`` or ``5♥ → 6♥`` (a :class:`Sentence`)."""
    was = payload.get("was") or {}
    if payload.get("kind") == "bet":
        old_who = names.get(was.get("punter", ""), was.get("punter"))
        new_who = names.get(payload.get("punter", ""), payload.get("punter"))
        who: Any = old_who if old_who == new_who else said("{was} → {now}", was=old_who, now=new_who)
        amounts: Any = said("{was} → {now}", was=was.get("amount"), now=payload.get("amount"))
        if was.get("amount") == payload.get("amount"):
            amounts = payload.get("amount")
        return said("{punter} bets {amount}", punter=who, amount=amounts)
    return said("{was} → {now}", was=Card(str(was.get("card", "?"))), now=Card(str(payload.get("card", "?"))))


# ------------------------------------------------------------------------------------- violations
#: what each violation code means, once the step is recorded
VIOLATION_TEXT: dict[str, str] = {
    Code.BANK_BELOW_MINIMUM: gettext_noop("The bank was under the table's minimum bank."),
    Code.BANK_ABOVE_LIMIT: gettext_noop("The bank was above the house limit."),
    Code.SPECTATOR_BET_NOT_ALLOWED: gettext_noop(
        "A spectator bet, or called banco, where the table's rules forbid it."
    ),
    Code.SPECTATOR_BEFORE_SEATED: gettext_noop(
        "A spectator bet before the seated punters had had their turn."
    ),
    Code.SUIVI_NOT_ALLOWED: gettext_noop("A banco suivi was claimed where the table's rules have none."),
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
        text = gettext_noop("The player must draw on {total}: the tableau forbids standing.")
        return tr(text).format(total=p2)
    if code is Code.PLAYER_SHOULD_STAND:
        text = gettext_noop("The player must stand on {total}: the tableau forbids drawing.")
        return tr(text).format(total=p2)
    if code is Code.BANKER_SHOULD_DRAW:
        text = gettext_noop("The banker must draw on {total} {against}: the tableau forbids standing.")
        return tr(text).format(total=b2, against=against)
    if code is Code.BANKER_SHOULD_STAND:
        text = gettext_noop("The banker must stand on {total} {against}: the tableau forbids drawing.")
        return tr(text).format(total=b2, against=against)
    if code is Code.NATURAL_NOT_SHOWN:
        if violation.side == "player":
            text = gettext_noop("The player holds a natural {total}: it must be shown, no draw, no stand.")
            return tr(text).format(total=p2)
        text = gettext_noop("The banker holds a natural {total}: it must be shown, no draw, no stand.")
        return tr(text).format(total=b2)
    if code is Code.CARD_AFTER_NATURAL:
        return tr(gettext_noop("A natural decides this coup: no third card may be dealt."))
    profile = state.rules.profile
    if code is Code.BANK_BELOW_MINIMUM and state.bank is not None:
        text = gettext_noop("The bank of {bank} is under the {profile} profile's minimum bank of {minimum}.")
        return tr(text).format(bank=state.bank, profile=profile.slug, minimum=profile.min_bank)
    if code is Code.BANK_ABOVE_LIMIT and state.bank is not None and state.house_limit is not None:
        text = gettext_noop("The bank of {bank} is above the house limit of {limit}.")
        return tr(text).format(bank=state.bank, limit=state.house_limit)
    if code is Code.SUIVI_NOT_ALLOWED:
        return tr(gettext_noop("The {profile} profile has no banco suivi.")).format(profile=profile.slug)
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
    """An amendment refused because a later step could not have happened with the amended value
    (``label``: the later step's kind's label; ``why``: the engine's refusal of it)."""
    pattern = (
        gettext_noop(
            "With this amendment step {index} ({label}) would be impossible: {why}. Amend step {index} first."
        )
        if amendable
        else gettext_noop(
            "With this amendment step {index} ({label}) would be impossible: {why}. "
            "A pit boss may void the coup."
        )
    )
    return said(pattern, index=index, label=Sentence(label, {}), why=why)


# ---------------------------------------------------------------------------------- restoring
#: a closed shoe's restoration takes the cards recorded after the coup (tables.selectors.RestorationShoe)
CLOSED_SHOE_RECORDED = gettext_noop(
    "The shoe is closed: the restored game takes the cards recorded after this coup"
)


def restoration_needs_cards(n: int) -> str:
    if n == 1:
        return said("The restored game needs {n} more card from the shoe: deal them.", n=n)
    return said("The restored game needs {n} more cards from the shoe: deal them.", n=n)


def closed_shoe_cards_gone(shoe_number: int, n: int) -> str:
    if n == 1:
        return said(
            "Shoe {shoe} is closed and a new shoe was started: the {n} more card the restored game "
            "needs cannot be dealt any more. A pit boss voids the coup.",
            shoe=shoe_number,
            n=n,
        )
    return said(
        "Shoe {shoe} is closed and a new shoe was started: the {n} more cards the restored game "
        "needs cannot be dealt any more. A pit boss voids the coup.",
        shoe=shoe_number,
        n=n,
    )


# --------------------------------------------------------------------------------------- refusals
#: why a user may not approve or reject a correction: the services refuse with these words, and
#: the pit boss's pages say them before he tries
#: a write at a casino the user does not work for (tables.models.CasinoStaff; issue 20)
OTHER_CASINO_REFUSAL = gettext_noop("You do not work for this casino.")
PIT_BOSS_ONLY_REFUSAL = gettext_noop("Only a pit boss may approve or reject a correction.")
#: the same for a void, and for the second pit boss's answer to a void request
PIT_BOSS_VOID_REFUSAL = gettext_noop("Only a pit boss may void a coup.")
PIT_BOSS_VOID_DECISION_REFUSAL = gettext_noop("Only a pit boss may approve or refuse a void request.")
SELF_REVIEW_REFUSAL = gettext_noop("You submitted this correction: another person must review it.")
#: separation of duties for voids (issue 20): who recorded a step of a coup does not void it
RECORDER_VOID_REFUSAL = gettext_noop(
    "You recorded a step of this coup: a pit boss who recorded none voids it."
)
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
VOID_FINAL_STATE = gettext_noop(
    "This coup is {state}: only a coup not over yet (being played, or awaiting its correction or "
    "its approval) is voided."
)
VOID_REASON_MISSING = gettext_noop("Say why the coup is voided.")
#: a void above the casino's limit waits for a second pit boss (tables.services.void_requests)
VOID_ASKED = gettext_noop(
    "{stakes} chips at stake, above this casino's limit of {limit} for one pit boss: the void waits "
    "for a second pit boss, who approves or refuses it."
)
VOID_ALREADY_ASKED = gettext_noop(
    "A void of this coup already waits for a second pit boss: approve or refuse it."
)
VOID_ASKER_REFUSAL = gettext_noop("You asked for this void: a second pit boss decides it.")
VOID_DECIDED = gettext_noop("This void was already {state}.")
VOID_REFUSAL_REASON_MISSING = gettext_noop("Say why the void is refused.")
VOID_APPROVED_DONE = gettext_noop("Void approved: the coup is voided.")
VOID_REFUSED_DONE = gettext_noop("Void refused: the coup goes on.")
VOID_LAPSED_DONE = gettext_noop("The coup ended before the void was decided: there is nothing to void.")
#: what the pit boss is told once a coup is voided
VOID_DONE = gettext_noop(
    "Coup voided: every stake returned, the bank as declared, the cards dealt stay dealt."
)
#: why a table does not close while a coup is being played, and the ways out (a chemin de fer coup:
#: the croupier plays it out, or a pit boss voids it from its review page; an older game's coup the
#: croupier may void himself, at his table)
CLOSE_COUP_IN_PLAY = gettext_noop(
    "A coup is still being played: the croupier finishes it, or a pit boss voids it (“Void the "
    "coup” on the coup's review page, reached from the dashboard). Then the table can be closed."
)
CLOSE_GAME_COUP_IN_PLAY = gettext_noop(
    "A coup is still being played: the croupier finishes it or voids it (“Void coup…” on this "
    "screen), or a pit boss voids it (“Void the coup” on the coup's review page, reached from the "
    "dashboard). Then the table can be closed."
)
#: the same once a step of the coup is recorded: who recorded one does not void it (separation of
#: duties, tables.permissions.check_independent_voider), so the croupier has no void on his screen
CLOSE_GAME_COUP_STEPS_RECORDED = gettext_noop(
    "A coup is still being played: the croupier finishes it, or a pit boss who recorded none of its "
    "steps voids it (“Void the coup” on the coup's review page, reached from the dashboard). Then "
    "the table can be closed."
)


# ------------------------------------------------------------------------------ the older games
#: the older games' words, English here, translated when shown (the screen, the pit boss's pages)
GAME_TITLES = {
    "Chemin de fer": gettext_noop("Chemin de fer"),
    "Macao": gettext_noop("Macao"),
    "Landsknecht": gettext_noop("Landsknecht"),
    "Old baccarat": gettext_noop("Old baccarat"),
}
#: a step of an older game by its kind (older_games.engine.game_play's step JSON)
GAME_STEP_LABELS = {
    "deal": gettext_noop("Deal"),
    "draw": gettext_noop("Draw"),
    "discard": gettext_noop("Discard"),
    "stand": gettext_noop("Stand"),
    "stake": gettext_noop("Stake"),
    "cover": gettext_noop("Cover"),
    # Landsknecht: a punter agrees to share the stake with the other punters who cover it
    "consent": gettext_noop("Agrees to share"),
    "close": gettext_noop("Close the covers"),
    "card": gettext_noop("Card"),
    "decide": gettext_noop("Decide"),
    "cut": gettext_noop("Cut"),
    "undo": gettext_noop("Taken back"),
    # old baccarat: the banker lets a newcomer join the coup after the cut; a player leaves the table
    "permit": gettext_noop("Banker lets in"),
    "leave": gettext_noop("Leaves the table"),
}
#: the same kinds as a sentence names them ("This deal is not Anna's now", "not stake")
GAME_STEP_NAMES = {
    "deal": gettext_noop("deal"),
    "draw": gettext_noop("draw"),
    "discard": gettext_noop("discard"),
    "stand": gettext_noop("stand"),
    "stake": gettext_noop("stake"),
    "cover": gettext_noop("cover"),
    "consent": gettext_noop("consent"),
    "close": gettext_noop("close"),
    "card": gettext_noop("card"),
    "decide": gettext_noop("decide"),
    "cut": gettext_noop("cut"),
    # old baccarat's machine: a newcomer joining with the banker's permission, a punter leaving
    "permit": gettext_noop("permit"),
    "leave": gettext_noop("leave"),
}
GAME_CHOICE_LABELS = {"take": gettext_noop("Take the pot"), "again": gettext_noop("Play again")}
#: an older game's coup's outcome (``GameCoup.outcome``)
GAME_OUTCOME_LABELS = {
    "banker": gettext_noop("the banker wins"),
    "punters": gettext_noop("the punters win"),
    "split": gettext_noop("split"),
    "standoff": gettext_noop("stand-off"),
    "void": gettext_noop("void"),
    "undecided": gettext_noop("undecided"),
}
#: a hand that is nobody's (Landsknecht: the punters' card, the cards turned between)
HAND_LABELS = {"punters": gettext_noop("Punters"), "between": gettext_noop("Between")}
#: the parties a settlement names that are no player, by their key (the ledger's fund and pool
#: accounts; tests/older_games/test_wording.py holds the engines to the same keys)
PARTY_LABELS = {"fund": gettext_noop("reserve fund"), "pool": gettext_noop("tie pool")}
#: where an older game's coup stands (the engines' phases), as a refusal names it
GAME_PHASE_LABELS = {
    "stake": gettext_noop("the stake"),
    "cover": gettext_noop("the covers"),
    "deal": gettext_noop("the deal"),
    "play": gettext_noop("the play"),
    "decide": gettext_noop("the banker's decision"),
    "over": gettext_noop("the coup is over"),
    "done": gettext_noop("the coup is over"),
    "cut": gettext_noop("the cut"),
    "draw": gettext_noop("the draws"),
}

#: a ledger account's kind as its stored name starts (ledger.services.accounts: the kind's code for a
#: player's or a table's account, its label for the casino's own; review.wording.account_name)
ACCOUNT_KIND_LABELS = {
    "player": gettext_noop("player"),
    "reserve": gettext_noop("reserve"),
    "bank": gettext_noop("bank"),
    "fund": gettext_noop("reserve fund"),
    "pool": gettext_noop("tie pool"),
    "levy": gettext_noop("levy"),
    "fee": gettext_noop("fee"),
    "card money": gettext_noop("card money"),
    "cage": gettext_noop("cage"),
}

# ------------------------------------------------------------------------------------- the advice
#: the advice's opponent model (chemin_de_fer.engine.advice.ASSUMPTION, which the pure engine cannot mark):
#: the same words, for the catalogue; tests/tables/test_wording.py checks they stay the same
ADVICE_ASSUMPTION = gettext_noop(
    "Assumes the opponent follows the tableau where it binds and, at their own option points, "
    "Punto Banco's convention (player draws on 0-5, stands on 6-7; banker draws at 3 against 9 "
    "and 5 against 4, and at a free 5-7 plays the Punto Banco row). Computed only from the "
    "chooser's own cards and the cards the chooser cannot see."
)

# ----------------------------------------------------------------------------------- the shoe
#: why a shoe was closed when no croupier typed it: the session closing closes its shoe
#: (tables.services.floor). Stored in English (the shoe's close reason, its alarm's detail: the
#: audit trail's words) and said on a screen by its label; a reason a croupier typed is shown as typed
SHOE_CLOSED_WITH_SESSION = gettext_noop("session closed")
SHOE_CLOSE_REASONS = {SHOE_CLOSED_WITH_SESSION: SHOE_CLOSED_WITH_SESSION}

# ------------------------------------------------------------------------- saying it on a screen
#: the labels a :class:`Word` of each kind is said with on a screen (its code when it has none; a
#: Word of kind ``"msgid"`` is a label already, translated as it is)
WORD_LABELS: dict[str, Mapping[Any, str]] = {
    "step": STEP_LABELS,
    "phase": PHASE_LABELS,
    "outcome": OUTCOME_LABELS,
    "profile": {slug: p.name for slug, p in BUILTIN.items()},
    "game step": GAME_STEP_LABELS,
    "game step name": GAME_STEP_NAMES,
    "game choice": GAME_CHOICE_LABELS,
    "game outcome": GAME_OUTCOME_LABELS,
    "game phase": GAME_PHASE_LABELS,
    "game": GAME_TITLES,
    "party": {**HAND_LABELS, **PARTY_LABELS},
    "account kind": ACCOUNT_KIND_LABELS,
    "shoe close reason": SHOE_CLOSE_REASONS,
    # a coup's state as the services' sentences spell it ("This coup is awaiting approval: …")
    "coup state": {
        "open": gettext_noop("Open"),
        "awaiting correction": gettext_noop("awaiting correction"),
        "awaiting approval": gettext_noop("awaiting approval"),
        "settled": gettext_noop("Settled"),
        "void": gettext_noop("Void"),
        "bank withdrawn": gettext_noop("bank withdrawn"),
    },
    # a void request's state ("This void was already refused.")
    "void request state": {
        "pending": gettext_noop("awaiting a second pit boss"),
        "approved": gettext_noop("approved by a second pit boss"),
        "refused": gettext_noop("refused by a second pit boss"),
        "lapsed": gettext_noop("lapsed: the coup ended first"),
    },
}


#: the words a listing may be joined with (core.sentence.Listing's ``sep``), marked for the catalogue
LISTING_WORDS = {"or": gettext_noop("or"), "and": gettext_noop("and")}


def say(text: Any, tr: Translate = _english, names: Mapping[str, Any] | None = None) -> str:
    """``text`` in the screen's language (``tr``: its gettext): a :class:`Sentence`'s pattern
    translated and its values said again (a card as its symbol, a code as its label, a name
    ``names`` knows as that name); a fixed sentence (marked ``gettext_noop``) translated whole. A
    translation whose placeholders do not fit falls back on the English pattern."""
    if isinstance(text, Sentence):
        values = {key: _said(value, tr, names) for key, value in text.values.items()}
        try:
            return tr(text.pattern).format(**values)
        except (KeyError, IndexError, ValueError):
            return text.pattern.format(**values)
    if isinstance(text, Card | Word | Listing):
        return str(_said(text, tr, names))
    if isinstance(text, str):
        return tr(text) if text else text
    return "" if text is None else str(text)


def _said(value: Any, tr: Translate, names: Mapping[str, Any] | None) -> Any:
    if isinstance(value, Sentence):
        return say(value, tr, names)
    if isinstance(value, Card):
        return card_label(value)
    if isinstance(value, Word):
        if value.kind == "msgid":  # a label that is its own msgid (a model's choice label)
            return tr(str(value))
        label = WORD_LABELS.get(value.kind, {}).get(str(value))
        return tr(label) if label else str(value)
    if isinstance(value, Listing):
        # a separator that is a word ("or") is said in the screen's language too
        sep = value.sep
        if sep.strip().isalpha():
            sep = f" {tr(LISTING_WORDS.get(sep.strip(), sep.strip()))} "
        return sep.join(str(_said(item, tr, names)) for item in value.items)
    if isinstance(value, str) and names and value in names:
        return _said(names[value], tr, None)
    if isinstance(value, int) and not isinstance(value, bool):
        return _Figure(chips(value))
    return value


class _Figure(str):
    """A number said on a screen, written as the page writes chips (core.numbers: ``1,500``,
    ``1 500``; a number under 1,000 as it is); in a pattern's ``{value!r}`` too, without quotes."""

    def __repr__(self) -> str:
        return str(self)


# ------------------------------------------------------------------------ sentences stored as text
class Stored:
    """A sentence stored as its English text (an alert's summary, a shoe alarm's detail: the
    audit trail and the exports keep that text) that a screen says again in its language: the
    pattern it was built with read back out of the text. ``kinds`` says which placeholders hold a
    card, a coded word or another stored sentence; every other value comes back as its text."""

    def __init__(self, pattern: str, **kinds: Any) -> None:
        self.pattern = pattern
        self.kinds = kinds
        body, named = "", set()
        for i, part in enumerate(re.split(r"\{(\w+)\}", pattern)):
            if i % 2 == 0:
                body += re.escape(part)
            else:  # a value said twice is the same value twice
                body += f"(?P={part})" if part in named else f"(?P<{part}>.+?)"
                named.add(part)
        self.regex = re.compile(f"^{body}$", re.DOTALL)

    def read(self, text: str) -> Sentence | None:
        match = self.regex.match(text)
        if match is None:
            return None
        values: dict[str, Any] = {}
        for key, value in match.groupdict().items():
            kind = self.kinds.get(key)
            if kind is Card:
                values[key] = Card(value)
            elif isinstance(kind, str):
                values[key] = Word(value, kind)
            elif isinstance(kind, Sequence):  # a nested stored sentence
                values[key] = read_stored(value, kind)
            else:
                values[key] = value
        return Sentence(self.pattern, values)


def read_stored(text: str, patterns: Sequence[Stored]) -> str:
    """``text`` as the :class:`Sentence` the first of ``patterns`` that reads it makes; the text
    itself (said as stored) when none does: an older row, worded before these patterns."""
    for pattern in patterns:
        sentence = pattern.read(text)
        if sentence is not None and sentence == text:
            return sentence
    return text


#: a shoe alarm's detail as tables.services.shoes stores it, and as the screens read it back
ALARM_IMPOSSIBLE_CARD = gettext_noop("{card} seen {copies} times; a {decks}-deck shoe holds {decks}")
ALARM_EARLY_NO_REASON = gettext_noop("closed after {dealt} of {size} cards (no reason given)")
ALARM_EARLY = gettext_noop("closed after {dealt} of {size} cards ({reason})")
ALARM_DETAILS: tuple[Stored, ...] = (
    Stored(ALARM_IMPOSSIBLE_CARD, card=Card),
    Stored(ALARM_EARLY_NO_REASON),
    # the reason as stored: the floor's own ("session closed") said by its label, a typed one as typed
    Stored(ALARM_EARLY, reason="shoe close reason"),
)


def alarm_detail(text: str) -> str:
    """A shoe alarm's stored detail, to be said on a screen (:func:`say`)."""
    return read_stored(text, ALARM_DETAILS)


# ------------------------------------------------------------------------------ one table at a time
#: a player sits, or stands, at one table at a time: the refusal names where he is (built with
#: said(): the screens say it in their language, the names as typed)
def seated_elsewhere(player: str, table: str) -> Sentence:
    return said(
        "{player} is seated at {table}: a player leaves that table before sitting or standing at another.",
        player=player,
        table=table,
    )


def standing_elsewhere(player: str, table: str) -> Sentence:
    return said(
        "{player} is standing at {table} as a spectator: a player leaves that table before sitting or "
        "standing at another.",
        player=player,
        table=table,
    )


#: an older game's coup leaves out the players with no chips to play with (older_games.services)
def game_banker_no_chips(player: str) -> Sentence:
    return said(
        "{player} holds no chips and cannot hold the bank: a buy-in at the cage comes first, or "
        "another player banks.",
        player=player,
    )


GAME_NOBODY_HOLDS_CHIPS = gettext_noop(
    "Too few of the seated players hold chips to play a coup (a banker and a punter): a buy-in at "
    "the cage comes first."
)


def void_request_detail(request: Any) -> str:
    """What happens next with a void request (``tables.models.VoidRequest``), in a sentence."""
    if request.state == "pending":
        return said(VOID_ASKED, stakes=request.stakes, limit=request.limit)
    return {
        "approved": VOID_APPROVED_DONE,
        "refused": VOID_REFUSED_DONE,
        "lapsed": VOID_LAPSED_DONE,
    }[request.state]


# ----------------------------------------------------------------------------------- accounts
#: a ledger account's stored name: its kind (tables.wording.ACCOUNT_KIND_LABELS), its owner
ACCOUNT_NAMES: tuple[Stored, ...] = (Stored(gettext_noop("{kind}: {owner}"), kind="account kind"),)


def account_name(name: str) -> str:
    """A ledger account's stored name (``player: Anna (#12)``) as a sentence a page says in its
    language: its kind translated, its owner as named."""
    return read_stored(name, ACCOUNT_NAMES)
