# The examples cite the Russian source word for word, hence the Cyrillic letters.
# ruff: noqa: RUF003
"""Macao (tables/rules/macao.py): hand-worked examples from seed 004, the machine and the offline
judge agreeing on random coups, and the exact odds against brute force and a Monte-Carlo run."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.rules.cards import ALL_CARDS, POINTS
from tables.rules.macao import (
    ALTERNATIVES,
    DEFAULT,
    STAND,
    Action,
    MacaoError,
    MacaoRecord,
    MacaoSettings,
    MacaoState,
    Move,
    apply,
    exact_odds,
    first_banker,
    judge,
    next_banker,
    next_moves,
    outcome_of,
    record_of,
    simulate,
    start,
)

EXAMPLES = settings(max_examples=300, deadline=None)
UNIT = 10


def D(card: str) -> Action:  # one letter, like the croupier's shorthand
    return Action("draw", card)


def X(card: str) -> Action:
    return Action("discard", card)


def record(deal: str, *turns: tuple[Action, ...], punters: int | None = None) -> MacaoRecord:
    """A record with punters P1.. (from the banker's left) and banker B; ``deal`` lists the first
    cards space-separated, the banker's last; missing turns are stands."""
    cards = tuple(deal.split())
    n = len(cards) - 1 if punters is None else punters
    names = tuple(f"P{i + 1}" for i in range(n))
    all_turns = tuple(turns) + tuple(() for _ in range(len(cards) - len(turns)))
    return MacaoRecord(UNIT, "B", names, cards, all_turns)


def machine_moves(rec: MacaoRecord) -> list[Move]:
    """The croupier's entries, in order, that produce ``rec`` on the live machine."""
    moves = [Move("deal", c) for c in rec.deal]
    for turn in rec.turns:
        moves += [Move(a.kind, a.card) for a in turn]
        moves.append(STAND)
    return moves


def run_machine(rec: MacaoRecord, s: MacaoSettings) -> MacaoState:
    state = start(s, unit=rec.unit, banker=rec.banker, punters=rec.punters)
    for m in machine_moves(rec):
        state = apply(state, m)
    return state


# ---------------------------------------------------------------------------------------------
# Worked by hand from the source


@pytest.mark.parametrize(
    ("passage", "s", "rec", "net"),
    [
        # "если банкомёт набрал 8 очков. Он выплачивает условленные ставки понтерам, имеющим 9 очков,
        # а с остальных получает сам": a 9 is paid three units; the tie at 8 and the 5 pay the banker
        # his 8's two units (default banker_collects="scale")
        ("banker 8", DEFAULT, record("9H 8D 5C 8S"), {"P1": 30, "P2": -20, "P3": -20, "B": 10}),
        ("banker 8, one", MacaoSettings(banker_collects="one"), record("9H 8D 5C 8S"),
         {"P1": 30, "P2": -10, "P3": -10, "B": -10}),
        # "если банкомёт набрал 7 очков, он выплачивает ... понтерам, имеющим 8 и 9 очков": the 9
        # made "из двух карт" (4 + 5) is paid three units like a dealt 9
        ("banker 7", DEFAULT, record("4H 8S 7D 2C 7S", (D("5H"),)),
         {"P1": 30, "P2": 20, "P3": -10, "P4": -10, "B": -30}),
        # "если банкомёт набрал 6 очков, то выплачивает понтерам, имеющим 7, 8 и 9 очков, а с
        # остальных получает сам": a 7 is paid one unit, the tie at 6 goes to the banker
        ("banker 6", DEFAULT, record("7C 6D 6H"), {"P1": 10, "P2": -10, "B": 0}),
        # "Фигуры и десятки не считаются ... Туз считается за одно очко": king + ace is 1, beating the
        # banker's queen (0)
        ("court 0, ace 1", MacaoSettings(discard_zeros=False), record("KS QH", (D("AS"),)),
         {"P1": 10, "B": -10}),
        # "играющие вправе сбрасывать их в сторону и требовать новую карту": the ten thrown aside,
        # the new 9 is a two-card hand's first place again and pays three
        ("discard a ten", DEFAULT, record("TS 4D", (X("9C"),)), {"P1": 30, "B": -30}),
        # past 9: 6 + 7 = 13 is over under the default reading, 3 (beating the banker's 2) in modulo
        ("over 9, bust", DEFAULT, record("6S 2D", (D("7S"),)), {"P1": -10, "B": 10}),
        ("over 9, modulo", MacaoSettings(count="modulo"), record("6S 2D", (D("7S"),)),
         {"P1": 10, "B": -10}),
        # "Карты банкомёта, равные по очкам картам понтеров имеют преимущество": both over 9 is a
        # tie, the banker's
        ("both over", DEFAULT, record("5S 4D", (D("7S"),), (D("9D"),)), {"P1": -10, "B": 10}),
        # the banker over 9 loses to any punter who is not
        ("banker over", DEFAULT, record("AS 5D", (), (D("6D"),)), {"P1": 10, "B": -10}),
        # a banker's 9 collects three units from everyone ("в аналогичном же случае")
        ("banker 9", DEFAULT, record("4S 9C 9D"), {"P1": -30, "P2": -30, "B": 60}),
    ],
)
def test_worked_examples(passage: str, s: MacaoSettings, rec: MacaoRecord, net: dict[str, int]) -> None:
    verdict = judge(rec, s)
    assert verdict.violations == ()
    assert verdict.settlement is not None
    assert dict(verdict.settlement.net) == net
    assert sum(verdict.settlement.net.values()) == 0
    # "Далее банк передаётся игроку, сидящему слева от банкомёта"
    assert verdict.next_banker == "P1"
    _, machine = outcome_of(run_machine(rec, s))
    assert machine == verdict.settlement


def test_the_transfers_of_the_first_example() -> None:
    verdict = judge(record("9H 8D 5C 8S"))
    assert verdict.settlement is not None
    assert [(t.payer, t.payee, t.amount) for t in verdict.settlement.transfers] == [
        ("B", "P1", 30),
        ("P2", "B", 20),
        ("P3", "B", 20),
    ]
    assert [(r.punter, r.points, r.winner, r.units) for r in verdict.results] == [
        ("P1", 9, "punter", 3),
        ("P2", 8, "banker", 2),
        ("P3", 5, "banker", 2),
    ]


@pytest.mark.parametrize(
    ("s", "rec", "needle"),
    [
        # "девять очков из двух карт": a third card is refused by default
        (DEFAULT, record("2S 5D", (D("3S"), D("4S"))), "past the 2"),
        (MacaoSettings(max_cards=3), record("6S 5D", (D("7S"), D("AS"))), "over 9"),
        (DEFAULT, record("2S 5D", (X("3S"),)), "without holding a ten"),
        (MacaoSettings(discard_zeros=False), record("TS 5D", (X("3S"),)), "does not let"),
        (MacaoSettings(banker_draws=False), record("2S 5D", (), (D("3S"),)), "banker (B) drew"),
        (MacaoSettings(decks=1), record("2S 2S 5D"), "2S seen 2 times"),
        (DEFAULT, record("2S 2S 2S 5D"), "2S seen 3 times"),
    ],
)
def test_violations_are_found_by_the_judge_and_refused_by_the_machine(
    s: MacaoSettings, rec: MacaoRecord, needle: str
) -> None:
    verdict = judge(rec, s)
    assert not verdict.valid
    assert verdict.settlement is None
    assert any(needle in v for v in verdict.violations), verdict.violations
    with pytest.raises(MacaoError):
        run_machine(rec, s)


def test_malformed_records() -> None:
    short = MacaoRecord(UNIT, "B", ("P1",), ("2S",), ((), ()))
    assert "The deal has 1 cards for 2 players (one each)." in judge(short).violations
    assert judge(MacaoRecord(UNIT, "B", ("P1",), ("2S", "ZZ"), ((), ()))).violations == ("Not cards: 'ZZ'.",)
    assert "The minimum stake is a positive number of chips." in judge(
        MacaoRecord(0, "B", ("P1",), ("2S", "3S"), ((), ()))
    ).violations
    assert judge(MacaoRecord(UNIT, "B", ("P1",), ("2S", "3S"), ((), ()), game="landsknecht")).violations


def test_the_machine_refuses_with_a_reason() -> None:
    state = start(DEFAULT, unit=UNIT, banker="B", punters=["P1"])
    with pytest.raises(MacaoError, match="first card before anyone stands"):
        apply(state, STAND)
    with pytest.raises(MacaoError, match="not a card"):
        apply(state, Move("deal", "1S"))
    state = apply(apply(state, Move("deal", "5S")), Move("deal", "5H"))
    with pytest.raises(MacaoError, match="deal is over"):
        apply(state, Move("deal", "5D"))
    state = apply(state, Move("draw", "5D"))
    with pytest.raises(MacaoError, match="over 9"):
        apply(state, Move("draw", "5C"))
    assert next_moves(state) == (STAND,)
    with pytest.raises(MacaoError):
        start(DEFAULT, unit=UNIT, banker="B", punters=[])
    with pytest.raises(MacaoError):
        start(DEFAULT, unit=UNIT, banker="B", punters=["B"])


def test_who_banks() -> None:
    # "Сдачу начинает вытянувший самую младшую карту"; "банк передаётся игроку, сидящему слева"
    assert first_banker({"Ann": "KS", "Bob": "2H", "Cy": "AD"}) == "Bob"
    assert first_banker({"Ann": "2S", "Bob": "2H"}) is None
    assert next_banker("Ann", ["Bob", "Cy"]) == "Bob"


# ---------------------------------------------------------------------------------------------
# Properties

house_settings = st.builds(
    MacaoSettings,
    decks=st.integers(1, 2),
    count=st.sampled_from(["bust", "modulo"]),
    max_cards=st.integers(1, 4),
    discard_zeros=st.booleans(),
    banker_collects=st.sampled_from(["scale", "one"]),
    banker_draws=st.booleans(),
)


@EXAMPLES
@given(house_settings, st.integers(1, 7), st.integers(1, 500), st.data())
def test_live_machine_and_offline_judge_agree(
    s: MacaoSettings, n: int, unit: int, data: st.DataObject
) -> None:
    punters = [f"P{i}" for i in range(1, n + 1)]
    state = start(s, unit=unit, banker="B", punters=punters)
    while state.phase != "done":
        moves = next_moves(state)
        assert moves, "a state that is not over always has a legal move"
        kinds = sorted({m.kind for m in moves})
        kind = data.draw(st.sampled_from(kinds))
        move = data.draw(st.sampled_from([m for m in moves if m.kind == kind]))
        state = apply(state, move)
    assert next_moves(state) == ()
    rec = record_of(state)
    verdict = judge(rec, s)
    assert verdict.violations == ()
    results, settlement = outcome_of(state)
    assert verdict.results == results
    assert verdict.settlement == settlement
    # settlements sum to zero, in whole units, each punter against the banker once
    assert sum(settlement.net.values()) == 0
    assert len(settlement.transfers) == n
    assert all(t.amount in (unit, 2 * unit, 3 * unit) for t in settlement.transfers)
    # no card seen more often than the decks hold (held cards and thrown-aside ones)
    seen = Counter(rec.cards_in_order())
    assert max(seen.values()) <= s.decks
    assert seen == Counter(c for h in state.hands for c in h) + Counter(c for d in state.discards for c in d)
    # a replay of the record gives the same state
    assert run_machine(rec, s) == state


actions = st.lists(
    st.builds(Action, st.sampled_from(["draw", "discard"]), st.sampled_from(ALL_CARDS)), max_size=4
)


@EXAMPLES
@given(house_settings, st.integers(1, 5), st.data())
def test_judge_finds_a_violation_exactly_when_the_machine_refuses(
    s: MacaoSettings, n: int, data: st.DataObject
) -> None:
    deal = tuple(data.draw(st.lists(st.sampled_from(ALL_CARDS), min_size=n + 1, max_size=n + 1)))
    turns = tuple(tuple(data.draw(actions)) for _ in range(n + 1))
    rec = MacaoRecord(UNIT, "B", tuple(f"P{i}" for i in range(n)), deal, turns)
    verdict = judge(rec, s)
    try:
        state = run_machine(rec, s)
    except MacaoError:
        assert not verdict.valid
        return
    assert verdict.valid
    assert verdict.settlement is not None
    assert verdict.settlement == outcome_of(state)[1]
    assert sum(verdict.settlement.net.values()) == 0


# ---------------------------------------------------------------------------------------------
# Exact odds


def test_exact_odds_of_the_defaults_are_pinned() -> None:
    odds = exact_odds(DEFAULT)
    assert odds.banker_edge == Fraction(14383, 67095)  # 0.214368 minimum stakes per coup
    assert odds.punter_wins == exact_odds(MacaoSettings(banker_collects="one")).punter_wins


def test_exact_odds_against_brute_force_without_draws() -> None:
    """With one card a hand and no discards nobody acts: every ordered pair of the 104 physical
    cards of two decks, told apart, counted by hand."""
    s = MacaoSettings(max_cards=1, discard_zeros=False)
    deck = [c for c in ALL_CARDS for _ in range(2)]
    gain = Fraction(0)
    pairs = 0
    for i, j in itertools.permutations(range(len(deck)), 2):
        p, b = POINTS[deck[i]], POINTS[deck[j]]
        units = {9: 3, 8: 2}
        gain += -units.get(p, 1) if p > b else units.get(b, 1)
        pairs += 1
    assert exact_odds(s).banker_edge == gain / pairs


def test_exact_odds_against_monte_carlo_default() -> None:
    exact = float(exact_odds(DEFAULT).banker_edge)
    mean, se = simulate(DEFAULT, 200_000, random.Random(20261201))
    assert abs(mean - exact) < 4 * se


@pytest.mark.parametrize("name", sorted(ALTERNATIVES))
def test_exact_odds_against_monte_carlo_alternatives(name: str) -> None:
    s = ALTERNATIVES[name]
    exact = float(exact_odds(s).banker_edge)
    mean, se = simulate(s, 30_000, random.Random(name))
    assert abs(mean - exact) < 4 * se
