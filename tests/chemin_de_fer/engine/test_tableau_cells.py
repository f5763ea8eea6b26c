"""Every cell of the drawing rules, per profile, against tables copied from docs/rules.md §4-§5.

The expected tables are written out here by hand from the rules text, never derived from the code
under test. Each cell is checked through ``judge_coup`` on a real record: acting as the table says
gives no violation, acting against it gives exactly the right code, and an option is free.
"""

from __future__ import annotations

import pytest

from chemin_de_fer.engine.coup import Code
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.profiles import BUILTIN, CASINO
from chemin_de_fer.engine.tableau import Requirement

from .cardkit import card, record, record_kwargs, two_cards

# Banker rows: banker two-card total -> requirement against the player's third card 0..9, then
# "|" and the requirement when the player stood. D draw, S stand, O option.
BANKER = {
    "casino": {
        0: "DDDDDDDDDD|D",
        1: "DDDDDDDDDD|D",
        2: "DDDDDDDDDD|D",
        3: "DDDDDDDDSO|D",
        4: "SSDDDDDDSS|D",
        5: "SSSSODDDSS|D",
        6: "SSSSSSDDSS|S",
        7: "SSSSSSSSSS|S",
    },
    "classic": {
        0: "DDDDDDDDDD|D",
        1: "DDDDDDDDDD|D",
        2: "DDDDDDDDDD|D",
        3: "DDDDDDDDSO|D",
        4: "SSDDDDDDSS|D",
        5: "SSSSDDDDSS|D",
        6: "SSSSSSDDSS|S",
        7: "SSSSSSSSSS|S",
    },
    "home": {
        0: "DDDDDDDDDD|D",
        1: "DDDDDDDDDD|D",
        2: "DDDDDDDDDD|D",
        3: "DDDDDDDDSO|D",
        4: "SSDDDDDDSS|D",
        5: "SSSSODDDSS|D",
        6: "SSSSSSDDSS|S",
        7: "SSSSSSSSSS|S",
    },
    # club: free at 5-7 whatever the player did, must draw at 0-4
    "club": {
        0: "DDDDDDDDDD|D",
        1: "DDDDDDDDDD|D",
        2: "DDDDDDDDDD|D",
        3: "DDDDDDDDDD|D",
        4: "DDDDDDDDDD|D",
        5: "OOOOOOOOOO|O",
        6: "OOOOOOOOOO|O",
        7: "OOOOOOOOOO|O",
    },
}

# Player: two-card total 0..7 -> requirement, with several punters and with a single punter.
PLAYER = {
    "casino": ("DDDDDOSS", "DDDDDOSS"),
    "classic": ("DDDDDOSS", "DDDDDOSS"),
    "club": ("DDDDDOSS", "DDDDDOSS"),
    "home": ("DDDDDOSS", "DOOOOOOO"),
}

LETTER = {"D": Requirement.DRAW, "S": Requirement.STAND, "O": Requirement.OPTION}
THIRDS: list[int | None] = [None, *range(10)]


def expected_banker(slug: str, banker_total: int, third: int | None) -> Requirement:
    row = BANKER[slug][banker_total]
    return LETTER[row[-1] if third is None else row[third]]


def banker_cells():
    for slug in BANKER:
        for player_total in range(8):
            for third in THIRDS:
                for banker_total in range(8):
                    yield slug, player_total, third, banker_total


@pytest.mark.parametrize(("slug", "player_total", "third", "banker_total"), list(banker_cells()))
def test_banker_cell(slug: str, player_total: int, third: int | None, banker_total: int) -> None:
    rules = Rules.for_profile(BUILTIN[slug])
    player: tuple[str, ...] = two_cards(player_total, "HD")
    if third is not None:
        player = (*player, card(third, "C"))
    banker = two_cards(banker_total, "SC")
    expected = expected_banker(slug, banker_total, third)
    for banker_drew in (False, True):
        hand = (*banker, card(4, "D")) if banker_drew else banker
        verdict = judge_coup(
            record(
                profile=slug,
                player=player,
                player_action="draw" if third is not None else "stand",
                banker=hand,
                banker_action="draw" if banker_drew else "stand",
            ),
            rules,
        )
        banker_codes = [v.code for v in verdict.violations if v.side == "banker"]
        if expected is Requirement.DRAW and not banker_drew:
            assert banker_codes == [Code.BANKER_SHOULD_DRAW]
        elif expected is Requirement.STAND and banker_drew:
            assert banker_codes == [Code.BANKER_SHOULD_STAND]
        else:
            assert banker_codes == []


def player_cells():
    for slug in PLAYER:
        for single in (False, True):
            for player_total in range(8):
                yield slug, single, player_total


@pytest.mark.parametrize(("slug", "single", "player_total"), list(player_cells()))
def test_player_cell(slug: str, single: bool, player_total: int) -> None:
    rules = Rules.for_profile(BUILTIN[slug])
    expected = LETTER[PLAYER[slug][single][player_total]]
    bets = (("seat-1", 100),) if single else (("seat-1", 60), ("seat-2", 40))
    for drew in (False, True):
        player: tuple[str, ...] = two_cards(player_total, "HD")
        if drew:
            player = (*player, card(2, "C"))
        verdict = judge_coup(
            record(
                profile=slug,
                bets=bets,
                player=player,
                player_action="draw" if drew else "stand",
                banker=two_cards(7, "SC"),  # 7 stands on everything in every profile but club
                banker_action="stand",
            ),
            rules,
        )
        codes = [v.code for v in verdict.violations if v.side == "player"]
        if expected is Requirement.DRAW and not drew:
            assert codes == [Code.PLAYER_SHOULD_DRAW]
        elif expected is Requirement.STAND and drew:
            assert codes == [Code.PLAYER_SHOULD_STAND]
        else:
            assert codes == []


@pytest.mark.parametrize("player_total", range(8))
def test_one_punter_betting_twice_is_still_a_single_punter(player_total: int) -> None:
    """Home: the tableau depends on the number of distinct punters, not of bets."""
    rules = Rules.for_profile(BUILTIN["home"])
    verdict = judge_coup(
        record(
            profile="home",
            bets=(("seat-1", 6), ("seat-1", 4)),
            bank=10,
            player=two_cards(player_total),
            player_action="stand",
            banker=two_cards(7, "SC"),
            banker_action="stand",
        ),
        rules,
    )
    expected = [Code.PLAYER_SHOULD_DRAW] if player_total == 0 else []
    assert [v.code for v in verdict.violations] == expected


def test_option_5_vs_4_off_makes_the_banker_draw() -> None:
    from dataclasses import replace

    rules = Rules.for_profile(replace(CASINO, slug="casino-no-5v4", banker_option_5_vs_4=False))
    verdict = judge_coup(
        record(
            player=(*two_cards(3), card(4, "C")),
            player_action="draw",
            banker=two_cards(5, "SC"),
            banker_action="stand",
        ),
        rules,
    )
    assert [v.code for v in verdict.violations] == [Code.BANKER_SHOULD_DRAW]


@pytest.mark.parametrize("slug", ["casino", "classic"])
def test_banco_free_play_frees_both_sides(slug: str) -> None:
    from dataclasses import replace

    rules = Rules.for_profile(replace(BUILTIN[slug], banco_free_play=True))
    rec = record(
        profile=slug,
        bets=(("seat-1", 100),),
        banco=True,
        player=(*two_cards(7), card(2, "C")),  # drew on 7
        player_action="draw",
        banker=two_cards(2, "SC"),  # stood on 2
        banker_action="stand",
    )
    assert judge_coup(rec, rules).violations == ()
    # without banco the same play is two violations
    plain = judge_coup(record(**record_kwargs(rec), banco=False), rules)
    assert [v.code for v in plain.violations] == [Code.PLAYER_SHOULD_STAND, Code.BANKER_SHOULD_DRAW]
