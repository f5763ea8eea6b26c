"""Landsknecht (tables/rules/landsknecht.py): examples worked by hand from the source text
(shared/seeds/004_938fcc7d71e998c0.txt, section "ЛАНДСКНЕХТ"), properties of the live machine
against the offline judge, and the exact odds against a Monte-Carlo run."""

from __future__ import annotations

import json
import time
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables.rules.cards import ALL_CARDS
from tables.rules.landsknecht import (
    FUND,
    AfterTake,
    AgainStake,
    CloseCovers,
    Code,
    Cover,
    Deal,
    Decide,
    Decision,
    Doublet,
    HouseSettings,
    IllegalMove,
    Opening,
    Outcome,
    Phase,
    PutStake,
    Record,
    State,
    Table,
    Transfer,
    apply,
    exact_odds,
    fund_payins,
    judge,
    monte_carlo,
    next_moves,
    next_table,
    record_from_dict,
    record_to_dict,
    refusal,
    start,
    to_record,
)

DEFAULT = HouseSettings()
TABLE = Table(banker="ann", punters=("bob", "cid", "dan"), fund=500)


def _codes(record: Record, house: HouseSettings = DEFAULT) -> list[Code]:
    return [v.code for v in judge(record, house).violations]


# ---------------------------------------------------------------------------------------------
# Worked by hand from the source


@pytest.mark.parametrize(
    ("cards", "decision", "outcome", "deciding", "transfers", "bank_passes"),
    [
        # "Правая карта ... банкомёту ... - дама, а левая карта, принадлежащая понтеру – валет.  # noqa: RUF003
        #  Если первым выйдет валет, то банкомёт проигрывает и передаёт колоду"
        (("QH", "JS", "5D", "JC"), None, Outcome.PUNTERS, 3, (Transfer("ann", "bob", 100),), True),
        # "Если выйдет дама, то банкомёт выигрывает. В этом случае он может забрать деньги с кона,  # noqa: RUF003
        #  но тогда банкомётом станет следующий игрок"
        (("QH", "JS", "5D", "QC"), Decision.TAKE, Outcome.BANKER, 3, (Transfer("bob", "ann", 100),), True),
        # "... или он может сделать следующую ставку ... и начать новую сдачу"
        (("QH", "JS", "QD"), Decision.AGAIN, Outcome.BANKER, 2, (Transfer("bob", "ann", 100),), False),
        # "Если на обе стороны выйдут одинаковые карты, то это всегда в пользу банкомёта"  # noqa: RUF003
        (("QH", "QS"), Decision.TAKE, Outcome.BANKER, 1, (Transfer("bob", "ann", 100),), True),
    ],
)
def test_the_sources_example_queen_against_jack(
    cards: tuple[str, ...],
    decision: Decision | None,
    outcome: Outcome,
    deciding: int,
    transfers: tuple[Transfer, ...],
    bank_passes: bool,
) -> None:
    record = Record(TABLE, stake=100, covers=(Cover("bob", 100),), cards=cards, decision=decision)
    verdict = judge(record)
    assert verdict.violations == ()
    assert verdict.outcome is outcome
    assert verdict.deciding_card == deciding
    assert verdict.settlement.transfers == transfers
    assert verdict.bank_passes is bank_passes
    assert verdict.fund_cover == 0
    assert verdict.fund_after == 500


@pytest.mark.parametrize(
    ("covers", "fund", "cards", "nets", "fund_cover", "fund_after"),
    [
        # "разрешается, чтобы ставка была разделена между несколькими понтерами ... Если согласия не
        #  последует, то за остальную часть ставки отвечает запасной фонд": 60 + 20 + the fund's 20
        (
            (Cover("bob", 60), Cover("cid", 20)),
            500,
            ("7S", "9H", "2C", "7D"),
            {"ann": 100, "bob": -60, "cid": -20, FUND: -20},
            20,
            480,
        ),
        (
            (Cover("bob", 60), Cover("cid", 20)),
            500,
            ("7S", "9H", "9D"),
            {"ann": -100, "bob": 60, "cid": 20, FUND: 20},
            20,
            520,
        ),
        # "Если игроки отказываются понтировать ... он имеет право играть на капитал запасного фонда"
        ((), 500, ("KS", "AH", "AD"), {"ann": -100, FUND: 100}, 100, 600),
        # the fund answers only up to its balance: 30 of the 100 are in play
        ((), 30, ("KS", "AH", "KD"), {"ann": 30, FUND: -30}, 30, 0),
    ],
)
def test_the_fund_answers_for_the_rest(
    covers: tuple[Cover, ...],
    fund: int,
    cards: tuple[str, ...],
    nets: dict[str, int],
    fund_cover: int,
    fund_after: int,
) -> None:
    table = Table("ann", ("bob", "cid"), fund=fund)
    decision = Decision.TAKE if nets["ann"] > 0 else None
    verdict = judge(Record(table, 100, covers, cards, decision))
    assert verdict.violations == ()
    assert verdict.settlement.nets() == nets
    assert verdict.fund_cover == fund_cover
    assert verdict.at_risk == sum(c.amount for c in covers) + fund_cover
    assert verdict.fund_after == fund_after


def test_without_the_fund_backing_the_rest_stays_out_of_play() -> None:
    house = HouseSettings(fund_backs_uncovered=False)
    record = Record(TABLE, 100, (Cover("bob", 40),), ("7S", "9H", "7D"), Decision.TAKE)
    verdict = judge(record, house)
    assert verdict.settlement.nets() == {"ann": 40, "bob": -40}
    void = judge(Record(TABLE, 100, (), ()), house)
    assert (void.outcome, void.violations, void.settlement.transfers, void.bank_passes) == (
        Outcome.VOID,
        (),
        (),
        False,
    )


@pytest.mark.parametrize(
    ("opening", "previous", "house", "stake", "codes"),
    [
        # "Если предыдущий банкомёт забрал деньги с кона, то следующий может ставить на кон либо точно  # noqa: RUF003
        #  такую же сумму, которая была только что снята, либо заранее условленную минимальную ставку"
        (Opening.AFTER_TAKE, 200, DEFAULT, 200, []),
        (Opening.AFTER_TAKE, 200, DEFAULT, 10, []),
        (Opening.AFTER_TAKE, 200, DEFAULT, 150, [Code.STAKE_NOT_ALLOWED]),
        (Opening.AFTER_TAKE, 200, HouseSettings(after_take=AfterTake.ANY), 150, []),
        (Opening.NEW_BANK, 0, DEFAULT, 9, [Code.STAKE_BELOW_MINIMUM]),
        (Opening.NEW_BANK, 0, DEFAULT, 150, []),
        (Opening.AGAIN, 200, DEFAULT, 50, []),
        (Opening.AGAIN, 200, HouseSettings(again_stake=AgainStake.WHOLE_POT), 50, [Code.STAKE_NOT_ALLOWED]),
        (Opening.AGAIN, 200, HouseSettings(again_stake=AgainStake.WHOLE_POT), 200, []),
        (Opening.AGAIN, 0, DEFAULT, 50, [Code.BAD_TABLE]),
        (
            Opening.AGAIN,
            5,
            HouseSettings(again_stake=AgainStake.WHOLE_POT),
            5,
            [Code.BAD_TABLE, Code.STAKE_BELOW_MINIMUM],
        ),
    ],
)
def test_stakes(opening: Opening, previous: int, house: HouseSettings, stake: int, codes: list[Code]) -> None:
    table = Table("ann", ("bob",), fund=0, opening=opening, previous=previous)
    record = Record(table, stake, (Cover("bob", stake),), ("2S", "3S", "2H"), Decision.TAKE)
    assert _codes(record, house) == codes


@pytest.mark.parametrize(
    ("record", "codes", "outcome"),
    [
        (
            Record(TABLE, 100, (Cover("bob", 100),), ("QH", "JS", "QC", "5D")),
            [Code.CARDS_AFTER_DECISION, Code.DECISION_MISSING],
            Outcome.BANKER,
        ),
        (
            Record(TABLE, 100, (Cover("bob", 100),), ("QH", "JS", "5D")),
            [Code.CARDS_MISSING],
            Outcome.UNDECIDED,
        ),
        (
            Record(TABLE, 100, (Cover("bob", 100),), ("QH", "JS", "5D", "5D", "5D", "QC"), Decision.TAKE),
            [Code.IMPOSSIBLE_CARD],
            Outcome.BANKER,
        ),
        (
            Record(TABLE, 100, (Cover("bob", 100),), ("QH", "JS", "JD"), Decision.AGAIN),
            [Code.DECISION_WITHOUT_WIN],
            Outcome.PUNTERS,
        ),
        (
            Record(TABLE, 100, (Cover("ann", 50), Cover("bob", 0), Cover("bob", 120)), ("QH", "JS", "JD")),
            [Code.COVER_BY_NON_PUNTER, Code.COVER_NOT_POSITIVE, Code.COVER_TWICE, Code.COVERS_EXCEED_STAKE],
            Outcome.PUNTERS,
        ),
        (
            Record(TABLE, 100, (Cover("bob", 100),), ("QH", "XX", "JS", "JD")),
            [Code.BAD_CARD],
            Outcome.PUNTERS,
        ),
    ],
)
def test_violations(record: Record, codes: list[Code], outcome: Outcome) -> None:
    verdict = judge(record)
    assert [v.code for v in verdict.violations] == codes
    assert verdict.outcome is outcome
    assert sum(verdict.settlement.nets().values()) == 0


def test_a_doublet_is_a_standoff_under_that_setting() -> None:
    house = HouseSettings(doublet=Doublet.STANDOFF)
    verdict = judge(Record(TABLE, 100, (Cover("bob", 100),), ("QH", "QS")), house)
    assert (verdict.outcome, verdict.violations, verdict.settlement.transfers) == (Outcome.STANDOFF, (), ())


@pytest.mark.parametrize(
    ("cards", "decision", "expected"),
    [
        # lost: the bank passes left, a new bank
        (("QH", "JS", "JC"), None, Table("bob", ("cid", "dan", "ann"), fund=540)),
        # took 100 stake + 100 covered (60 bob, 40 the fund): the next banker opens after a take of 200
        (
            ("QH", "JS", "QC"),
            Decision.TAKE,
            Table("bob", ("cid", "dan", "ann"), fund=460, opening=Opening.AFTER_TAKE, previous=200),
        ),
        # stays: the same banker, the pot of 200 on the table
        (
            ("QH", "JS", "QC"),
            Decision.AGAIN,
            Table("ann", TABLE.punters, fund=460, opening=Opening.AGAIN, previous=200),
        ),
        (("QH", "JS", "5D"), None, None),
        (("QH", "JS", "QC"), None, None),
    ],
)
def test_next_table(cards: tuple[str, ...], decision: Decision | None, expected: Table | None) -> None:
    record = Record(TABLE, 100, (Cover("bob", 60),), cards, decision)
    assert next_table(record, judge(record)) == expected


def test_fund_payins() -> None:
    assert fund_payins(["ann", "bob"], DEFAULT).nets() == {"ann": -10, FUND: 20, "bob": -10}
    assert fund_payins(["ann"], HouseSettings(fund_due=0)).transfers == ()


def test_the_machine_plays_the_sources_example_and_refuses_with_reasons() -> None:
    state = start(TABLE)
    assert next_moves(state) == (PutStake(10), PutStake(20), PutStake(50), PutStake(100))
    with pytest.raises(IllegalMove, match="at least the minimum of 10"):
        apply(state, PutStake(5))
    with pytest.raises(IllegalMove, match="covers come after the stake"):
        apply(state, Cover("bob", 10))
    state = apply(state, PutStake(100))
    with pytest.raises(IllegalMove, match="only 100 of the stake is left"):
        apply(state, Cover("bob", 150))
    with pytest.raises(IllegalMove, match="'ann' is not a punter"):
        apply(state, Cover("ann", 10))
    state = apply(state, Cover("bob", 100))
    assert next_moves(state) == (CloseCovers(),)
    state = apply(state, CloseCovers())
    for card in ("QH", "JS", "5D", "QH"):
        state = apply(state, Deal(card))
    with pytest.raises(IllegalMove, match="QH: the 2-deck shoe holds no more of it"):
        apply(replace_phase(state, Phase.DEAL), Deal("QH"))
    assert state.phase is Phase.DECIDE
    assert next_moves(state) == (Decide(Decision.TAKE), Decide(Decision.AGAIN))
    state = apply(state, Decide(Decision.TAKE))
    assert next_moves(state) == ()
    assert judge(to_record(state)).settlement.nets() == {"bob": -100, "ann": 100}


def replace_phase(state: State, phase: Phase) -> State:
    from dataclasses import replace

    return replace(state, phase=phase)


def test_a_table_the_machine_cannot_start() -> None:
    with pytest.raises(IllegalMove, match="reserve fund's name"):
        start(Table("ann", ("fund",)))
    with pytest.raises(IllegalMove, match="sits once"):
        start(Table("ann", ("ann",)))


def test_json_round_trip() -> None:
    record = Record(TABLE, 100, (Cover("bob", 60),), ("QH", "JS", "QC"), Decision.AGAIN)
    data = json.loads(json.dumps(record_to_dict(record)))
    assert data["game"] == "landsknecht"
    assert record_from_dict(data) == record
    with pytest.raises(ValueError, match="not a landsknecht record"):
        record_from_dict({**data, "game": "macao"})


# ---------------------------------------------------------------------------------------------
# Properties

HOUSES = st.builds(
    HouseSettings,
    decks=st.integers(1, 3),
    min_stake=st.sampled_from([1, 10]),
    doublet=st.sampled_from(list(Doublet)),
    after_take=st.sampled_from(list(AfterTake)),
    again_stake=st.sampled_from(list(AgainStake)),
    fund_backs_uncovered=st.booleans(),
)


@st.composite
def tables(draw: st.DrawFn) -> Table:
    punters = draw(st.lists(st.sampled_from(["bob", "cid", "dan", "eve"]), unique=True, max_size=4))
    opening = draw(st.sampled_from(list(Opening)))
    previous = 0 if opening is Opening.NEW_BANK else draw(st.sampled_from([5, 20, 40, 200]))
    return Table(
        "ann", tuple(punters), fund=draw(st.sampled_from([0, 15, 500])), opening=opening, previous=previous
    )


PLAYERS = st.sampled_from(["ann", "bob", "cid", "zed", "fund"])
ANY_MOVE = st.one_of(
    st.builds(PutStake, st.integers(-5, 250)),
    st.builds(Cover, PLAYERS, st.integers(-5, 250)),
    st.just(CloseCovers()),
    st.builds(Deal, st.sampled_from([*ALL_CARDS, "ZZ", "10H"])),
    st.builds(Decide, st.sampled_from(list(Decision))),
)

PROPS = settings(max_examples=300, deadline=None)


@PROPS
@given(house=HOUSES, table=tables(), data=st.data())
def test_machine_and_judge_agree(house: HouseSettings, table: Table, data: st.DataObject) -> None:
    if table.opening is not Opening.NEW_BANK and table.previous < house.min_stake:
        with pytest.raises(IllegalMove, match="below the minimum stake"):
            start(table, house)
        return
    state = start(table, house)
    steps = 0
    while state.phase is not Phase.OVER:
        moves = next_moves(state)
        assert moves, f"no way forward in {state.phase}"  # every non-final state has a legal move
        for move in moves[:5]:
            assert refusal(state, move) is None
        other = data.draw(st.none() | ANY_MOVE)
        if other is not None:
            # any move at all: refused with a reason and nothing applied, or accepted and then the
            # coup must still judge clean (the menu is not the only legal amounts)
            reason = refusal(state, other)
            if reason is None:
                state = apply(state, other)
                steps += 1
                continue
            with pytest.raises(IllegalMove) as refused:
                apply(state, other)
            assert str(refused.value) == reason
        move = data.draw(st.sampled_from(moves))
        state = apply(state, move)
        steps += 1
        assert steps < 400
    record = to_record(state)
    verdict = judge(record, house)
    assert verdict.violations == ()
    assert verdict.outcome is state.outcome
    assert verdict.fund_cover == state.fund_cover
    nets = verdict.settlement.nets()
    assert sum(nets.values()) == 0
    assert all(t.amount > 0 for t in verdict.settlement.transfers)
    assert verdict.fund_after >= 0
    counts = Counter(record.cards)
    assert max(counts.values(), default=0) <= house.decks
    if state.outcome in (Outcome.BANKER, Outcome.PUNTERS):
        assert abs(nets.get("ann", 0)) == verdict.at_risk > 0
    after = next_table(record, verdict)
    if state.outcome is not Outcome.UNDECIDED:
        assert after is not None
        start(after, house)  # the next coup can always begin
    # the record survives JSON
    assert record_from_dict(json.loads(json.dumps(record_to_dict(record)))) == record


@PROPS
@given(
    house=HOUSES,
    table=tables(),
    stake=st.integers(-5, 300),
    covers=st.lists(
        st.builds(Cover, st.sampled_from(["ann", "bob", "cid", "zed"]), st.integers(-5, 300)), max_size=4
    ),
    cards=st.lists(st.sampled_from([*ALL_CARDS[:12], "??"]), max_size=12),
    decision=st.none() | st.sampled_from(list(Decision)),
)
def test_the_judge_settles_any_record_to_zero(
    house: HouseSettings,
    table: Table,
    stake: int,
    covers: list[Cover],
    cards: list[str],
    decision: Decision | None,
) -> None:
    verdict = judge(Record(table, stake, tuple(covers), tuple(cards), decision), house)
    assert sum(verdict.settlement.nets().values()) == 0
    assert all(t.amount > 0 and t.payer != t.payee for t in verdict.settlement.transfers)
    over = Counter(c for c in cards if c != "??")
    assert (Code.IMPOSSIBLE_CARD in [v.code for v in verdict.violations]) == any(
        n > house.decks for n in over.values()
    )


@PROPS
@given(house=HOUSES, data=st.data())
def test_the_machine_never_deals_a_card_the_shoe_no_longer_holds(
    house: HouseSettings, data: st.DataObject
) -> None:
    state = apply(
        apply(apply(start(TABLE, house), PutStake(house.min_stake)), Cover("bob", 1)), CloseCovers()
    )
    while state.phase is Phase.DEAL:
        card = data.draw(st.sampled_from(ALL_CARDS[:8]))  # a few ranks, so the shoe runs short
        reason = refusal(state, Deal(card))
        if reason is None:
            state = apply(state, Deal(card))
        else:
            assert state.seen.get(card, 0) == house.decks
            with pytest.raises(IllegalMove):
                apply(state, Deal(card))
            state = apply(state, next_moves(state)[-1])  # deal on from what is left
    assert max(Counter(state.cards).values()) <= house.decks


# ---------------------------------------------------------------------------------------------
# Odds


@pytest.mark.parametrize("decks", [1, 2, 3, 4, 6, 8])
def test_exact_odds_match_the_closed_form(decks: int) -> None:
    """The banker wins the doublet, and the race after two different ranks is even (each side has
    4d - 1 cards of its rank left), so his edge is exactly the doublet's chance (4d-1)/(52d-1)."""
    odds = exact_odds(HouseSettings(decks=decks))
    doublet = Fraction(4 * decks - 1, 52 * decks - 1)
    assert odds.doublet_chance == doublet
    assert odds.banker_edge == doublet
    assert odds.banker_win + odds.punters_win + odds.standoff == 1
    # expected position of the first of 2(4d-1) marked cards among the 52d-2 others left
    race = Fraction(52 * decks - 2 + 1, 2 * (4 * decks - 1) + 1)
    assert odds.expected_cards == doublet * 2 + (1 - doublet) * (2 + race)
    fair = exact_odds(HouseSettings(decks=decks, doublet=Doublet.STANDOFF))
    assert (fair.banker_edge, fair.standoff) == (0, doublet)


def test_exact_odds_printed_for_two_decks() -> None:
    odds = exact_odds(DEFAULT)
    assert (odds.decks, odds.banker_edge, odds.banker_win, odds.punters_win) == (
        2,
        Fraction(7, 103),
        Fraction(55, 103),
        Fraction(48, 103),
    )
    assert exact_odds(DEFAULT, decks=4).banker_edge == Fraction(5, 69)


@pytest.mark.parametrize("house", [DEFAULT, HouseSettings(decks=4), HouseSettings(doublet=Doublet.STANDOFF)])
def test_exact_odds_against_monte_carlo(house: HouseSettings) -> None:
    began = time.perf_counter()
    run = monte_carlo(house, coups=200_000, seed=12)
    exact = float(exact_odds(house).banker_edge)
    assert abs(run.mean - exact) < 4 * run.stderr
    assert time.perf_counter() - began < 10
