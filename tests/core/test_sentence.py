"""Sentences built from values (core/sentence.py): the English text everywhere a ``str`` is
read, and the pattern and values a screen says again in its language (tables.wording.say)."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import IllegalStep, Move, Step, apply, new_coup
from chemin_de_fer.engine.profiles import BUILTIN
from core.sentence import Card, Listing, Sentence, Word, said, why


def test_a_sentence_is_its_english_text_and_remembers_how_it_was_built() -> None:
    text = said("only {left} of the bank is left to cover", left=200)
    assert text == "only 200 of the bank is left to cover"
    assert isinstance(text, str) and isinstance(text, Sentence)
    assert (text.pattern, text.values) == ("only {left} of the bank is left to cover", {"left": 200})
    assert json.dumps({"detail": text}) == '{"detail": "only 200 of the bank is left to cover"}'
    assert said("name the banker") == "name the banker" and said("name the banker").values == {}


def test_its_values_are_said_in_english_as_the_codes_they_stand_for() -> None:
    listing = Listing([Word("bet", "step"), Word("banco", "step")])
    text = said("{card} or {kinds}", card=Card("TD"), kinds=listing)
    assert text == "TD or bet, banco"
    assert Listing([Card("5H"), Card("6H")], sep=" ") == "5H 6H"
    assert Word("betting", "phase").kind == "phase"


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s))])
def test_a_copy_keeps_its_pattern_and_values(copier) -> None:
    text = said("{who} bets {amount}", who=Word("seat-2", "punter"), amount=Listing([Card("AS")]))
    copied = copier(text)
    assert copied == text and copied.pattern == text.pattern
    assert copied.values["who"].kind == "punter" and copied.values["amount"].items == (Card("AS"),)


def test_a_refusal_keeps_its_sentence_where_str_would_copy_it() -> None:
    state = new_coup(Rules.for_profile(BUILTIN["casino"]))
    with pytest.raises(IllegalStep) as refused:
        apply(state, Step(Move.CARD_TO_PLAYER, card="9H"))
    reason = why(refused.value)
    assert (
        reason
        == str(refused.value)
        == ("card_to_player is not possible now (phase declaring); expected bank_declared")
    )
    assert isinstance(reason, Sentence) and not isinstance(str(refused.value), Sentence)
    assert reason.values["kind"].kind == "step" and reason.values["expected"].items == ("bank_declared",)
    assert why(ValueError("plain")) == "plain" and why(ValueError(1, 2)) == "(1, 2)"
