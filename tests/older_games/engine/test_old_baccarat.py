# ruff: noqa: RUF003  (the source is quoted in Russian: its Cyrillic letters are meant)
"""Old two-deck baccarat (seed 004, section БАККАРА): worked examples, the machine against the judge,
and the exact odds against a Monte-Carlo run."""

from __future__ import annotations

import io
import json
import random
from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction

import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.validator import validate_lines
from core.cards import ALL_CARDS
from older_games.engine.game_play import Seating, StepRefused, play_for
from older_games.engine.games import JUDGES
from older_games.engine.old_baccarat import (
    GAME,
    POOL,
    BankerMatch,
    Draw,
    DrawPolicy,
    HouseSettings,
    IllegalMove,
    Kind,
    MalformedRecord,
    Move,
    OldBaccaratCoup,
    Phase,
    PunterResult,
    Seat,
    State,
    TieRule,
    Transfer,
    apply,
    deal_order,
    draw_order,
    exact_odds,
    hand_count,
    hand_digit,
    judge,
    max_punters,
    monte_carlo,
    next_moves,
    outcome_of,
    replay,
    start,
    to_record,
)

DEFAULT = HouseSettings()
POOLED = HouseSettings(tie_rule=TieRule.POOL)
DOUBLE = HouseSettings(banker_match=BankerMatch.DOUBLE)
POOLED_DOUBLE = HouseSettings(tie_rule=TieRule.POOL, banker_match=BankerMatch.DOUBLE)
PUNTER_NATURALS_PLAY_ON = HouseSettings(natural_stops_all_draws=False)
ALL_SETTINGS = (DEFAULT, POOLED, DOUBLE, POOLED_DOUBLE, PUNTER_NATURALS_PLAY_ON)

A10_B20 = (Seat("A", 10), Seat("B", 20))


def coup(a: tuple[str, str], b: tuple[str, str], banker: tuple[str, str], *draws: Draw) -> OldBaccaratCoup:
    """Two punters A (10 chips, the banker's left) and B (20 chips); the deal in its real order."""
    # deal_order(2) == (0, 1, 2, 1, 0, 2): A, B, banker clockwise; B, A, banker counter-clockwise
    return OldBaccaratCoup("bk", A10_B20, "A", (a[0], b[0], banker[0], b[1], a[1], banker[1]), draws)


# ---------------------------------------------------------------------------------------------
# Counts and orders


@pytest.mark.parametrize(
    ("cards", "count", "digit"),
    [
        (("9S",), 9, 9),
        (("TS", "9H"), 19, 9),  # "самыми лучшими ... 9, 19 и 29"
        (("KS", "QH", "9D"), 29, 9),
        (("KS", "8H"), 18, 8),
        (("AS", "5H"), 6, 6),  # the ace counts 1 (Macao's "Туз считается за одно очко")
        (("JS", "QH", "KD"), 30, 0),  # figures count 10: "Карты с фигурами ценятся по 10 очков"
        (("5S", "5H"), 10, 0),
    ],
)
def test_counts(cards: tuple[str, ...], count: int, digit: int) -> None:
    assert hand_count(cards) == count
    assert hand_digit(cards) == digit


@pytest.mark.parametrize(
    ("punters", "deal", "draw"),
    [
        (1, (0, 1, 0, 1), (0, 1)),
        (2, (0, 1, 2, 1, 0, 2), (1, 0, 2)),
        # right, left, right behind the one who bought, left again ... then the banker
        (4, (0, 1, 2, 3, 4, 3, 2, 1, 0, 4), (3, 0, 2, 1, 4)),
        (5, (0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0, 5), (4, 0, 3, 1, 2, 5)),
    ],
)
def test_deal_and_draw_orders(punters: int, deal: tuple[int, ...], draw: tuple[int, ...]) -> None:
    assert deal_order(punters) == deal
    assert draw_order(punters) == draw


def test_two_decks_serve_33_punters() -> None:
    assert max_punters(2) == 33
    assert 3 * (max_punters(1) + 1) <= 52


# ---------------------------------------------------------------------------------------------
# Worked examples (seed 004, section БАККАРА). Nets are (A, B, banker).


@dataclass(frozen=True)
class Example:
    passage: str
    record: OldBaccaratCoup
    results: tuple[PunterResult, PunterResult]
    nets: dict[HouseSettings, tuple[int, int, int]]


EXAMPLES = {
    # "Если у банкомёта будет 9 или 19, то он сразу открывает карты и забирает себе ставки понтеров."
    "banker 19 takes all": Example(
        "banker natural 9",
        coup(("4H", "3D"), ("5C", "2S"), ("9S", "KH")),
        (PunterResult.LOSS, PunterResult.LOSS),
        {DEFAULT: (-10, -20, 30), POOLED_DOUBLE: (-10, -20, 30)},
    ),
    # "Если у банкомёта выпадет 8 или 18 очков, а у одного или нескольких понтеров 9 или 19, то
    # банкомёт выплачивает им всем, а с остальных получает сам." B's 8 ties the banker's 18: a
    # banker's natural takes every stake it ties, even where ties are pooled (RULES.md §11)
    "banker 18 pays the 19": Example(
        "banker natural 8",
        coup(("9D", "QC"), ("7C", "AH"), ("8H", "TS")),
        (PunterResult.WIN, PunterResult.TIE_TO_BANKER),
        {DEFAULT: (10, -20, 10), DOUBLE: (20, -20, 0), POOLED: (10, -20, 10), POOLED_DOUBLE: (20, -20, 0)},
    ),
    # "если у банкомёта 6 очков, в у одного из понтеров 7, а у другого 5, то первому банкомёт
    # выплачивает, а со второго получает": B (right) buys a ten and stays at 15, A and the banker stand
    "6 pays 7, takes 5": Example(
        "first example",
        coup(("3S", "4S"), ("2H", "3H"), ("2D", "4D"), Draw("B", "TS"), Draw("A", None), Draw("bk", None)),
        (PunterResult.WIN, PunterResult.LOSS),
        {DEFAULT: (10, -20, 10), DOUBLE: (20, -20, 0), POOLED: (10, -20, 10)},
    ),
    # "если и у того и у другого понтера по 7 и по 8 очков, то банкомёт выплачивает им обоим":
    # A holds 17, B buys from 12 to 18, the banker stands on 6
    "6 pays 17 and 18": Example(
        "second example",
        coup(("TS", "7S"), ("5H", "7H"), ("2D", "4D"), Draw("B", "6D"), Draw("A", None), Draw("bk", None)),
        (PunterResult.WIN, PunterResult.WIN),
        {DEFAULT: (10, 20, -30), DOUBLE: (20, 40, -60)},
    ),
    # "если же у банкомёта и у понтеров по 6 очков, то все ставки (одинарные понтеров и двойные
    # банкомёта) делятся на столько равных частей, сколько игроков имеет это количество очков":
    # A 6, B 16, the banker 6 after buying (from 20 to 26). Pooled even: (10+20)*2 = 60, 20 each;
    # pooled double: 30 + 60 = 90, 30 each. Under the banker's advantage he takes both stakes.
    "6s pooled": Example(
        "third example",
        coup(("AS", "5S"), ("TH", "6H"), ("KD", "QD"), Draw("B", None), Draw("A", None), Draw("bk", "6C")),
        (PunterResult.TIE_TO_BANKER, PunterResult.TIE_TO_BANKER),
        {DEFAULT: (-10, -20, 30), POOLED: (10, 0, -10), POOLED_DOUBLE: (20, 10, -30)},
    ),
    # 29 is as good as 9: the banker buys from 20 to 29 and beats A's 18 and B's 8
    "29 is best": Example(
        "9, 19 и 29",
        coup(("5S", "7S"), ("2H", "3H"), ("KD", "QD"), Draw("B", "3C"), Draw("A", "6D"), Draw("bk", "9C")),
        (PunterResult.LOSS, PunterResult.LOSS),
        {DEFAULT: (-10, -20, 30), POOLED_DOUBLE: (-10, -20, 30)},
    ),
}


@pytest.mark.parametrize("name", EXAMPLES)
def test_worked_examples(name: str) -> None:
    ex = EXAMPLES[name]
    for house, (a, b, banker) in ex.nets.items():
        verdict = judge(ex.record, house)
        assert verdict.violations == ()
        assert verdict.alarms == ()
        assert verdict.settlement is not None
        net = verdict.settlement.net()
        assert (net.get("A", 0), net.get("B", 0), net.get("bk", 0)) == (a, b, banker)
        assert net.get(POOL, 0) == 0
        assert sum(net.values()) == 0
        # the live machine takes the same record and ends in the same hands
        state = replay(ex.record, house)
        assert state.phase is Phase.DONE
        assert tuple(r.cards for r in verdict.results) == state.hands[:2]
    verdict = judge(ex.record, DEFAULT)
    assert tuple(r.result for r in verdict.results) == ex.results


def test_a_pooled_tie_splits_through_the_pool_and_the_odd_chips_go_to_the_banker() -> None:
    record = replace(EXAMPLES["6s pooled"].record, punters=(Seat("A", 5), Seat("B", 6)))
    verdict = judge(record, POOLED)
    assert verdict.settlement is not None
    # 11 staked + 11 covered = 22 in the pool, 3 holders of 6: 7 each, the odd chip to the banker
    assert verdict.settlement.transfers == (
        Transfer("A", POOL, 5),
        Transfer("B", POOL, 6),
        Transfer("bk", POOL, 11),
        Transfer(POOL, "A", 7),
        Transfer(POOL, "B", 7),
        Transfer(POOL, "bk", 8),
    )
    assert verdict.settlement.net() == {"A": 2, "B": 1, "bk": -3, POOL: 0}


def test_a_punter_natural_ends_the_buying_or_not_by_the_house_setting() -> None:
    # A holds 19, B 5, the banker 4: literally nobody buys; with the setting off, B and the banker may
    base = coup(("9S", "TS"), ("2H", "3H"), ("AD", "3D"))
    assert judge(base, DEFAULT).ok
    assert [v.code for v in judge(base, PUNTER_NATURALS_PLAY_ON).violations] == ["draw_order"]
    # B buys from 5 to 7, the banker from 4 to 8: A's 19 wins, B's 7 loses
    played_on = replace(base, draws=(Draw("B", "2C"), Draw("bk", "4C")))
    verdict = judge(played_on, PUNTER_NATURALS_PLAY_ON)
    assert [r.result for r in verdict.results] == [PunterResult.WIN, PunterResult.LOSS]
    assert [v.code for v in judge(played_on, DEFAULT).violations] == ["no_draw"]


@pytest.mark.parametrize(
    ("record", "code"),
    [
        (replace(EXAMPLES["6 pays 7, takes 5"].record, cut_by=None), "cut"),
        (replace(EXAMPLES["6 pays 7, takes 5"].record, cut_by="bk"), "cut"),
        (
            replace(EXAMPLES["6 pays 7, takes 5"].record, deal=EXAMPLES["6 pays 7, takes 5"].record.deal[:5]),
            "deal",
        ),
        (
            replace(EXAMPLES["6 pays 7, takes 5"].record, draws=(Draw("A", None), Draw("B", "TS"))),
            "draw_order",
        ),
        (replace(EXAMPLES["6 pays 7, takes 5"].record, draws=()), "draw_order"),
        (replace(EXAMPLES["banker 19 takes all"].record, draws=(Draw("B", "2C"),)), "no_draw"),
        (replace(EXAMPLES["banker 19 takes all"].record, punters=(Seat("A", 0), Seat("B", 20))), "stake"),
        (replace(EXAMPLES["banker 19 takes all"].record, punters=(Seat("A", 10), Seat("A", 20))), "seat"),
        (replace(EXAMPLES["banker 19 takes all"].record, punters=(Seat("A", 10), Seat(POOL, 20))), "seat"),
        (replace(EXAMPLES["banker 19 takes all"].record, deal=("4H", "3D", "9S", "2S", "XX", "KH")), "card"),
    ],
)
def test_broken_records_are_held_without_settlement(record: OldBaccaratCoup, code: str) -> None:
    verdict = judge(record)
    assert code in [v.code for v in verdict.violations]
    assert verdict.settlement is None
    assert verdict.results == ()
    with pytest.raises(IllegalMove):
        replay(record)


def test_a_card_seen_more_often_than_two_decks_hold_is_an_alarm_not_a_violation() -> None:
    record = coup(("9S", "9S"), ("9S", "2S"), ("4D", "KH"))
    verdict = judge(record)
    assert verdict.ok
    assert [(a.card, a.seen, a.held) for a in verdict.alarms] == [("9S", 3, 2)]
    with pytest.raises(IllegalMove, match="9S was dealt 2 times already"):
        replay(record)


# ---------------------------------------------------------------------------------------------
# The machine refuses, saying why


def _staked() -> State:
    state = apply(start(DEFAULT, "bk"), Move(Kind.STAKE, "A", 10))
    return apply(state, Move(Kind.STAKE, "B", 20))


@pytest.mark.parametrize(
    ("moves", "bad", "reason"),
    [
        ((), Move(Kind.STAKE, "A", 5), "taken"),
        ((), Move(Kind.STAKE, "bk", 5), "banker"),
        ((), Move(Kind.STAKE, "C", 0), "at least 1 chips"),
        ((), Move(Kind.CUT, "bk"), "one of the punters cut"),
        ((), Move(Kind.CARD, card="9S"), "only stakes and the cut"),
        # after the cut a newcomer stakes only with the banker's permission (RULES.md §11) ...
        ((Move(Kind.CUT, "A"),), Move(Kind.STAKE, "C", 5), "joins only with the banker's permission"),
        # ... and once a card is out, not at all
        ((Move(Kind.CUT, "A"), Move(Kind.CARD, card="9S")), Move(Kind.STAKE, "C", 5), "next move is a card"),
        ((Move(Kind.CUT, "A"),), Move(Kind.CARD, card="1S"), "not a card"),
        (
            (Move(Kind.CUT, "A"), *(Move(Kind.CARD, card=c) for c in ("3S", "2H", "2D", "3H", "4S", "4D"))),
            Move(Kind.DRAW, "A"),
            "B's turn",
        ),
        (
            (Move(Kind.CUT, "A"), *(Move(Kind.CARD, card=c) for c in ("3S", "2H", "2D", "3H", "4S", "4D"))),
            Move(Kind.CARD, card="5S"),
            "nobody asked for a card",
        ),
        (
            (Move(Kind.CUT, "A"), *(Move(Kind.CARD, card=c) for c in ("4H", "5C", "9S", "2S", "3D", "KH"))),
            Move(Kind.STAND, "B"),
            "the coup is over",
        ),
    ],
)
def test_the_machine_refuses_illegal_moves(moves: tuple[Move, ...], bad: Move, reason: str) -> None:
    state = _staked()
    for move in moves:
        state = apply(state, move)
    with pytest.raises(IllegalMove, match=reason):
        apply(state, bad)


def test_next_moves_at_each_phase() -> None:
    state = _staked()
    leave = [(Kind.LEAVE, "A"), (Kind.LEAVE, "B")]  # at any moment (RULES.md §11)
    assert [(o.kind, o.player) for o in next_moves(state)] == [
        (Kind.STAKE, None),
        (Kind.CUT, "A"),
        (Kind.CUT, "B"),
        *leave,
    ]
    state = apply(state, Move(Kind.CUT, "B"))
    option, *others = next_moves(state)
    assert (option.kind, option.player, len(option.cards)) == (Kind.CARD, "A", 52)
    # after the cut, before the first card: a newcomer with the banker's permission
    assert [(o.kind, o.player) for o in others] == [(Kind.PERMIT, None), *leave]
    for card in ("3S", "2H", "2D", "3H", "4S", "4D"):
        state = apply(state, Move(Kind.CARD, card=card))
    assert [(o.kind, o.player) for o in next_moves(state)] == [(Kind.DRAW, "B"), (Kind.STAND, "B"), *leave]
    state = apply(state, Move(Kind.DRAW, "B"))
    assert [(o.kind, o.player) for o in next_moves(state)] == [(Kind.CARD, "B"), *leave]


def test_a_newcomer_joins_after_the_cut_only_with_the_bankers_permission() -> None:
    # "могут примкнуть во время сдачи, разумеется, с разрешения банкомёта"
    state = apply(_staked(), Move(Kind.CUT, "A"))
    with pytest.raises(IllegalMove, match="joins only with the banker's permission"):
        apply(state, Move(Kind.STAKE, "C", 30))
    state = apply(apply(state, Move(Kind.PERMIT, "C")), Move(Kind.STAKE, "C", 30))
    assert [(p.player, p.stake) for p in state.punters] == [("A", 10), ("B", 20), ("C", 30)]
    assert [(o.kind, o.player) for o in next_moves(state)][:2] == [(Kind.CARD, "A"), (Kind.PERMIT, None)]
    # C plays as if he had staked before the cut: the deal is dealt to three punters
    for card in ("3S", "2H", "5C", "2D", "6C", "3H", "4S", "4D"):
        state = apply(state, Move(Kind.CARD, card=card))
    assert state.hands == (("3S", "4S"), ("2H", "3H"), ("5C", "6C"), ("2D", "4D"))
    # once a card is out, nobody joins the coup
    late = apply(apply(_staked(), Move(Kind.CUT, "A")), Move(Kind.CARD, card="3S"))
    with pytest.raises(IllegalMove, match="the deal is under way"):
        apply(late, Move(Kind.PERMIT, "D"))
    with pytest.raises(IllegalMove, match="cannot join"):
        apply(apply(_staked(), Move(Kind.CUT, "A")), Move(Kind.PERMIT, "bk"))


def test_a_punter_who_leaves_keeps_his_stake_in_the_coup_and_his_hand_stands() -> None:
    # "могут в любой момент прекратить игру и отойти от стола": the stake stays until it settles
    state = apply(apply(_staked(), Move(Kind.CUT, "A")), Move(Kind.LEAVE, "B"))
    for card in ("3S", "2H", "2D", "3H", "4S", "4D"):
        state = apply(state, Move(Kind.CARD, card=card))
    # B (5) is first to buy, but he has left: only standing is recorded for him
    assert [(o.kind, o.player) for o in next_moves(state)] == [(Kind.STAND, "B"), (Kind.LEAVE, "A")]
    with pytest.raises(IllegalMove, match="has left the table"):
        apply(state, Move(Kind.DRAW, "B"))
    for move in (Move(Kind.STAND, "B"), Move(Kind.STAND, "A"), Move(Kind.STAND, "bk")):
        state = apply(state, move)
    verdict = judge(to_record(state))
    assert verdict.settlement is not None
    assert verdict.settlement.net() == {"bk": 10, "A": 10, "B": -20}  # A 7 beats 6, B 5 loses his stake
    with pytest.raises(IllegalMove, match="could leave"):
        apply(apply(_staked(), Move(Kind.LEAVE, "A")), Move(Kind.LEAVE, "A"))


def test_record_json_round_trip() -> None:
    record = EXAMPLES["6 pays 7, takes 5"].record
    data = record.as_dict()
    assert data == {
        "game": GAME,
        "banker": "bk",
        "punters": [{"player": "A", "stake": 10}, {"player": "B", "stake": 20}],
        "cut_by": "A",
        "deal": ["3S", "2H", "2D", "3H", "4S", "4D"],
        "draws": [
            {"player": "B", "card": "TS"},
            {"player": "A", "card": None},
            {"player": "bk", "card": None},
        ],
    }
    assert OldBaccaratCoup.from_dict(data) == record
    with pytest.raises(ValueError, match="not an old-baccarat record"):
        OldBaccaratCoup.from_dict({**data, "game": "chemin-de-fer"})


# ---------------------------------------------------------------------------------------------
# RULES.md §11: strict values, card positions, naturals take everything, every finding

SIX_PAYS = EXAMPLES["6 pays 7, takes 5"].record  # A 3S 4S, B 2H 3H, the banker 2D 4D; B buys TS


def _with(path: tuple[str | int, ...], value: object) -> dict[str, object]:
    data = json.loads(json.dumps(SIX_PAYS.as_dict()))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("punters", 0, "stake"), "10", 'punter 1: stake must be a whole number of chips, not "10"'),
        (("punters", 0, "stake"), 10.5, "punter 1: stake must be a whole number of chips, not 10.5"),
        (("punters", 0, "stake"), 10.0, "punter 1: stake must be a whole number of chips, not 10.0"),
        (("punters", 1, "stake"), True, "punter 2: stake must be a whole number of chips, not true"),
        (("punters", 1, "stake"), None, "punter 2: stake must be a whole number of chips, not null"),
        (("punters", 0, "player"), 7, "punter 1: player must be a name (a string), not 7"),
        (("punters", 0), "A", "punter 1 must be an object with a player and a stake"),
        (("punters",), {"A": 10}, "punters must be a list of objects, each with a player and a stake"),
        (("banker",), 7, "banker must be a player's name (a string), not 7"),
        (("banker",), None, "banker must be a player's name (a string), not null"),
        (("cut_by",), 1, "cut_by must be a punter's name (a string) or null, not 1"),
        (("deal",), "3S2H2D3H4S4D", 'deal must be a list of card codes (strings), not "3S2H2D3H4S4D"'),
        (
            ("deal", 1),
            10,
            'deal must be a list of card codes (strings), not ["3S", 10, "2D", "3H", "4S", "4D"]',
        ),
        (("draws",), None, "draws must be a list of objects, each with a player and a card"),
        (("draws", 0), ["B", "TS"], "draw 1 must be an object with a player and a card"),
        (("draws", 0, "card"), 10, "draw 1: card must be a card code (a string) or null, not 10"),
        (("draws", 2, "player"), None, "draw 3: player must be a name (a string), not null"),
        (("game",), "baccarat", 'not an old-baccarat record: game="baccarat"'),
    ],
)
def test_a_value_of_the_wrong_json_type_is_malformed_with_a_sentence_naming_the_field(
    path: tuple[str | int, ...], value: object, message: str
) -> None:
    with pytest.raises(MalformedRecord) as raised:
        OldBaccaratCoup.from_dict(_with(path, value))
    assert str(raised.value) == message


def test_a_well_typed_record_reads_back_exactly() -> None:
    assert OldBaccaratCoup.from_dict(_with(("cut_by",), None)) == replace(SIX_PAYS, cut_by=None)
    assert OldBaccaratCoup.from_dict(
        {k: v for k, v in SIX_PAYS.as_dict().items() if k != "draws"}
    ) == replace(SIX_PAYS, draws=())


def _findings(record: OldBaccaratCoup, house: HouseSettings = DEFAULT) -> list[tuple[str, str]]:
    return [(v.code, v.detail) for v in judge(record, house).violations]


@pytest.mark.parametrize(
    ("deal", "draws", "findings"),
    [
        # 1D written for AD as B's first card: a finding there, nothing moves into its place
        (
            ("3S", "1D", "2D", "3H", "4S", "4D"),
            SIX_PAYS.draws,
            [("card", "deal card 2: '1D' is not a card")],
        ),
        # the banker's second card unreadable: he may hold a natural or not; the buying fits "not"
        (("3S", "2H", "2D", "3H", "4S", "4d"), SIX_PAYS.draws, [("card", "deal card 6: '4d' is not a card")]),
        # B's bought card unreadable
        (
            SIX_PAYS.deal,
            (Draw("B", "1T"), Draw("A", None), Draw("bk", None)),
            [("card", "draw 1 (B): '1T' is not a card")],
        ),
        # two unreadable cards: two findings, each at its own place
        (
            ("3S", "ZZ", "2D", "3H", "XX", "4D"),
            SIX_PAYS.draws,
            [("card", "deal card 2: 'ZZ' is not a card"), ("card", "deal card 5: 'XX' is not a card")],
        ),
        # the buying order is still judged: A's hand may be a natural (nobody buys) or not (B, A,
        # the banker), the record fits neither
        (
            ("3S", "2H", "2D", "3H", "ZZ", "4D"),
            (Draw("A", None), Draw("B", "TS"), Draw("bk", None)),
            [
                ("card", "deal card 5: 'ZZ' is not a card"),
                (
                    "draw_order",
                    "the buying decisions were ['A', 'B', 'bk'], the order is ['B', 'A', 'bk'] or []",
                ),
            ],
        ),
        # the banker's 19 is read: nobody may buy, whatever B's unreadable card
        (
            ("3S", "ZZ", "9D", "3H", "4S", "KD"),
            SIX_PAYS.draws,
            [
                ("card", "deal card 2: 'ZZ' is not a card"),
                ("no_draw", "a natural was dealt: nobody may buy a card"),
            ],
        ),
    ],
)
def test_an_unreadable_card_is_a_finding_at_its_position_and_holds_the_coup(
    deal: tuple[str, ...], draws: tuple[Draw, ...], findings: list[tuple[str, str]]
) -> None:
    record = replace(SIX_PAYS, deal=deal, draws=draws)
    verdict = judge(record)
    assert _findings(record) == findings
    assert (verdict.settlement, verdict.results, outcome_of(verdict)) == (None, (), None)
    with pytest.raises(IllegalMove):
        replay(record)


def test_a_deal_of_the_wrong_length_does_not_hide_the_buying_order() -> None:
    # the banker's second card is missing: he may hold a natural (nobody buys) or not
    short = replace(SIX_PAYS, deal=SIX_PAYS.deal[:5])
    assert _findings(short) == [("deal", "the deal has 5 cards, 3 players need 6")]
    reversed_order = replace(short, draws=SIX_PAYS.draws[::-1])
    assert _findings(reversed_order) == [
        ("deal", "the deal has 5 cards, 3 players need 6"),
        ("draw_order", "the buying decisions were ['bk', 'A', 'B'], the order is ['B', 'A', 'bk'] or []"),
    ]
    # a card past the last place belongs to nobody: the six places are judged as they stand
    long = replace(SIX_PAYS, deal=(*SIX_PAYS.deal, "9C"))
    assert _findings(long) == [("deal", "the deal has 7 cards, 3 players need 6")]


def test_a_bad_stake_or_cut_does_not_hide_the_buying_order() -> None:
    record = replace(
        SIX_PAYS,
        punters=(Seat("A", 0), Seat("B", 20)),
        cut_by="bk",
        draws=(Draw("A", None), Draw("B", "TS"), Draw("bk", None)),
    )
    assert _findings(record) == [
        ("stake", "A's stake 0 is under 1"),
        ("cut", "the pack was not cut by a punter (cut_by='bk')"),
        ("draw_order", "the buying decisions were ['A', 'B', 'bk'], the order is ['B', 'A', 'bk']"),
    ]


@pytest.mark.parametrize(
    ("record", "house", "results", "outcome", "nets"),
    [
        # the banker's 19 ties A's 9 and beats B's 5: his natural takes both, even where ties pool
        (
            coup(("4H", "5D"), ("2C", "3S"), ("9S", "KH")),
            POOLED,
            (PunterResult.TIE_TO_BANKER, PunterResult.LOSS),
            "banker",
            (-10, -20, 30),
        ),
        (
            coup(("4H", "5D"), ("2C", "3S"), ("9S", "KH")),
            POOLED_DOUBLE,
            (PunterResult.TIE_TO_BANKER, PunterResult.LOSS),
            "banker",
            (-10, -20, 30),
        ),
        # the banker's 8 ties both 8s and 18s: his
        (
            coup(("4H", "4D"), ("TC", "8S"), ("8D", "KH")),
            POOLED,
            (PunterResult.TIE_TO_BANKER, PunterResult.TIE_TO_BANKER),
            "banker",
            (-10, -20, 30),
        ),
        # a tie reached without a natural is pooled: the outcome is split, not banker
        (EXAMPLES["6s pooled"].record, POOLED, (PunterResult.TIE_POOLED,) * 2, "split", (10, 0, -10)),
        (EXAMPLES["6s pooled"].record, DEFAULT, (PunterResult.TIE_TO_BANKER,) * 2, "banker", (-10, -20, 30)),
        (
            EXAMPLES["6 pays 7, takes 5"].record,
            POOLED,
            (PunterResult.WIN, PunterResult.LOSS),
            "split",
            (10, -20, 10),
        ),
        (EXAMPLES["6 pays 17 and 18"].record, POOLED, (PunterResult.WIN,) * 2, "punters", (10, 20, -30)),
    ],
)
def test_a_bankers_natural_takes_every_stake_it_beats_or_ties_and_a_pooled_tie_is_split(
    record: OldBaccaratCoup,
    house: HouseSettings,
    results: tuple[PunterResult, ...],
    outcome: str,
    nets: tuple[int, int, int],
) -> None:
    verdict = judge(record, house)
    assert tuple(r.result for r in verdict.results) == results
    assert outcome_of(verdict) == outcome
    assert verdict.settlement is not None
    net = verdict.settlement.net()
    assert (net.get("A", 0), net.get("B", 0), net.get("bk", 0)) == nets
    # the live machine settles the same way
    state = replay(record, house)
    play = play_for(GAME)
    assert play.outcome((state, ("A", "B"))) == outcome


@pytest.mark.parametrize("amount", ["10", 10.5, 10.0, True, None, 0])
def test_the_live_table_refuses_a_stake_that_is_no_whole_number(amount: object) -> None:
    play = play_for(GAME)
    state = play.begin(DEFAULT, Seating("bk", ("A", "B")))
    with pytest.raises(StepRefused, match="amount must be a positive whole number of chips"):
        play.step(state, {"kind": "stake", "player": "A", "amount": amount})


def test_the_live_table_judges_an_exported_record_strictly() -> None:
    play = play_for(GAME)
    with pytest.raises(StepRefused, match='punter 1: stake must be a whole number of chips, not "10"'):
        play.verdict(DEFAULT, _with(("punters", 0, "stake"), "10"))


# ---------------------------------------------------------------------------------------------
# Properties: the live machine and the offline judge


@dataclass(frozen=True)
class Played:
    house: HouseSettings
    state: State
    steps: int


@st.composite
def played(draw: st.DrawFn) -> Played:
    house = replace(draw(st.sampled_from(ALL_SETTINGS)), decks=draw(st.sampled_from((1, 2))))
    state = start(house, "bk")
    n = draw(st.integers(min_value=1, max_value=6))
    steps = 0
    while state.phase is not Phase.DONE:
        options = next_moves(state)
        assert options, f"no legal move in {state.phase}"  # a way forward until the coup ends
        if state.phase is Phase.STAKING and len(state.punters) < n:
            option = options[0]
            assert option.kind is Kind.STAKE
            move = Move(Kind.STAKE, f"p{len(state.punters)}", draw(st.integers(min_value=1, max_value=1000)))
        else:
            # a permitted newcomer's stake (RULES.md §11) is offered by name; a new punter's is not
            option = draw(st.sampled_from([o for o in options if o.kind is not Kind.STAKE or o.player]))
            card = draw(st.sampled_from(option.cards)) if option.kind is Kind.CARD else None
            if option.kind is Kind.PERMIT:
                move = Move(Kind.PERMIT, f"late{len(state.permitted)}")
            elif option.kind is Kind.STAKE:
                move = Move(Kind.STAKE, option.player, draw(st.integers(min_value=1, max_value=1000)))
            else:
                move = Move(option.kind, None if card else option.player, card=card)
        state = apply(state, move)
        steps += 1
    assert next_moves(state) == ()
    return Played(house, state, steps)


EXAMPLES_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@EXAMPLES_SETTINGS
@given(played())
def test_the_machine_and_the_judge_agree(game: Played) -> None:
    state, house = game.state, game.house
    record = to_record(state)
    verdict = judge(record, house)
    assert verdict.violations == ()
    assert verdict.alarms == ()
    n = len(state.punters)
    assert tuple(r.cards for r in verdict.results) == state.hands[:n]
    assert verdict.banker_cards == state.hands[n]
    # the record keeps the coup, not the table's comings and goings (who joined with leave, who left)
    # the replay seats the record's punters by the record's order, which is the seat order
    seats = tuple(p.player for p in state.punters)
    assert replay(record, house) == replace(state, permitted=(), left=(), seats=seats)
    if state.left:
        event("a punter left during the coup")
    if state.permitted:
        event("a newcomer joined after the cut")
    assert OldBaccaratCoup.from_dict(record.as_dict()) == record
    # no card seen more often than the decks hold
    seen = Counter(c for hand in state.hands for c in hand)
    assert max(seen.values()) <= house.decks
    # settlement: integer transfers netting to zero, the pool passing through
    assert verdict.settlement is not None
    net = verdict.settlement.net()
    assert sum(net.values()) == 0
    assert net.get(POOL, 0) == 0
    assert all(t.amount > 0 and isinstance(t.amount, int) for t in verdict.settlement.transfers)
    event(f"buying decisions: {min(len(state.draws), 3)}")
    for r in verdict.results:
        event(f"a punter's result: {r.result}")
        if r.result is PunterResult.WIN:
            assert net[r.player] == house.match * r.stake
        elif r.result in (PunterResult.LOSS, PunterResult.TIE_TO_BANKER):
            assert net[r.player] == -r.stake
        else:
            assert house.tie_rule is TieRule.POOL
            assert net.get(r.player, 0) > -r.stake  # his share is never nothing
    # a pooled tie: equal shares ("делятся на столько равных частей") -- stake + net is the share
    shares = {net.get(r.player, 0) + r.stake for r in verdict.results if r.result is PunterResult.TIE_POOLED}
    assert len(shares) <= 1
    # pooled exactly when tied under the pool rule without a banker's natural (RULES.md §11)
    banker_natural = len(verdict.banker_cards) == 2 and hand_digit(verdict.banker_cards) >= 8
    for r in verdict.results:
        assert (r.result is PunterResult.TIE_POOLED) == (
            house.tie_rule is TieRule.POOL
            and not banker_natural
            and hand_digit(r.cards) == hand_digit(verdict.banker_cards)
        )


def _mutations(record: OldBaccaratCoup) -> st.SearchStrategy[OldBaccaratCoup]:
    names = [s.player for s in record.punters] + [record.banker, "stranger"]
    card = st.sampled_from((*ALL_CARDS, "ZZ"))
    index = st.integers(min_value=0, max_value=len(record.deal) - 1)
    return st.one_of(
        st.just(record),
        st.sampled_from((*names, None)).map(lambda c: replace(record, cut_by=c)),
        st.tuples(index, card).map(
            lambda ic: replace(record, deal=(*record.deal[: ic[0]], ic[1], *record.deal[ic[0] + 1 :]))
        ),
        st.just(replace(record, deal=record.deal[:-1])),
        st.just(replace(record, draws=record.draws[:-1])),
        st.just(replace(record, draws=record.draws[::-1])),
        st.tuples(st.sampled_from(names), st.none() | card).map(
            lambda pc: replace(record, draws=(*record.draws, Draw(pc[0], pc[1])))
        ),
        st.integers(min_value=-1, max_value=3).map(
            lambda s: replace(record, punters=(replace(record.punters[0], stake=s), *record.punters[1:]))
        ),
    )


@EXAMPLES_SETTINGS
@given(st.data(), played())
def test_the_judge_finds_fault_exactly_where_the_machine_refuses(data: st.DataObject, game: Played) -> None:
    record = data.draw(_mutations(to_record(game.state)))
    verdict = judge(record, game.house)
    try:
        state = replay(record, game.house)
    except IllegalMove:
        event("refused")
        assert verdict.violations or verdict.alarms
    else:
        event("accepted")
        assert verdict.violations == () and verdict.alarms == ()
        assert tuple(r.cards for r in verdict.results) == state.hands[: len(record.punters)]


# ---------------------------------------------------------------------------------------------
# Odds


EDGES = {
    # heads-up, two decks, the default DrawPolicy; rounded exactly to six decimals
    DEFAULT: "0.101455",
    # pooled ties: a tie against the banker's natural is his (RULES.md §11; it was 0.007856 and
    # -0.488215 when such ties were pooled too)
    POOLED: "0.025572",
    DOUBLE: "-0.347818",
    POOLED_DOUBLE: "-0.461642",
    PUNTER_NATURALS_PLAY_ON: "0.136874",
}


def natural_tie_by_hand(decks: int) -> Fraction:
    """P(both two-card hands end in the same digit, 8 or 9), by brute force over the cards'
    digits -- an enumeration independent of :func:`exact_odds`."""
    counts = [16 * decks] + [4 * decks] * 9
    total = sum(counts)
    hits = 0
    for a in range(10):
        for b in range(10):
            for c in range(10):
                for e in range(10):
                    if (a + b) % 10 != (c + e) % 10 or (c + e) % 10 < 8:
                        continue
                    left = list(counts)
                    w = 1
                    for v in (a, b, c, e):
                        w *= left[v]
                        left[v] -= 1
                    hits += w
    return Fraction(hits, total * (total - 1) * (total - 2) * (total - 3))


@pytest.mark.parametrize("house", ALL_SETTINGS)
def test_exact_edges(house: HouseSettings) -> None:
    odds = exact_odds(house)
    assert odds.banker_win + odds.punter_win + odds.tie == 1
    assert round(odds.banker_edge, 6) == Fraction(EDGES[house])
    m = house.match
    tie_net = {TieRule.BANKER_WINS: Fraction(1), TieRule.POOL: Fraction(1 - m, 2)}[house.tie_rule]
    pooled = odds.tie - odds.natural_tie
    assert odds.banker_edge == odds.banker_win - m * odds.punter_win + tie_net * pooled + odds.natural_tie
    # a tie against the banker's natural (two cards of 8 or 9 each side, the same digit), exactly
    assert odds.natural_tie == natural_tie_by_hand(house.decks)


def test_the_outcome_probabilities_do_not_depend_on_money_settings() -> None:
    base = exact_odds(DEFAULT)
    for house in (POOLED, DOUBLE, POOLED_DOUBLE):
        other = exact_odds(house)
        assert (other.banker_win, other.punter_win, other.tie) == (base.banker_win, base.punter_win, base.tie)


@pytest.mark.parametrize("house", ALL_SETTINGS)
def test_exact_edge_against_monte_carlo(house: HouseSettings) -> None:
    exact = float(exact_odds(house).banker_edge)
    mc = monte_carlo(house, coups=200_000, seed=12)
    assert abs(mc.mean - exact) < 4 * mc.stderr


def test_exact_edge_against_monte_carlo_one_deck_other_policy() -> None:
    house = HouseSettings(decks=1)
    policy = DrawPolicy(punter_buys_at_most=4, banker_buys_at_most_if_punter_stood=6)
    exact = float(exact_odds(house, policy=policy).banker_edge)
    mc = monte_carlo(house, coups=200_000, seed=7, policy=policy)
    assert abs(mc.mean - exact) < 4 * mc.stderr


def test_the_default_policy_is_the_bankers_best_answer_under_the_default_settings() -> None:
    fixed = exact_odds(DEFAULT)
    best = exact_odds(DEFAULT, banker_best=True)
    assert best.banker_edge == fixed.banker_edge
    assert best.policy.banker_buys is not None
    # he buys on every total 0-4 whatever the punter shows, and on 5 against a stander
    for low, high, shows in best.policy.banker_buys:
        assert (low + high) % 10 <= {"bought": 4, "stood": 5}[shows]


@pytest.mark.parametrize("house", ALL_SETTINGS)
def test_the_bankers_best_answer_is_never_worse(house: HouseSettings) -> None:
    assert exact_odds(house, banker_best=True).banker_edge >= exact_odds(house).banker_edge


def test_the_bankers_best_answer_against_monte_carlo_when_ties_are_pooled() -> None:
    best = exact_odds(POOLED, banker_best=True)
    assert round(best.banker_edge, 6) == Fraction("0.027103")
    mc = monte_carlo(POOLED, coups=200_000, seed=5, policy=best.policy)
    assert abs(mc.mean - float(best.banker_edge)) < 4 * mc.stderr


# ---------------------------------------------------------------------------------------------
# Properties of RULES.md §11: unreadable cards, money fields, independent faults

UNREADABLE = st.sampled_from(["1D", "1S", "ZZ", "", "9X", "ts", "T", "QQS"])


def _validated(data: dict[str, object]) -> dict[str, object]:
    out = io.BytesIO()
    validate_lines([orjson.dumps(data)], out, others=JUDGES)
    (line,) = out.getvalue().splitlines()
    verdict: dict[str, object] = json.loads(line)
    return verdict


def _line(game: Played, record: OldBaccaratCoup) -> dict[str, object]:
    return {"id": 1, **record.as_dict(), "settings": game.house.as_dict()}


@EXAMPLES_SETTINGS
@given(played(), st.data())
def test_one_card_replaced_by_an_unreadable_code_is_never_settled(game: Played, data: st.DataObject) -> None:
    record = to_record(game.state)
    bought = [i for i, d in enumerate(record.draws) if d.card is not None]
    place = data.draw(
        st.sampled_from([("deal", i) for i in range(len(record.deal))] + [("draw", i) for i in bought])
    )
    code = data.draw(UNREADABLE)
    if place[0] == "deal":
        i = place[1]
        broken = replace(record, deal=(*record.deal[:i], code, *record.deal[i + 1 :]))
        where = f"deal card {i + 1}: {code!r} is not a card"
    else:
        i = place[1]
        d = record.draws[i]
        broken = replace(record, draws=(*record.draws[:i], Draw(d.player, code), *record.draws[i + 1 :]))
        where = f"draw {i + 1} ({d.player}): {code!r} is not a card"
    verdict = judge(broken, game.house)
    assert ("card", where) in [(v.code, v.detail) for v in verdict.violations]
    assert (verdict.settlement, verdict.results) == (None, ())
    offline = _validated(_line(game, broken))
    assert (offline["outcome"], offline["settlement"], offline["results"]) == (None, None, [])
    # the other cards keep their places: the same record with the card back is the machine's
    assert judge(record, game.house).ok


NON_INTEGERS = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
    | st.integers(-1000, 1000).map(str)
    | st.floats(allow_nan=False, allow_infinity=False).map(str)
    | st.none()
)


@EXAMPLES_SETTINGS
@given(played(), st.data(), NON_INTEGERS)
def test_any_non_integer_number_in_a_stake_is_malformed(
    game: Played, data: st.DataObject, value: object
) -> None:
    line = _line(game, to_record(game.state))
    punters = line["punters"]
    assert isinstance(punters, list)
    k = data.draw(st.integers(0, len(punters) - 1))
    punters[k] = {**punters[k], "stake": value}
    verdict = _validated(line)
    assert set(verdict) == {"id", "error"}
    assert str(verdict["error"]).startswith(f"punter {k + 1}: stake must be a whole number of chips, not ")
    settings_line = {
        **_line(game, to_record(game.state)),
        "settings": {**game.house.as_dict(), "min_stake": value},
    }
    assert set(_validated(settings_line)) == {"id", "error"}


def _fault(kind: str, record: OldBaccaratCoup) -> OldBaccaratCoup:
    if kind == "stake":
        return replace(record, punters=(replace(record.punters[0], stake=0), *record.punters[1:]))
    if kind == "cut":
        return replace(record, cut_by=record.banker)
    # the buying order: one more decision than anybody may take
    return replace(record, draws=(*record.draws, Draw(record.banker, None)))


#: faults judged on their own: an unreadable card may change who may buy, so the card and the
#: buying order are the one pair that is not independent
INDEPENDENT = [("stake", "cut"), ("stake", "card"), ("cut", "card"), ("stake", "order"), ("cut", "order")]


@EXAMPLES_SETTINGS
@given(played(), st.data(), st.sampled_from(INDEPENDENT))
def test_two_independent_faults_find_the_union_of_each_alone(
    game: Played, data: st.DataObject, pair: tuple[str, str]
) -> None:
    record = to_record(game.state)
    seed = data.draw(st.integers(0, 2**16))

    def with_faults(*kinds: str) -> OldBaccaratCoup:
        # the same random choices for a fault alone and in the pair
        rng = random.Random(seed)
        out = record
        for kind in kinds:
            out = _card_fault(out, rng) if kind == "card" else _fault(kind, out)
        return out

    def found(r: OldBaccaratCoup) -> list[tuple[str, str]]:
        return [(v.code, v.detail) for v in judge(r, game.house).violations]

    first, second = found(with_faults(pair[0])), found(with_faults(pair[1]))
    both = found(with_faults(*pair))
    assert first and second
    assert sorted(both) == sorted(set(first) | set(second))


def _card_fault(record: OldBaccaratCoup, rng: random.Random) -> OldBaccaratCoup:
    i = rng.randrange(len(record.deal))
    return replace(record, deal=(*record.deal[:i], "ZZ", *record.deal[i + 1 :]))
