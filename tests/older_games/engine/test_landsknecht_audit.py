"""Landsknecht: two defects a rules audit found in the offline judge (older_games/engine/landsknecht.py).

1. Covers beyond the stake were settled in full: a punter covers the banker's stake "with the same
   sum" ("идёт на неё (то есть вносит такую же)", seed 004), so what is at risk is at most the
   stake. The covers are taken in the order recorded until the stake is covered; the excess of the
   cover that crosses it and every later cover are not at risk (the finding stays). And a cover by
   the name ``fund`` (the reserve fund's own name, never a player's) was merged into the fund's
   account as if the fund had covered: it is left out of the settlement as the banker's own cover
   is (the finding stays); the fund answers only by its own rule, up to its balance.
2. A fund return with chips in the fund and nobody who paid into it was ``returned`` with the fund
   left full: the rule returns the fund to those who paid into it and the fund ends empty, so such a
   record is ``bad-fund-return`` and nothing is settled.

The live machine already refuses both covers: each refusal is checked here with the state
unchanged, and the offline verdict agrees with the coup the live machine plays instead. Each test
failed before its fix."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.validator import validate_lines
from core.sentence import Sentence
from older_games.engine import game_play
from older_games.engine.games import JUDGES
from older_games.engine.landsknecht import (
    FUND,
    CloseCovers,
    Code,
    Consent,
    Cover,
    Deal,
    Decision,
    FundReturnRecord,
    HouseSettings,
    IllegalMove,
    Opening,
    Outcome,
    PutStake,
    Record,
    State,
    Table,
    apply,
    judge,
    judge_fund_return,
    refusal,
    start,
    to_record,
)
from older_games.engine.landsknecht import Transfer as T

PROPS = settings(max_examples=300, deadline=None)


def validate_one(data: dict[str, Any]) -> dict[str, Any]:
    out = io.BytesIO()
    validate_lines([orjson.dumps(data)], out, others=JUDGES)
    (line,) = out.getvalue().splitlines()
    result: dict[str, Any] = json.loads(line)
    return result


def line(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "l",
        "game": "landsknecht",
        "banker": "ann",
        "punters": ["bob", "cid"],
        "fund": 0,
        "stake": 100,
        "covers": [],
        "cards": ["7S", "9H", "9D"],
        "decision": None,
    }
    return {**base, **fields}


def covers(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    return [{"punter": p, "amount": a} for p, a in pairs]


def transfers(*triples: tuple[str, str, int]) -> list[dict[str, Any]]:
    return [{"payer": a, "payee": b, "amount": n} for a, b, n in triples]


EXCEED_120 = {"code": "covers-exceed-stake", "detail": "covers of 120 exceed the stake of 100"}
FUND_NOT_PUNTER = {"code": "cover-by-non-punter", "detail": "'fund' is not a punter at this table"}
NOT_AGREED = "who had not agreed to share it"
VOID_CARDS = {"code": "cards-after-decision", "detail": "nothing was covered: no card is turned"}

# ---------------------------------------------------------------------------------------------
# 1. what is at risk is at most the stake; a cover by the name "fund" moves no chip of the fund

#: (record's changes, outcome, violations, transfers, at_risk, fund_cover, fund_after)
CASES: dict[str, tuple[dict[str, Any], str, list[dict[str, str]], list[dict[str, Any]], int, int, int]] = {
    # the audit's record: ann paid 120 on a stake of 100; cid's cover crosses it, 20 of it is at risk
    "the audit's record": (
        {"covers": covers(("bob", 80), ("cid", 40)), "consent": ["bob", "cid"]},
        "punters",
        [EXCEED_120],
        transfers(("ann", "bob", 80), ("ann", "cid", 20)),
        100,
        0,
        0,
    ),
    "the banker wins the capped covers": (
        {
            "covers": covers(("bob", 80), ("cid", 40)),
            "consent": ["bob", "cid"],
            "cards": ["7S", "9H", "7D"],
            "decision": "take",
        },
        "banker",
        [EXCEED_120],
        transfers(("bob", "ann", 80), ("cid", "ann", 20)),
        100,
        0,
        0,
    ),
    # a cover after the stake is covered is not at risk at all: no transfer of 0
    "a later cover is not at risk": (
        {
            "punters": ["bob", "cid", "dan"],
            "fund": 500,
            "covers": covers(("bob", 60), ("cid", 40), ("dan", 30)),
            "consent": ["bob", "cid", "dan"],
        },
        "punters",
        [{"code": "covers-exceed-stake", "detail": "covers of 130 exceed the stake of 100"}],
        transfers(("ann", "bob", 60), ("ann", "cid", 40)),
        100,
        0,
        500,
    ),
    "one cover above the stake": (
        {"fund": 500, "covers": covers(("bob", 150))},
        "punters",
        [{"code": "covers-exceed-stake", "detail": "covers of 150 exceed the stake of 100"}],
        transfers(("ann", "bob", 100)),
        100,
        0,
        500,
    ),
    # a stranger's cover is settled as played (the money was on the table), capped in its turn
    "a stranger's cover crosses the stake": (
        {"covers": covers(("bob", 80), ("zed", 40))},
        "punters",
        [{"code": "cover-by-non-punter", "detail": "'zed' is not a punter at this table"}, EXCEED_120],
        transfers(("ann", "bob", 80), ("ann", "zed", 20)),
        100,
        0,
        0,
    ),
    # without consent only the first punter's cover is in play (as before): the fund the rest
    "a split without consent, over the stake": (
        {"fund": 500, "covers": covers(("bob", 80), ("cid", 40))},
        "punters",
        [
            EXCEED_120,
            *(
                {"code": "split-without-consent", "detail": f"the stake was shared with {p}, {NOT_AGREED}"}
                for p in ("bob", "cid")
            ),
        ],
        transfers(("ann", "bob", 80), ("ann", "fund", 20)),
        100,
        20,
        520,
    ),
    # the banker's own "cover" is not at risk and does not count towards the stake
    "the banker's own cover": (
        {"covers": covers(("ann", 50), ("bob", 120))},
        "punters",
        [
            {"code": "cover-by-non-punter", "detail": "'ann' is not a punter at this table"},
            {"code": "covers-exceed-stake", "detail": "covers of 120 exceed the stake of 100"},
        ],
        transfers(("ann", "bob", 100)),
        100,
        0,
        0,
    ),
    # the audit's record: a cover by the name "fund" with the fund empty. Nothing is at risk (the
    # fund holds nothing): the coup is void, and its cards are too many
    "a cover by the name fund, the fund empty": (
        {"covers": covers((FUND, 100))},
        "void",
        [FUND_NOT_PUNTER, VOID_CARDS],
        [],
        0,
        0,
        0,
    ),
    # with chips in the fund the punters refused the stake (nobody else covered): the banker plays
    # it against the fund by its own rule, up to its balance (30), not the 100 the line names
    "a cover by the name fund, the fund holds 30": (
        {"fund": 30, "covers": covers((FUND, 100))},
        "punters",
        [FUND_NOT_PUNTER],
        transfers(("ann", "fund", 30)),
        30,
        30,
        60,
    ),
    # bob covered 60: the fund answers for the other 40 by the rule (fund_cover 40, not 0)
    "a cover by the name fund beside a punter's": (
        {"fund": 500, "covers": covers(("bob", 60), (FUND, 40))},
        "punters",
        [FUND_NOT_PUNTER],
        transfers(("ann", "bob", 60), ("ann", "fund", 40)),
        100,
        40,
        540,
    ),
    "a cover by the name fund beside a punter's, the banker wins": (
        {
            "fund": 500,
            "covers": covers(("bob", 60), (FUND, 40)),
            "cards": ["7S", "9H", "7D"],
            "decision": "take",
        },
        "banker",
        [FUND_NOT_PUNTER],
        transfers(("bob", "ann", 60), ("fund", "ann", 40)),
        100,
        40,
        460,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_verdict_line(name: str) -> None:
    changes, outcome, violations, moved, at_risk, fund_cover, fund_after = CASES[name]
    verdict = validate_one(line(**changes))
    assert verdict["id"] == "l"
    assert verdict["outcome"] == outcome
    assert verdict["violations"] == violations
    assert verdict["settlement"]["transfers"] == moved
    assert sum(verdict["settlement"]["net"].values()) == 0
    assert (verdict["at_risk"], verdict["fund_cover"]) == (at_risk, fund_cover)
    assert verdict["fund_after"] == fund_after


def test_without_the_fund_backing_the_rest_a_cover_by_the_name_fund_moves_nothing() -> None:
    # fund_backs_uncovered false: what bob leaves stays out of play; the line's "fund" cover of 40
    # used to be paid to the fund all the same
    verdict = validate_one(
        line(fund=500, covers=covers(("bob", 60), (FUND, 40)), settings={"fund_backs_uncovered": False})
    )
    assert verdict["violations"] == [FUND_NOT_PUNTER]
    assert verdict["settlement"] == {
        "transfers": transfers(("ann", "bob", 60)),
        "net": {"ann": -60, "bob": 60},
    }
    assert (verdict["at_risk"], verdict["fund_cover"], verdict["fund_after"]) == (60, 0, 500)


@pytest.mark.parametrize("fund", [0, 30, 500])
@pytest.mark.parametrize("backs", [True, False])
@pytest.mark.parametrize("cards", [("7S", "9H", "9D"), ("7S", "9H", "7D")])
@pytest.mark.parametrize("others", [(), (Cover("bob", 60),), (Cover("bob", 100),)])
def test_a_cover_by_the_name_fund_is_settled_as_the_bankers_own_cover_is(
    fund: int, backs: bool, cards: tuple[str, ...], others: tuple[Cover, ...]
) -> None:
    house = HouseSettings(fund_backs_uncovered=backs)
    table = Table("ann", ("bob", "cid"), fund=fund)
    decision = Decision.TAKE if cards[-1][0] == "7" else None
    by_fund = judge(Record(table, 100, (*others, Cover(FUND, 40)), cards, decision), house)
    by_banker = judge(Record(table, 100, (*others, Cover("ann", 40)), cards, decision), house)
    assert replace(by_fund, violations=()) == replace(by_banker, violations=())
    assert [v.code for v in by_fund.violations] == [v.code for v in by_banker.violations]
    assert Code.COVER_BY_NON_PUNTER in [v.code for v in by_fund.violations]


# --- the live machine refuses both, and plays the coup the offline judge settles


def _covering(table: Table, stake: int = 100) -> State:
    return apply(start(table), PutStake(stake))


def test_the_live_machine_refuses_a_cover_beyond_the_stake_and_the_judge_agrees() -> None:
    table = Table("ann", ("bob", "cid"), fund=0)
    state = apply(apply(apply(_covering(table), Consent("bob")), Consent("cid")), Cover("bob", 80))
    before = state
    assert refusal(state, Cover("cid", 40)) == "only 20 of the stake is left to cover"
    with pytest.raises(IllegalMove, match="only 20 of the stake is left to cover"):
        apply(state, Cover("cid", 40))
    assert state == before and state.covers == (Cover("bob", 80),)
    # the live coup covers what is left, 20, and the offline verdict of the over-covered record
    # settles exactly that coup
    for move in (Cover("cid", 20), CloseCovers(), Deal("7S"), Deal("9H"), Deal("9D")):
        state = apply(state, move)
    live = judge(to_record(state))
    over = (Cover("bob", 80), Cover("cid", 40))
    offline = judge(Record(table, 100, over, ("7S", "9H", "9D"), None, ("bob", "cid")))
    assert live.violations == ()
    assert [v.code for v in offline.violations] == [Code.COVERS_EXCEED_STAKE]
    assert offline.settlement == live.settlement
    assert live.settlement.transfers == (T("ann", "bob", 80), T("ann", "cid", 20))
    assert (offline.outcome, offline.at_risk, offline.fund_cover, offline.fund_after) == (
        state.outcome,
        100,
        state.fund_cover,
        0,
    )
    # and the floor's verdict of a record (game_play) is the judge's
    play = game_play.LandsknechtPlay()
    record = {**line(covers=covers(("bob", 80), ("cid", 40)), consent=["bob", "cid"])}
    assert play.verdict(HouseSettings(), record)["settlement"]["transfers"] == transfers(
        ("ann", "bob", 80), ("ann", "cid", 20)
    )


@pytest.mark.parametrize("fund", [0, 30, 500])
def test_the_live_machine_refuses_a_cover_by_the_name_fund_and_the_judge_agrees(fund: int) -> None:
    table = Table("ann", ("bob", "cid"), fund=fund)
    state = _covering(table)
    before = state
    assert refusal(state, Cover(FUND, 100)) == "'fund' is not a punter at this table"
    with pytest.raises(IllegalMove, match="'fund' is not a punter at this table"):
        apply(state, Cover(FUND, 100))
    assert state == before and state.covers == ()
    # the live coup: nobody covers, the covers close, the fund answers by its rule (or void)
    state = apply(state, CloseCovers())
    if state.outcome is not Outcome.VOID:
        for card in ("7S", "9H", "9D"):
            state = apply(state, Deal(card))
    live = judge(to_record(state))
    cards = ("7S", "9H", "9D") if fund else ()
    offline = judge(Record(table, 100, (Cover(FUND, 100),), cards))
    assert live.violations == ()
    assert [v.code for v in offline.violations] == [Code.COVER_BY_NON_PUNTER]
    assert (offline.outcome, offline.settlement, offline.at_risk, offline.fund_cover, offline.fund_after) == (
        live.outcome,
        live.settlement,
        live.at_risk,
        live.fund_cover,
        live.fund_after,
    )


HOUSES = st.builds(
    HouseSettings,
    decks=st.sampled_from([1, 2]),
    min_stake=st.sampled_from([1, 10]),
    fund_backs_uncovered=st.booleans(),
)


@PROPS
@given(
    house=HOUSES,
    fund=st.sampled_from([0, 15, 500]),
    opening=st.sampled_from(list(Opening)),
    stake=st.integers(-5, 300),
    covered=st.lists(
        st.builds(Cover, st.sampled_from(["ann", "bob", "cid", "zed", FUND]), st.integers(-5, 300)),
        max_size=5,
    ),
    consent=st.lists(st.sampled_from(["bob", "cid"]), unique=True),
    cards=st.sampled_from([("7S", "9H", "9D"), ("7S", "9H", "7D"), ("7S", "7H"), ("7S", "9H")]),
)
def test_the_banker_never_wins_or_loses_more_than_his_stake_and_the_fund_only_by_its_rule(
    house: HouseSettings,
    fund: int,
    opening: Opening,
    stake: int,
    covered: list[Cover],
    consent: list[str],
    cards: tuple[str, ...],
) -> None:
    previous = 0 if opening is Opening.NEW_BANK else 20
    table = Table("ann", ("bob", "cid"), fund=fund, opening=opening, previous=previous)
    verdict = judge(Record(table, stake, tuple(covered), cards, None, tuple(consent)), house)
    nets = verdict.settlement.nets()
    assert sum(nets.values()) == 0
    assert 0 <= verdict.at_risk <= max(stake, 0)
    assert abs(nets.get("ann", 0)) <= max(stake, 0)
    # the fund moves by its own cover only, never by a line's cover in its name
    settled = verdict.outcome in (Outcome.BANKER, Outcome.PUNTERS)
    assert abs(nets.get(FUND, 0)) == (verdict.fund_cover if settled else 0)
    assert verdict.fund_after == fund + nets.get(FUND, 0) >= 0
    # each coverer is at risk at most what he covered
    for c in covered:
        if c.punter not in ("ann", FUND):
            own = sum(max(d.amount, 0) for d in covered if d.punter == c.punter)
            assert abs(nets.get(c.punter, 0)) <= own
    # the findings are the record's, capped or not; a negative stake is found as a stake below
    # the minimum and nothing more (no covers "exceed" it: none of it can be covered)
    codes = [v.code for v in verdict.violations]
    assert (Code.COVERS_EXCEED_STAKE in codes) == (
        stake >= 0 and sum(max(c.amount, 0) for c in covered if c.punter not in ("ann", FUND)) > stake
    )
    if stake < 0:
        assert Code.STAKE_BELOW_MINIMUM in codes
    assert (Code.COVER_BY_NON_PUNTER in codes) == any(c.punter not in ("bob", "cid") for c in covered)


# ---------------------------------------------------------------------------------------------
# 2. a fund nobody paid into cannot be returned by the rule

NOBODY_PAID = (
    "the fund holds {fund} chips but nobody paid into it: the rule returns it only to those who paid"
)


@pytest.mark.parametrize(
    ("fields", "outcome", "violations", "settlement"),
    [
        # the audit's record
        (
            {"fund": 100, "paid": [], "returned": None},
            None,
            [{"code": "bad-fund-return", "detail": NOBODY_PAID.format(fund=100)}],
            None,
        ),
        (
            {"fund": 1, "paid": [], "rule": "equal"},
            None,
            [{"code": "bad-fund-return", "detail": NOBODY_PAID.format(fund=1)}],
            None,
        ),
        (
            {"fund": 100, "paid": [], "returned": [{"player": "ann", "amount": 100}]},
            None,
            [{"code": "bad-fund-return", "detail": NOBODY_PAID.format(fund=100)}],
            None,
        ),
        # every fault its own finding
        (
            {"fund": 100, "paid": [{"player": "ann", "amount": 0}]},
            None,
            [
                {"code": "bad-fund-return", "detail": "ann's payment of 0 into the fund is not positive"},
            ],
            None,
        ),
        # an empty fund nobody paid into: nothing to return, and nothing wrong
        ({"fund": 0, "paid": []}, "returned", [], {"transfers": [], "net": {}}),
        (
            {"fund": 100, "paid": [{"player": "ann", "amount": 10}]},
            "returned",
            [],
            {"transfers": transfers(("fund", "ann", 100)), "net": {"fund": -100, "ann": 100}},
        ),
    ],
)
def test_a_fund_return_verdict(
    fields: dict[str, Any],
    outcome: str | None,
    violations: list[dict[str, str]],
    settlement: dict[str, Any] | None,
) -> None:
    verdict = validate_one({"id": "r", "game": "landsknecht", "kind": "fund-return", **fields})
    assert verdict == {
        "id": "r",
        "game": "landsknecht",
        "kind": "fund-return",
        "outcome": outcome,
        "violations": violations,
        "settlement": settlement,
    }


def test_a_fund_nobody_paid_into_is_a_bad_return_in_the_engine() -> None:
    verdict = judge_fund_return(FundReturnRecord(100, ()))
    expected = [(Code.BAD_FUND_RETURN, NOBODY_PAID.format(fund=100))]
    assert [(v.code, v.message) for v in verdict.violations] == expected
    message = verdict.violations[0].message
    assert isinstance(message, Sentence) and message.pattern == NOBODY_PAID  # said(), for the catalogue
    assert verdict.settlement.transfers == ()


def test_the_live_fund_return_of_a_fund_nobody_paid_into_posts_nothing() -> None:
    # the floor's planned return (game_play) gives nobody anything when nobody paid; the services
    # post no return at all then (older_games.services.game_fund_return_locked: "if not paid")
    planned = game_play.LandsknechtPlay().fund_return(HouseSettings(), [], 100)
    assert planned["returned"] == []
