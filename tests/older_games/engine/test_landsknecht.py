"""Landsknecht (older_games/engine/landsknecht.py): examples worked by hand from the source text
(shared/seeds/004_938fcc7d71e998c0.txt, section "ЛАНДСКНЕХТ"), properties of the live machine
against the offline judge, and the exact odds against a Monte-Carlo run."""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.cards import ALL_CARDS, card_code
from older_games.engine.landsknecht import (
    FUND,
    AfterTake,
    AgainStake,
    CloseCovers,
    Code,
    Consent,
    Cover,
    Deal,
    Decide,
    Decision,
    Doublet,
    FundReturn,
    FundReturnRecord,
    HouseSettings,
    IllegalMove,
    Opening,
    Outcome,
    Phase,
    PutStake,
    Record,
    Settlement,
    State,
    Table,
    Transfer,
    Violation,
    apply,
    exact_odds,
    fund_payins,
    fund_return,
    fund_return_from_dict,
    fund_return_to_dict,
    fund_return_verdict_to_dict,
    judge,
    judge_fund_return,
    monte_carlo,
    next_moves,
    next_table,
    record_from_dict,
    record_to_dict,
    refusal,
    start,
    to_record,
    verdict_to_dict,
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


BOTH = ("bob", "cid")


@pytest.mark.parametrize(
    ("covers", "fund", "cards", "nets", "fund_cover", "fund_after"),
    [
        # "разрешается, чтобы ставка была разделена между несколькими понтерами ... Если согласия не
        #  последует, то за остальную часть ставки отвечает запасной фонд": with both punters'
        #  consent, 60 + 20 + the fund's 20
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
        # a punter alone needs nobody's consent
        ((Cover("cid", 70),), 500, ("7S", "9H", "9D"), {"ann": -100, "cid": 70, FUND: 30}, 30, 530),
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
    verdict = judge(Record(table, 100, covers, cards, decision, consent=BOTH))
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
    void = judge(Record(replace(TABLE, fund=0), 100, (), ()), house)
    assert (void.outcome, void.violations, void.settlement.transfers, void.bank_passes) == (
        Outcome.VOID,
        (),
        (),
        False,
    )


@pytest.mark.parametrize("house", [DEFAULT, HouseSettings(fund_backs_uncovered=False)])
@pytest.mark.parametrize(
    ("fund", "cards", "nets", "fund_cover"),
    [
        # "Если игроки отказываются понтировать сумму, предложенную банкомётом, то он имеет право
        #  играть на капитал запасного фонда": under either setting
        (500, ("KS", "AH", "KD"), {"ann": 100, FUND: -100}, 100),
        (500, ("KS", "AH", "AD"), {"ann": -100, FUND: 100}, 100),
        (40, ("KS", "AH", "AD"), {"ann": -40, FUND: 40}, 40),
    ],
)
def test_a_stake_every_punter_refuses_is_played_against_the_fund(
    house: HouseSettings, fund: int, cards: tuple[str, ...], nets: dict[str, int], fund_cover: int
) -> None:
    won = nets["ann"] > 0
    verdict = judge(Record(replace(TABLE, fund=fund), 100, (), cards, Decision.TAKE if won else None), house)
    assert verdict.violations == ()
    assert (verdict.outcome, verdict.fund_cover, verdict.at_risk) == (
        Outcome.BANKER if won else Outcome.PUNTERS,
        fund_cover,
        fund_cover,
    )
    assert verdict.settlement.nets() == nets
    # the live machine plays the same coup: nobody covers, the covers close, the fund plays
    state = apply(apply(start(replace(TABLE, fund=fund), house), PutStake(100)), CloseCovers())
    assert (state.phase, state.fund_cover) == (Phase.DEAL, fund_cover)


def test_a_stake_split_without_consent_leaves_the_rest_to_the_fund() -> None:
    """ "Если согласия не последует, то за остальную часть ставки отвечает запасной фонд": cid's
    20 are not in play, the fund answers for the 40 bob leaves; each punter without consent is
    a finding."""
    covers = (Cover("bob", 60), Cover("cid", 20))
    cards = ("7S", "9H", "2C", "7D")
    alone = judge(Record(TABLE, 100, covers, cards, Decision.TAKE))
    assert [(v.code, v.message) for v in alone.violations] == [
        (Code.SPLIT_WITHOUT_CONSENT, "the stake was shared with bob, who had not agreed to share it"),
        (Code.SPLIT_WITHOUT_CONSENT, "the stake was shared with cid, who had not agreed to share it"),
    ]
    assert alone.settlement.nets() == {"ann": 100, "bob": -60, FUND: -40}
    assert (alone.fund_cover, alone.at_risk, alone.fund_after) == (40, 100, 460)
    half = judge(Record(TABLE, 100, covers, cards, Decision.TAKE, consent=("cid", "zed")))
    assert [v.code for v in half.violations] == [Code.CONSENT_BY_NON_PUNTER, Code.SPLIT_WITHOUT_CONSENT]
    assert half.violations[0].message == "'zed' agreed to share the stake but is not a punter at this table"
    assert half.settlement.nets() == {"ann": 100, "bob": -60, FUND: -40}


def test_the_machine_shares_a_stake_only_with_every_sharers_consent() -> None:
    state = apply(apply(start(TABLE), PutStake(100)), Cover("bob", 60))
    assert Cover("cid", 40) not in next_moves(state)
    with pytest.raises(IllegalMove, match="only with their consent; not agreed yet: bob, cid"):
        apply(state, Cover("cid", 40))
    state = apply(state, Consent("bob"))
    with pytest.raises(IllegalMove, match=r"not agreed yet: cid$"):
        apply(state, Cover("cid", 40))
    with pytest.raises(IllegalMove, match="bob has already agreed"):
        apply(state, Consent("bob"))
    state = apply(state, Consent("cid"))
    assert Cover("cid", 40) in next_moves(state)
    state = apply(apply(state, Cover("cid", 20)), CloseCovers())
    assert state.fund_cover == 20
    for card in ("7S", "9H", "7D"):
        state = apply(state, Deal(card))
    record = to_record(apply(state, Decide(Decision.TAKE)))
    assert record.consent == ("bob", "cid")
    verdict = judge(record)
    assert (verdict.violations, verdict.settlement.nets()) == (
        (),
        {"ann": 100, "bob": -60, "cid": -20, FUND: -20},
    )
    with pytest.raises(IllegalMove, match="while it is covered"):
        apply(start(TABLE), Consent("bob"))


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
    return replace(state, phase=phase)


def test_a_table_the_machine_cannot_start() -> None:
    with pytest.raises(IllegalMove, match="reserve fund's name"):
        start(Table("ann", ("fund",)))
    with pytest.raises(IllegalMove, match="sits once"):
        start(Table("ann", ("ann",)))
    with pytest.raises(IllegalMove, match="needs at least one punter besides the banker"):
        start(Table("ann", (), fund=500))


def test_a_table_without_a_punter_is_a_bad_table_and_the_rest_is_still_judged() -> None:
    """Every finding that can be judged: the bad table, the stake below the minimum, the cards
    after the decision and the missing decision, in table order; the coup settles as played."""
    record = Record(Table("ann", (), fund=500), 5, (), ("QH", "JS", "QC", "2D"))
    verdict = judge(record)
    assert [(v.code, v.message) for v in verdict.violations] == [
        (Code.BAD_TABLE, "a Landsknecht table needs at least one punter besides the banker"),
        (Code.STAKE_BELOW_MINIMUM, "the stake must be at least the minimum of 10"),
        (Code.CARDS_AFTER_DECISION, "1 card(s) after card 3 decided"),
        (Code.DECISION_MISSING, "the banker won: the banker takes or stakes again"),
    ]
    assert verdict.settlement.nets() == {"ann": 5, FUND: -5}


def test_every_fault_of_a_table_and_a_stake_is_its_own_finding() -> None:
    table = Table("ann", ("bob", "ann", "fund"), fund=-1, opening=Opening.AFTER_TAKE, previous=200)
    verdict = judge(Record(table, 5, (Cover("bob", 5),), ("QH", "JS", "QC"), Decision.TAKE))
    assert [(v.code, v.message) for v in verdict.violations] == [
        (Code.BAD_TABLE, "'fund' is the reserve fund's name, not a player's"),
        (Code.BAD_TABLE, "a player sits once, and the banker is not among the punters"),
        (Code.BAD_TABLE, "the fund's balance is negative (-1)"),
        (Code.STAKE_BELOW_MINIMUM, "the stake must be at least the minimum of 10"),
        (
            Code.STAKE_NOT_ALLOWED,
            "after a take the next bank stakes the sum just taken (200) or the minimum (10), not 5",
        ),
    ]


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
    punters = draw(
        st.lists(st.sampled_from(["bob", "cid", "dan", "eve"]), unique=True, min_size=1, max_size=4)
    )
    opening = draw(st.sampled_from(list(Opening)))
    previous = 0 if opening is Opening.NEW_BANK else draw(st.sampled_from([5, 20, 40, 200]))
    return Table(
        "ann", tuple(punters), fund=draw(st.sampled_from([0, 15, 500])), opening=opening, previous=previous
    )


PLAYERS = st.sampled_from(["ann", "bob", "cid", "zed", "fund"])
ANY_MOVE = st.one_of(
    st.builds(PutStake, st.integers(-5, 250)),
    st.builds(Cover, PLAYERS, st.integers(-5, 250)),
    st.builds(Consent, PLAYERS),
    st.just(CloseCovers()),
    st.builds(Deal, st.sampled_from([*ALL_CARDS, "ZZ", "1H"])),
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


# ---------------------------------------------------------------------------------------------
# Card positions are facts: a card that cannot be read holds the coup where it could have decided


@pytest.mark.parametrize(
    ("cards", "decision", "codes", "deciding"),
    [
        # the banker's card unreadable: before, "JS" became the banker's and "QC" the punters'
        # card, so the banker won a coup the punters won (TD against JS: JD comes first)
        (("1D", "JS", "QC", "JD"), None, [Code.BAD_CARD], None),
        # the punters' card unreadable
        (("QH", "1S", "5D", "QC"), Decision.TAKE, [Code.BAD_CARD], None),
        # a card between them that could have been of either rank
        (("QH", "JS", "1C", "JD"), None, [Code.BAD_CARD], None),
        (("QH", "JS", "", "5D", "QC"), Decision.TAKE, [Code.BAD_CARD], None),
        # the coup was over at card 5 (a queen) whatever the ten was: the sixth is one too many
        (("QH", "JS", "1C", "5D", "QC", "JD"), None, [Code.BAD_CARD, Code.CARDS_AFTER_DECISION], None),
        # two starting cards, one unreadable: a doublet or not, nobody can tell
        (("QH", "XX"), None, [Code.BAD_CARD], None),
        # one card only: undecided whatever it was
        (("1H",), None, [Code.BAD_CARD, Code.CARDS_MISSING], None),
        # after the deciding card: the record is still held, and what the cards do tell (who won,
        # so whether the banker should have decided) is judged
        (
            ("QH", "JS", "JC", "1D"),
            Decision.AGAIN,
            [Code.BAD_CARD, Code.CARDS_AFTER_DECISION, Code.DECISION_WITHOUT_WIN],
            2,
        ),
        (("QH", "QS", "1D"), None, [Code.BAD_CARD, Code.CARDS_AFTER_DECISION, Code.DECISION_MISSING], 1),
        (("QH", "QS", "1D"), Decision.TAKE, [Code.BAD_CARD, Code.CARDS_AFTER_DECISION], 1),
    ],
)
def test_an_unreadable_card_is_a_finding_at_its_position_and_holds_the_coup(
    cards: tuple[str, ...], decision: Decision | None, codes: list[Code], deciding: int | None
) -> None:
    record = Record(TABLE, 100, (Cover("bob", 100),), cards, decision)
    verdict = judge(record)
    assert [v.code for v in verdict.violations] == codes
    bad = next(i for i, c in enumerate(cards) if c not in ALL_CARDS)
    assert verdict.violations[0].message == f"card {bad + 1}: bad card {cards[bad]!r}"
    assert (verdict.outcome, verdict.deciding_card) == (None, deciding)
    # held: no outcome, no settlement, nothing passes, the fund untouched
    data = verdict_to_dict(verdict, "x")
    assert (data["outcome"], data["settlement"], data["bank_passes"], data["fund_after"]) == (
        None,
        None,
        None,
        500,
    )
    assert verdict.settlement.transfers == ()
    assert next_table(record, verdict) is None


def test_a_void_coup_stays_void_whatever_its_cards() -> None:
    verdict = judge(Record(replace(TABLE, fund=0), 100, (), ("1D",)))
    assert (verdict.outcome, [v.code for v in verdict.violations]) == (
        Outcome.VOID,
        [Code.BAD_CARD, Code.CARDS_AFTER_DECISION],
    )


def test_a_held_coup_still_reports_every_other_finding() -> None:
    """The stake, the covers and the cards after the coup was certainly over are judged; whether
    the banker won, and so whether he should have decided, is what cannot be read."""
    covers = (Cover("zed", 5), Cover("bob", 0))
    record = Record(TABLE, 5, covers, ("1D", "JS", "5C", "JD", "5H", "5H", "5H"), Decision.AGAIN)
    verdict = judge(record)
    assert [(v.code, v.message) for v in verdict.violations] == [
        (Code.STAKE_BELOW_MINIMUM, "the stake must be at least the minimum of 10"),
        (Code.COVER_BY_NON_PUNTER, "'zed' is not a punter at this table"),
        (Code.COVER_NOT_POSITIVE, "bob's cover of 0 is not positive"),
        (Code.BAD_CARD, "card 1: bad card '1D'"),
        (Code.IMPOSSIBLE_CARD, "5H seen 3 times, the shoe holds 2"),
        (Code.CARDS_AFTER_DECISION, "3 card(s) after card 4 decided"),
    ]
    assert (verdict.outcome, verdict.settlement, verdict.at_risk) == (None, Settlement(), 5)


@pytest.mark.parametrize("position", [0, 1, 2])
@pytest.mark.parametrize("bad", ["1D", "1S", "XX", "qh ", ""])
def test_the_machine_refuses_an_unreadable_card_and_keeps_the_position_open(position: int, bad: str) -> None:
    state = apply(apply(apply(start(TABLE), PutStake(100)), Cover("bob", 100)), CloseCovers())
    for card in ("QH", "JS")[:position]:
        state = apply(state, Deal(card))
    with pytest.raises(IllegalMove, match="bad card"):
        apply(state, Deal(bad))
    assert refusal(state, Deal(bad)) == f"bad card {bad!r}"
    # the card written right takes that very position: nothing moved
    after = apply(state, Deal("TD"))
    assert after.cards == (*state.cards, "TD")
    assert after.cards.index("TD") == position


# ---------------------------------------------------------------------------------------------
# Strict JSON: chips are JSON integers, names strings, lists lists

GOOD = record_to_dict(Record(TABLE, 100, (Cover("bob", 60),), ("QH", "JS", "QC"), Decision.AGAIN))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"stake": "10"}, 'stake must be a whole number of chips, not "10"'),
        ({"stake": 10.5}, "stake must be a whole number of chips, not 10.5"),
        ({"stake": 100.0}, "stake must be a whole number of chips, not 100.0"),
        ({"stake": True}, "stake must be a whole number of chips, not true"),
        ({"stake": None}, "stake must be a whole number of chips, not null"),
        ({"fund": "500"}, 'fund must be a whole number of chips, not "500"'),
        ({"fund": False}, "fund must be a whole number of chips, not false"),
        ({"previous": [0]}, "previous must be a whole number of chips, not [0]"),
        (
            {"covers": [{"punter": "bob", "amount": 60.0}]},
            "cover 1's amount must be a whole number of chips, not 60.0",
        ),
        (
            {"covers": [{"punter": "bob", "amount": 60}, {"punter": "cid", "amount": True}]},
            "cover 2's amount must be a whole number of chips, not true",
        ),
        (
            {"covers": [{"punter": 7, "amount": 60}]},
            "cover 1 must be {punter, amount} with the punter's name",
        ),
        ({"covers": {"bob": 60}}, 'covers must be a list of {punter, amount}, not {"bob": 60}'),
        ({"banker": 7}, "banker must be a player's name, not 7"),
        ({"banker": None}, "banker must be a player's name, not null"),
        ({"punters": "bob"}, 'punters must be a list of names, not "bob"'),
        ({"punters": ["bob", 2]}, 'punters must be a list of names, not ["bob", 2]'),
        ({"cards": "QHJSQC"}, 'cards must be a list of card codes, not "QHJSQC"'),
        ({"cards": ["QH", 10]}, 'cards must be a list of card codes, not ["QH", 10]'),
        ({"consent": "bob"}, 'consent must be a list of names, not "bob"'),
        ({"consent": [None]}, "consent must be a list of names, not [null]"),
        ({"opening": ["again"]}, 'opening must be one of new-bank, after-take, again, not ["again"]'),
        ({"opening": None}, "opening must be one of new-bank, after-take, again, not null"),
        ({"decision": 1}, "decision must be one of take, again, not 1"),
        ({"decision": "keep"}, 'decision must be one of take, again, not "keep"'),
        ({"game": ["landsknecht"]}, 'not a landsknecht record: ["landsknecht"]'),
    ],
)
def test_a_malformed_record_says_which_field(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        record_from_dict({**GOOD, **change})
    assert str(raised.value) == message


# ---------------------------------------------------------------------------------------------
# The fund's return at the end of play


@pytest.mark.parametrize(
    ("paid", "balance", "rule", "returned"),
    [
        # "каждый из игроков вносит заранее оговорённую сумму": equal dues, equal shares
        (
            (("ann", 10), ("bob", 10), ("cid", 10)),
            480,
            FundReturn.PROPORTIONAL,
            {"ann": 160, "bob": 160, "cid": 160},
        ),
        # in proportion to what each paid: 20 / 10 / 10 of 40
        (
            (("ann", 20), ("bob", 10), ("cid", 10)),
            100,
            FundReturn.PROPORTIONAL,
            {"ann": 50, "bob": 25, "cid": 25},
        ),
        # whole chips: 100 * 10/30 = 33.3 each, the chip left goes to the earliest of the equal remainders
        (
            (("ann", 10), ("bob", 10), ("cid", 10)),
            100,
            FundReturn.PROPORTIONAL,
            {"ann": 34, "bob": 33, "cid": 33},
        ),
        # 7 * 1/6, 2/6, 3/6 = 1.17, 2.33, 3.5: floors 1, 2, 3, the chip left to the largest remainder (cid)
        ((("ann", 1), ("bob", 2), ("cid", 3)), 7, FundReturn.PROPORTIONAL, {"ann": 1, "bob": 2, "cid": 4}),
        # a player who paid twice is one payer
        ((("ann", 10), ("bob", 10), ("ann", 10)), 90, FundReturn.PROPORTIONAL, {"ann": 60, "bob": 30}),
        # the house's other rule: equal shares whatever each paid
        ((("ann", 20), ("bob", 10), ("cid", 10)), 100, FundReturn.EQUAL, {"ann": 34, "bob": 33, "cid": 33}),
        ((("ann", 10), ("bob", 10)), 0, FundReturn.PROPORTIONAL, {}),
        ((("ann", 10), ("bob", 10)), 1, FundReturn.PROPORTIONAL, {"ann": 1}),
    ],
)
def test_the_fund_goes_back_to_those_who_paid_into_it(
    paid: tuple[tuple[str, int], ...], balance: int, rule: FundReturn, returned: dict[str, int]
) -> None:
    settlement = fund_return(paid, balance, rule)
    assert {t.payee: t.amount for t in settlement.transfers} == returned
    assert all(t.payer == FUND for t in settlement.transfers)
    assert settlement.nets().get(FUND, 0) == -balance  # the fund is empty after it
    record = FundReturnRecord(balance, paid, rule)
    assert fund_return_from_dict(json.loads(json.dumps(fund_return_to_dict(record)))) == record
    verdict = judge_fund_return(replace(record, returned=tuple(returned.items())))
    assert (verdict.violations, verdict.settlement) == ((), settlement)


@given(
    paid=st.lists(st.tuples(st.sampled_from(["ann", "bob", "cid", "dan"]), st.integers(1, 50)), min_size=1),
    balance=st.integers(0, 10_000),
    rule=st.sampled_from(list(FundReturn)),
)
def test_the_whole_fund_goes_back_and_never_more_than_a_chip_off_each_share(
    paid: list[tuple[str, int]], balance: int, rule: FundReturn
) -> None:
    settlement = fund_return(paid, balance, rule)
    got = {t.payee: t.amount for t in settlement.transfers}
    assert sum(got.values()) == balance
    totals = Counter[str]()
    for name, amount in paid:
        totals[name] += amount
    weights = dict(totals) if rule is FundReturn.PROPORTIONAL else dict.fromkeys(totals, 1)
    whole = sum(weights.values())
    for name, w in weights.items():
        assert abs(got.get(name, 0) - Fraction(balance * w, whole)) < 1


def test_a_fund_return_that_breaks_its_rule() -> None:
    record = FundReturnRecord(100, (("ann", 20), ("bob", 10)), returned=(("ann", 50), ("bob", 50)))
    verdict = judge_fund_return(record)
    assert [(v.code, v.message) for v in verdict.violations] == [
        (Code.FUND_RETURN_WRONG, "ann was given 50 of the fund, the proportional rule gives 67"),
        (Code.FUND_RETURN_WRONG, "bob was given 50 of the fund, the proportional rule gives 33"),
    ]
    assert verdict.settlement.nets() == {FUND: -100, "ann": 67, "bob": 33}
    bad = judge_fund_return(FundReturnRecord(-5, (("ann", 0),)))
    assert [v.code for v in bad.violations] == [Code.BAD_FUND_RETURN, Code.BAD_FUND_RETURN]
    assert fund_return_verdict_to_dict(bad, 3) == {
        "id": 3,
        "game": "landsknecht",
        "kind": "fund-return",
        "outcome": None,
        "violations": [
            {"code": "bad-fund-return", "detail": "the fund's balance is negative (-5)"},
            {"code": "bad-fund-return", "detail": "ann's payment of 0 into the fund is not positive"},
        ],
        "settlement": None,
    }
    with pytest.raises(ValueError, match=r"paid 1's amount must be a whole number of chips, not 10\.0"):
        fund_return_from_dict({"fund": 10, "paid": [{"player": "ann", "amount": 10.0}]})
    with pytest.raises(ValueError, match='rule must be one of proportional, equal, not "banker"'):
        fund_return_from_dict({"fund": 10, "paid": [], "rule": "banker"})


# ---------------------------------------------------------------------------------------------
# Properties of the rulings: held coups, strict chips, findings that do not hide each other


@st.composite
def played_records(draw: st.DrawFn, house: HouseSettings) -> Record:
    """A legal coup played out through the live machine (so its record judges clean)."""
    table = draw(tables())
    if table.opening is not Opening.NEW_BANK and table.previous < house.min_stake:
        table = replace(table, opening=Opening.NEW_BANK, previous=0)
    state = start(table, house)
    while state.phase is not Phase.OVER:
        state = apply(state, draw(st.sampled_from(next_moves(state))))
    return to_record(state)


#: what a croupier may write for a card that names none: an ace as 1, a typo, nothing (a ten as
#: 10 is a ten: RULES.md §11, core.cards.card_code)
UNREADABLE = st.sampled_from(["1D", "1H", "1S", "XX", "", "QX", "td", " 9H", "9h"]) | st.text(
    max_size=3
).filter(lambda t: card_code(t) is None)


@PROPS
@given(house=HOUSES, data=st.data())
def test_a_record_with_one_card_unreadable_is_never_settled(
    house: HouseSettings, data: st.DataObject
) -> None:
    record = data.draw(played_records(house).filter(lambda r: len(r.cards) >= 2))
    position = data.draw(st.integers(0, len(record.cards) - 1))
    bad = data.draw(UNREADABLE)
    cards = (*record.cards[:position], bad, *record.cards[position + 1 :])
    verdict = judge(replace(record, cards=cards), house)
    assert verdict.outcome is None
    assert verdict.settlement.transfers == ()
    assert (verdict.bank_passes, verdict.fund_after) == (None, record.table.fund)
    assert Violation(Code.BAD_CARD, f"card {position + 1}: bad card {bad!r}") in verdict.violations
    assert verdict_to_dict(verdict)["settlement"] is None


#: a JSON value that is no whole number of chips: a fraction, a whole float, a numeral, a boolean
NOT_CHIPS = (
    st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(-1000, 1000).map(float)
    | st.integers(0, 1000).map(str)
    | st.booleans()
    | st.none()
    | st.lists(st.integers(0, 9), max_size=2)
)


@PROPS
@given(house=HOUSES, data=st.data())
def test_any_non_integer_in_a_money_field_is_malformed(house: HouseSettings, data: st.DataObject) -> None:
    record = data.draw(played_records(house))
    line = json.loads(json.dumps(record_to_dict(record)))
    fields = ["stake", "fund", "previous", *(f"cover {n}" for n in range(1, len(record.covers) + 1))]
    field = data.draw(st.sampled_from(fields))
    value = data.draw(NOT_CHIPS)
    if field.startswith("cover "):
        n = int(field.split()[1])
        line["covers"][n - 1]["amount"] = value
        named = f"cover {n}'s amount must be a whole number of chips, not "
    else:
        line[field] = value
        named = f"{field} must be a whole number of chips, not "
    with pytest.raises(ValueError) as raised:
        record_from_dict(line)
    assert str(raised.value) == named + json.dumps(value)


def _fault_table(record: Record) -> Record:  # a punter named as the fund, who plays no part
    return replace(record, table=replace(record.table, punters=(*record.table.punters, FUND)))


def _fault_cover(record: Record) -> Record:  # a stranger's empty cover: nothing at risk
    return replace(record, covers=(*record.covers, Cover("zed", 0)))


def _fault_consent(record: Record) -> Record:
    return replace(record, consent=(*record.consent, "zed"))


def _fault_card(record: Record) -> Record:
    return replace(record, cards=("1D", *record.cards[1:]))


def _fault_decision(record: Record) -> Record:
    if record.decision is None:
        return replace(record, decision=Decision.AGAIN)
    return replace(record, decision=None)


FAULTS = {
    "table": _fault_table,
    "cover": _fault_cover,
    "consent": _fault_consent,
    "card": _fault_card,
    "decision": _fault_decision,
}
#: the pairs that are not independent: an unreadable card hides whether the banker won, so
#: whether he should have decided is no longer a finding
DEPENDENT = {frozenset({"card", "decision"})}


@PROPS
@given(house=HOUSES, data=st.data())
def test_the_findings_of_two_independent_faults_are_the_findings_of_each(
    house: HouseSettings, data: st.DataObject
) -> None:
    record = data.draw(played_records(house).filter(lambda r: len(r.cards) >= 2))
    pair = data.draw(
        st.sampled_from(
            [(a, b) for a in FAULTS for b in FAULTS if a < b and frozenset({a, b}) not in DEPENDENT]
        )
    )
    a, b = (FAULTS[name] for name in pair)
    assert judge(record, house).violations == ()

    def findings(r: Record) -> Counter[tuple[Code, str]]:
        return Counter((v.code, v.message) for v in judge(r, house).violations)

    alone_a, alone_b = findings(a(record)), findings(b(record))
    assert alone_a and alone_b
    assert findings(b(a(record))) == alone_a + alone_b
