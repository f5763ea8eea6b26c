"""Restore the game (docs/rules.md §9): corrected hands, void cards, cards still needed."""

from __future__ import annotations

import pytest

from chemin_de_fer.engine.coup import Action, NeedsCards, Outcome, Restored
from chemin_de_fer.engine.judge import Rules, judge_coup, restore_coup, restored_record
from chemin_de_fer.engine.profiles import BUILTIN

from .cardkit import record

CASINO = Rules.for_profile(BUILTIN["casino"])
CLASSIC = Rules.for_profile(BUILTIN["classic"])


def restore(rules=CASINO, **kw):
    return restore_coup(record(**kw), rules)


def test_banker_stood_when_he_had_to_draw_takes_the_next_card() -> None:
    r = restore(
        player=("TH", "2C", "6D"),
        player_action="draw",
        banker=("3S", "2H"),
        banker_action="stand",
        shoe_next=("4C", "9D"),
    )
    assert r == Restored(
        player_cards=("TH", "2C", "6D"),
        banker_cards=("3S", "2H", "4C"),
        player_total=8,
        banker_total=9,
        outcome=Outcome.BANKER,
        void_cards=(),
        player_action=Action.DRAW,
        banker_action=Action.DRAW,
        extra_cards=("4C",),
    )


def test_player_drew_on_seven_his_card_goes_to_the_banker() -> None:
    r = restore(
        player=("4D", "3C", "2S"),
        player_action="draw",
        banker=("3H", "TD", "6H"),
        banker_action="draw",
    )
    assert isinstance(r, Restored)
    assert (r.player_cards, r.banker_cards, r.void_cards, r.outcome) == (
        ("4D", "3C"),
        ("3H", "TD", "2S"),
        ("6H",),
        Outcome.PLAYER,
    )


def test_banker_drew_when_he_had_to_stand_his_card_is_void() -> None:
    r = restore(
        player=("4D", "3C"),
        player_action="stand",
        banker=("6H", "KD", "3S"),
        banker_action="draw",
    )
    assert isinstance(r, Restored)
    assert (r.banker_cards, r.void_cards, r.banker_total, r.outcome) == (
        ("6H", "KD"),
        ("3S",),
        6,
        Outcome.PLAYER,
    )


def test_cards_after_a_natural_are_all_void() -> None:
    r = restore(
        rules=CLASSIC,
        player=("5D", "KC", "3S"),
        player_action="draw",
        banker=("9H", "QS", "2C"),
        banker_action="draw",  # natural not shown, and a card after it
    )
    assert isinstance(r, Restored)
    assert (r.player_cards, r.banker_cards, r.void_cards, r.outcome) == (
        ("5D", "KC"),
        ("9H", "QS"),
        ("3S", "2C"),
        Outcome.BANKER,
    )
    assert (r.player_action, r.banker_action) == (Action.DRAW, Action.NATURAL)


def test_club_naturals_restored_are_en_carte() -> None:
    r = restore(
        rules=Rules.for_profile(BUILTIN["club"]),
        profile="club",
        player=("9C", "TD"),
        player_action="stand",  # natural not shown
        banker=("4S", "4H", "2D"),
        banker_action="draw",
    )
    assert isinstance(r, Restored)
    assert (r.outcome, r.void_cards, r.player_action) == (Outcome.TIE, ("2D",), Action.NATURAL)


@pytest.mark.parametrize(
    ("banker", "expected"),
    [
        (("7S", "KH"), 1),  # banker 7 stands whatever the player's card: one card needed
        (("KS", "2H"), 2),  # banker 2 draws whatever it is: two
        (("4S", "KH"), 1),  # banker 4 depends on the unknown card: at least one
    ],
)
def test_needs_cards_counts_what_the_shoe_must_supply(banker: tuple[str, str], expected: int) -> None:
    r = restore(
        rules=CLASSIC,
        player=("2D", "2C"),
        player_action="stand",
        banker=banker,
        banker_action="stand",
    )
    assert r == NeedsCards(expected)


def test_needs_one_more_for_the_banker_after_the_player_took_the_last_one() -> None:
    r = restore(
        player=("2D", "2C"),
        player_action="stand",
        banker=("KS", "2H"),
        banker_action="stand",
        shoe_next=("9C",),
    )
    assert r == NeedsCards(1)


def test_option_keeps_the_recorded_choice() -> None:
    # player wrongly stood on 4 with banker 3; restored he draws a 9: banker's 3-vs-9 is an option,
    # and the banker's recorded choice (he drew) stands
    rec = record(
        player=("2D", "2C"),
        player_action="stand",
        banker=("AS", "2H", "9C"),
        banker_action="draw",
        shoe_next=("5D",),
    )
    r = restore_coup(rec, CASINO)
    assert isinstance(r, Restored)
    assert (r.player_cards, r.banker_cards, r.extra_cards) == (
        ("2D", "2C", "9C"),
        ("AS", "2H", "5D"),
        ("5D",),
    )
    assert r.banker_action is Action.DRAW


def test_a_restored_coup_is_clean_and_restoring_it_again_changes_nothing() -> None:
    rec = record(
        player=("4D", "3C", "2S"),
        player_action="draw",
        banker=("3H", "TD", "6H"),
        banker_action="draw",
    )
    first = restore_coup(rec, CASINO)
    assert isinstance(first, Restored)
    fixed = restored_record(rec, first)
    verdict = judge_coup(fixed, CASINO)
    assert verdict.violations == () and verdict.restored is None
    again = restore_coup(fixed, CASINO)
    assert isinstance(again, Restored)
    assert (again.player_cards, again.banker_cards, again.outcome, again.void_cards) == (
        first.player_cards,
        first.banker_cards,
        first.outcome,
        (),
    )


def test_settlement_follows_the_restored_outcome() -> None:
    v = judge_coup(
        record(
            player=("TH", "2C", "6D"),
            player_action="draw",
            banker=("3S", "2H"),
            banker_action="stand",
            shoe_next=("4C",),
        ),
        CASINO,
    )
    assert v.outcome is Outcome.PLAYER  # as played
    assert v.settlement is not None and v.settlement.banker_net == 95  # as restored: banker won
