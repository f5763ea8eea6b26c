"""The game's wording (tables/wording.py): one sentence per fact, shared by the croupier's screens
and the pit boss's pages."""

from __future__ import annotations

from typing import Any

from tables.models import CoupStep
from tables.rules.coup import Code, Violation
from tables.rules.judge import Rules
from tables.rules.machine import Move, new_coup
from tables.rules.profiles import BUILTIN
from tables.wording import (
    BUTTON_LABELS,
    OUTCOME_LABELS,
    VIOLATION_TEXT,
    card_label,
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


def test_a_step_detail_for_each_kind_that_has_one() -> None:
    names = {"seat-1": "seat 1 · Anna (banker)", "seat-2": "seat 2 · Ben"}
    details: dict[str, tuple[dict[str, Any], str]] = {
        "bank_declared": (
            {"amount": 200, "banker": "seat-1", "minimum": 100},
            "bank 200 by seat 1 · Anna (banker)",
        ),
        "bet": ({"punter": "seat-2", "amount": 50}, "seat 2 · Ben bets 50"),
        "banco": (
            {"callers": [{"punter": "seat-2"}, {"punter": "seat-3"}], "winner": "seat-2"},
            "banco by seat 2 · Ben, seat-3; plays: seat 2 · Ben",
        ),
        "card_to_player": ({"card": "6D"}, "6D"),
        "reveal": (
            {"verdict": {"player_total": 4, "banker_total": 8, "outcome": "banker"}},
            "player 4, banker 8: banker",
        ),
        "correction": (
            {"cards": ["4C"], "restored": {"outcome": "banker"}},
            "cards from the shoe: 4C; restored outcome: banker",
        ),
        "correction_rejected": ({"reason": "wrong card"}, "reason: wrong card"),
        "correction_approved": ({}, "restored settlement is final"),
        "player_draw": ({}, ""),
    }
    for kind, (payload, text) in details.items():
        assert kind in CoupStep.Kind.values
        assert step_detail(kind, payload, names) == text


def test_a_violation_that_owes_nothing_to_the_hands_reads_as_its_meaning() -> None:
    state = new_coup(Rules.for_profile(BUILTIN["casino"]))
    for code in (Code.BETS_EXCEED_BANK, Code.WRONG_ACTIVE_PUNTER):
        assert violation_text(Violation(code, "punters"), state) == VIOLATION_TEXT[code]


def test_the_procedural_codes_say_what_the_profile_forbids() -> None:
    """RULES.md §3.1 (the profile's minimum bank) and §2/§10 (who may bet): the pit boss's
    meaning and the croupier's sentence for BANK_BELOW_MINIMUM and SPECTATOR_BET_NOT_ALLOWED
    (COUP_RECORD.md, Verdict)."""
    from tables.rules.machine import Step, apply

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
