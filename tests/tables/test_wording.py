"""The game's wording (tables/wording.py): one sentence per fact, shared by the croupier's screens
and the pit boss's pages."""

from __future__ import annotations

from typing import Any

from chemin_de_fer.engine.advice import ASSUMPTION
from chemin_de_fer.engine.coup import Code, Violation
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import Move, new_coup
from chemin_de_fer.engine.profiles import BUILTIN
from core.sentence import Card, Listing, Sentence, Word, said
from tables.models import CoupStep
from tables.wording import (
    ADVICE_ASSUMPTION,
    ALARM_EARLY,
    ALARM_EARLY_NO_REASON,
    ALARM_IMPOSSIBLE_CARD,
    BUTTON_LABELS,
    OUTCOME_LABELS,
    VIOLATION_TEXT,
    alarm_detail,
    amend_change,
    card_label,
    say,
    step_detail,
    violation_items,
    violation_meaning,
    violation_text,
)


def test_every_violation_code_has_its_meaning() -> None:
    assert set(VIOLATION_TEXT) == set(Code)
    assert all(text.endswith(".") and text[0].isupper() for text in VIOLATION_TEXT.values())
    assert violation_meaning("SOMETHING_NEW") == "SOMETHING_NEW"
    assert violation_items(["BANKER_SHOULD_DRAW"]) == [("BANKER_SHOULD_DRAW", "The banker had to draw.")]


def test_every_outcome_and_decision_has_its_words() -> None:
    assert set(OUTCOME_LABELS) == {"player", "banker", "tie"}
    assert set(BUTTON_LABELS) == set(Move) - {Move.BANK_DECLARED, Move.BET, Move.BANCO}


def test_cards_read_with_their_suit() -> None:
    assert [card_label(c) for c in ("TD", "AS", "9H", "KC")] == ["10♦", "A♠", "9♥", "K♣"]
    assert card_label("1X") == "1X"  # no card: as it was typed


def test_a_step_detail_for_each_kind_that_has_one() -> None:
    """Its English (``str``) keeps the codes as recorded; said on a screen (``say``), a card is its
    symbol and an outcome the words the tablet announces it with."""
    names = {"seat-1": "seat 1 · Anna (banker)", "seat-2": "seat 2 · Ben"}
    details: dict[str, tuple[dict[str, Any], str]] = {
        "bank_declared": (
            {"amount": 200, "banker": "seat-1", "minimum": 100},
            "seat 1 · Anna (banker) banks 200",
        ),
        "bet": ({"punter": "seat-2", "amount": 50}, "seat 2 · Ben bets 50"),
        "banco": (
            {"callers": [{"punter": "seat-2"}, {"punter": "seat-3"}], "winner": "seat-2"},
            "banco called by seat 2 · Ben, seat-3; seat 2 · Ben plays",
        ),
        "card_to_player": ({"card": "6D"}, "6♦"),
        "reveal": (
            {"verdict": {"player_total": 4, "banker_total": 8, "outcome": "banker"}},
            "Banker wins, 4 to 8",
        ),
        "correction": (
            {"cards": ["4C", "TD"], "restored": {"outcome": "banker"}},
            "restored with 4♣, 10♦ from the shoe: Banker wins",
        ),
        "correction_rejected": ({"reason": "wrong card"}, "reason: wrong card"),
        "correction_approved": ({}, "the restored settlement is final"),
        "amend": (
            {"kind": "card", "card": "6H", "step": 7, "reason": "typo", "was": {"card": "5H"}},
            "5♥ → 6♥ (step 7; reason: typo)",
        ),
        "bank_withdrawn": ({"bank": 300}, "nobody bet: the bank of 300 withdrawn without a deal"),
        "player_draw": ({}, ""),
    }
    for kind, (payload, text) in details.items():
        assert kind in CoupStep.Kind.values
        assert say(step_detail(kind, payload, names)) == text
    reveal = step_detail("reveal", details["reveal"][0], names)
    assert str(reveal) == "banker, 4 to 8"  # the recorded outcome, as the code says it


def test_an_amended_bet_says_what_changed() -> None:
    names = {"seat-2": "seat 2 · Ben", "seat-3": "seat 3 · Cleo"}
    amount = {"kind": "bet", "punter": "seat-2", "amount": 500, "was": {"punter": "seat-2", "amount": 50}}
    who = {"kind": "bet", "punter": "seat-3", "amount": 50, "was": {"punter": "seat-2", "amount": 50}}
    assert say(amend_change(amount, names)) == "seat 2 · Ben bets 50 → 500"
    assert say(amend_change(who, names)) == "seat 2 · Ben → seat 3 · Cleo bets 50"


def test_a_sentence_is_said_in_the_screen_s_language() -> None:
    """``say`` translates the pattern, then says each value: a card as its symbol, a code as its
    label, a nested sentence in the same language, a name the screen knows by its name."""
    french = {
        "{punter} bets {amount}": "{punter} mise {amount}",
        "seat {number} · {name}": "place {number} · {name}",
        "{kind} is not possible now (phase {phase}); expected {expected}": (
            "{kind} : pas maintenant ({phase}) ; attendu : {expected}"
        ),
        "card to the player": "carte au joueur",
        "Bets": "Mises",
        "Bet": "Mise",
        "Banco": "Banco",
    }

    def tr(text: str) -> str:
        return french.get(text, text)

    bet = said(
        "{punter} bets {amount}", punter=said("seat {number} · {name}", number=2, name="Ben"), amount=50
    )
    assert bet == "seat 2 · Ben bets 50"  # the English, as the API and the tests read it
    assert say(bet, tr) == "place 2 · Ben mise 50"
    refused = said(
        "{kind} is not possible now (phase {phase}); expected {expected}",
        kind=Word("card_to_player", "step"),
        phase=Word("betting", "phase"),
        expected=Listing([Word("bet", "step"), Word("banco", "step")]),
    )
    assert refused == "card_to_player is not possible now (phase betting); expected bet, banco"
    assert say(refused, tr) == "carte au joueur : pas maintenant (Mises) ; attendu : Mise, Banco"
    assert say(said("{who} waits for a card", who="player-7"), tr, {"player-7": "Anna"}) == (
        "Anna waits for a card"
    )
    assert say(Card("TD")) == "10♦" and say(Card("1X")) == "1X"  # a typo is said as typed
    assert say("Which card?", tr) == "Which card?" and say("") == ""
    # a translation whose placeholders do not fit falls back on the English pattern
    assert say(said("{punter} bets {amount}", punter="Ben", amount=5), lambda _: "{who} mise") == "Ben bets 5"


def test_a_listing_joined_with_a_word_says_the_word_in_the_screens_language() -> None:
    """An older game's out-of-turn step said "… mais à Eva Noir or Denis Blanc" on a French screen."""
    turn = said(
        "This {kind} is not {who}'s now but {expected}'s.",
        kind="stake",
        who="Denis",
        expected=Listing(["Eva", "Ünïcødé"], sep=" or "),
    )
    assert turn == "This stake is not Denis's now but Eva or Ünïcødé's."
    french = {
        "or": "ou",
        "This {kind} is not {who}'s now but {expected}'s.": "{kind} : pas à {who} mais à {expected}.",
    }
    assert say(turn, lambda text: french.get(text, text)) == "stake : pas à Denis mais à Eva ou Ünïcødé."
    assert say(Listing(["5H", "6H"], sep=" "), lambda text: french.get(text, text)) == "5H 6H"  # no word


def test_a_stored_sentence_is_read_back_to_be_said_again() -> None:
    """A shoe alarm's detail is stored as English text; the screens read its values back out."""
    detail = ALARM_IMPOSSIBLE_CARD.format(card="AS", copies=3, decks=2)
    assert detail == "AS seen 3 times; a 2-deck shoe holds 2"
    read = alarm_detail(detail)
    assert isinstance(read, Sentence) and read == detail
    assert say(read) == "A♠ seen 3 times; a 2-deck shoe holds 2"
    early = ALARM_EARLY.format(dealt=19, size=312, reason="shoe damaged (water)")
    read_early, read_bare = alarm_detail(early), alarm_detail("closed after 3 of 312 cards (no reason given)")
    assert isinstance(read_early, Sentence) and isinstance(read_bare, Sentence)
    assert read_early.values == {"dealt": "19", "size": "312", "reason": "shoe damaged (water)"}
    assert read_bare.pattern == ALARM_EARLY_NO_REASON
    assert not isinstance(alarm_detail("worded before these patterns"), Sentence)  # said as stored


def test_the_advice_s_assumption_is_marked_for_the_catalogue_word_for_word() -> None:
    assert ADVICE_ASSUMPTION == ASSUMPTION


def test_a_violation_that_owes_nothing_to_the_hands_reads_as_its_meaning() -> None:
    state = new_coup(Rules.for_profile(BUILTIN["casino"]))
    for code in (Code.BETS_EXCEED_BANK, Code.WRONG_ACTIVE_PUNTER):
        assert violation_text(Violation(code, "punters"), state) == VIOLATION_TEXT[code]


def test_the_procedural_codes_say_what_the_profile_forbids() -> None:
    """RULES.md §3.1 (the profile's minimum bank) and §2/§10 (who may bet): the pit boss's
    meaning and the croupier's sentence for BANK_BELOW_MINIMUM and SPECTATOR_BET_NOT_ALLOWED
    (COUP_RECORD.md, Verdict)."""
    from chemin_de_fer.engine.machine import Step, apply

    home = apply(
        new_coup(Rules.for_profile(BUILTIN["home"]), historical=True),
        Step(Move.BANK_DECLARED, amount=1, punter="seat-1"),
    )
    low = Violation(Code.BANK_BELOW_MINIMUM, "banker", "1 < 2")
    assert violation_text(low, home) == "The bank of 1 is under the home profile's minimum bank of 2."
    spectator = Violation(Code.SPECTATOR_BET_NOT_ALLOWED, "punters", "spectator-3")
    assert violation_text(spectator, home) == "Spectators may not bet under the home profile."
    club = new_coup(Rules.for_profile(BUILTIN["club"]))
    assert violation_text(spectator, club) == (
        "A spectator may not call banco under the club profile: a seated punter plays."
    )
    assert violation_items(["BANK_BELOW_MINIMUM", "SPECTATOR_BET_NOT_ALLOWED"]) == [
        ("BANK_BELOW_MINIMUM", "The bank was under the table's minimum bank."),
        ("SPECTATOR_BET_NOT_ALLOWED", "A spectator bet, or called banco, where the table's rules forbid it."),
    ]


def test_the_new_procedural_codes_say_what_the_table_refused_in_every_language() -> None:
    """COUP_RECORD.md: BANK_ABOVE_LIMIT, SUIVI_NOT_ALLOWED, SPECTATOR_BEFORE_SEATED — the pit boss's
    meaning and the croupier's sentence, in English, French and Russian (docs/i18n.md)."""
    from django.utils import translation
    from django.utils.translation import gettext

    from chemin_de_fer.engine.machine import Step, apply

    above = apply(
        new_coup(Rules.for_profile(BUILTIN["casino"]), house_limit=500, historical=True),
        Step(Move.BANK_DECLARED, amount=1000, punter="seat-1"),
    )
    limit = Violation(Code.BANK_ABOVE_LIMIT, "banker")
    suivi = Violation(Code.SUIVI_NOT_ALLOWED, "punters")
    early = Violation(Code.SPECTATOR_BEFORE_SEATED, "punters")
    expected = {
        "en": (
            "The bank of 1000 is above the house limit of 500.",
            "The casino profile has no banco suivi.",
            "A spectator bet before the seated punters had had their turn.",
        ),
        "fr": (
            "La banque de 1000 dépasse la limite de la maison, 500.",
            "Le profil casino n'a pas de banco suivi.",
            "Un spectateur a misé avant que les pontes assis aient eu leur tour.",
        ),
        "ru": (
            "Банк 1000 превышает лимит заведения (500).",
            "В профиле «casino» нет банко сюиви.",  # noqa: RUF001 (a Cyrillic letter is meant)
            "Зритель поставил раньше, чем свою очередь прошли сидящие понтёры.",
        ),
    }
    for language, sentences in expected.items():
        with translation.override(language):
            assert tuple(violation_text(v, above, gettext) for v in (limit, suivi, early)) == sentences
    assert violation_text(limit, above) == expected["en"][0]  # the English default (no ``tr``)
    assert violation_items(["BANK_ABOVE_LIMIT", "SUIVI_NOT_ALLOWED", "SPECTATOR_BEFORE_SEATED"]) == [
        ("BANK_ABOVE_LIMIT", "The bank was above the house limit."),
        ("SUIVI_NOT_ALLOWED", "A banco suivi was claimed where the table's rules have none."),
        ("SPECTATOR_BEFORE_SEATED", "A spectator bet before the seated punters had had their turn."),
    ]
    meanings = {
        "fr": (
            "La banque dépassait la limite de la maison.",
            "Un banco suivi a été réclamé alors que les règles de la table n'en prévoient pas.",
        ),
        "ru": ("Банк превышал лимит заведения.", "Заявлено банко сюиви, которого нет в правилах стола."),
    }
    for language, (bank_meaning, suivi_meaning) in meanings.items():
        with translation.override(language):
            assert gettext(VIOLATION_TEXT[Code.BANK_ABOVE_LIMIT]) == bank_meaning
            assert gettext(VIOLATION_TEXT[Code.SUIVI_NOT_ALLOWED]) == suivi_meaning
