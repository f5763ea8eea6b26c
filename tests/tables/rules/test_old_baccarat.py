# ruff: noqa: RUF003  (the source is quoted in Russian: its Cyrillic letters are meant)
"""Old two-deck baccarat (seed 004, section БАККАРА): worked examples, the machine against the judge,
and the exact odds against a Monte-Carlo run."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tables.rules.cards import ALL_CARDS
from tables.rules.old_baccarat import (
    GAME,
    POOL,
    BankerMatch,
    Draw,
    DrawPolicy,
    HouseSettings,
    IllegalMove,
    Kind,
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
    # банкомёт выплачивает им всем, а с остальных получает сам." B's 8 ties the banker's 18.
    "banker 18 pays the 19": Example(
        "banker natural 8",
        coup(("9D", "QC"), ("7C", "AH"), ("8H", "TS")),
        (PunterResult.WIN, PunterResult.TIE_TO_BANKER),
        {DEFAULT: (10, -20, 10), DOUBLE: (20, -20, 0), POOLED: (10, 0, -10), POOLED_DOUBLE: (20, 10, -30)},
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
        ((Move(Kind.CUT, "A"),), Move(Kind.STAKE, "C", 5), "next move is a card"),
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
    assert [(o.kind, o.player) for o in next_moves(state)] == [
        (Kind.STAKE, None),
        (Kind.CUT, "A"),
        (Kind.CUT, "B"),
    ]
    state = apply(state, Move(Kind.CUT, "B"))
    (option,) = next_moves(state)
    assert (option.kind, option.player, len(option.cards)) == (Kind.CARD, "A", 52)
    for card in ("3S", "2H", "2D", "3H", "4S", "4D"):
        state = apply(state, Move(Kind.CARD, card=card))
    assert [(o.kind, o.player) for o in next_moves(state)] == [(Kind.DRAW, "B"), (Kind.STAND, "B")]
    state = apply(state, Move(Kind.DRAW, "B"))
    assert [(o.kind, o.player) for o in next_moves(state)] == [(Kind.CARD, "B")]


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
            option = draw(st.sampled_from([o for o in options if o.kind is not Kind.STAKE]))
            card = draw(st.sampled_from(option.cards)) if option.kind is Kind.CARD else None
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
    assert replay(record, house) == state
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
    for r in verdict.results:
        assert (r.result is PunterResult.TIE_POOLED) == (
            house.tie_rule is TieRule.POOL and hand_digit(r.cards) == hand_digit(verdict.banker_cards)
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
    POOLED: "0.007856",
    DOUBLE: "-0.347818",
    POOLED_DOUBLE: "-0.488215",
    PUNTER_NATURALS_PLAY_ON: "0.136874",
}


@pytest.mark.parametrize("house", ALL_SETTINGS)
def test_exact_edges(house: HouseSettings) -> None:
    odds = exact_odds(house)
    assert odds.banker_win + odds.punter_win + odds.tie == 1
    assert round(odds.banker_edge, 6) == Fraction(EDGES[house])
    m = house.match
    tie_net = {TieRule.BANKER_WINS: Fraction(1), TieRule.POOL: Fraction(1 - m, 2)}[house.tie_rule]
    assert odds.banker_edge == odds.banker_win - m * odds.punter_win + tie_net * odds.tie


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
    assert round(best.banker_edge, 6) == Fraction("0.009388")
    mc = monte_carlo(POOLED, coups=200_000, seed=5, policy=best.policy)
    assert abs(mc.mean - float(best.banker_edge)) < 4 * mc.stderr
