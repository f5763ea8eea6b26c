# ruff: noqa: RUF003  (the source is quoted in Russian: its Cyrillic letters are meant)
"""The older games' engines under RULES.md §11, as a reviewer's sweep found them wanting: the seat
order of old baccarat, one reading of a card everywhere, Macao's first bank by drawn cards, every
finding that can be judged (Macao, Landsknecht), the fund's answer to a split without consent, the
fund's name, and refusals that quote the JSON as written. Each test failed before its fix."""

from __future__ import annotations

import io
import json
from typing import Any

import orjson
import pytest

from chemin_de_fer.engine.validator import validate_lines
from core.cards import ALL_CARDS, CardError, card_code, parse_card
from older_games.engine import game_play, landsknecht, macao, old_baccarat
from older_games.engine.game_play import Seating, StepRefused, play_for
from older_games.engine.games import JUDGES
from older_games.engine.landsknecht import Code, Cover, Record, Table, judge


def validate_one(data: dict[str, Any]) -> dict[str, Any]:
    out = io.BytesIO()
    validate_lines([orjson.dumps(data)], out, others=JUDGES)
    (line,) = out.getvalue().splitlines()
    return json.loads(line)


# ------------------------------------------------------------------- 1. old baccarat: seat order
DEAL = ("2H", "3H", "4H", "5H", "AS", "2S", "5S", "AC")


def _stakes_in_reverse() -> tuple[Any, Any]:
    play = play_for("old-baccarat")
    seating = Seating("p1", ("p2", "p3", "p4"))  # clockwise from the banker's left
    steps: list[dict[str, Any]] = [
        *({"kind": "stake", "player": p, "amount": 5} for p in ("p4", "p3", "p2")),
        {"kind": "cut", "player": "p2"},
    ]
    return play, play.replay(play.settings({}), seating, steps)


def test_old_baccarat_deals_by_seat_not_by_the_order_the_stakes_came_in() -> None:
    play, state = _stakes_in_reverse()
    # "сначала по часовой стрелке всем игрокам": the first card to the banker's left
    first = play.options(state)[0]
    assert (first.kind, first.player, first.cards) == ("card", "p2", ALL_CARDS)
    for card in DEAL:
        state = play.step(state, {"kind": "card", "card": card})
    # the first round p2, p3, p4, the banker, the second p4, p3, p2, the banker: p2 7, p3 5, p4 5,
    # the banker 6, nobody holds a natural
    assert play.hands(state) == {
        "p2": ["2H", "5S"],
        "p3": ["3H", "2S"],
        "p4": ["4H", "AS"],
        "p1": ["5H", "AC"],
    }
    # "сначала карту получает понтер, сидящий с правой стороны": the banker's right is p4
    assert [o.as_dict() for o in play.options(state)][:2] == [
        {"kind": "draw", "player": "p4"},
        {"kind": "stand", "player": "p4"},
    ]
    record = play.record(state)
    assert record["punters"] == [
        {"player": "p2", "stake": 5},
        {"player": "p3", "stake": 5},
        {"player": "p4", "stake": 5},
    ]
    assert record["deal"] == list(DEAL)


def test_the_offline_judge_reads_the_exported_seat_order_as_the_table_dealt() -> None:
    play, state = _stakes_in_reverse()
    for card in DEAL:
        state = play.step(state, {"kind": "card", "card": card})
    for who in ("p4", "p2", "p3", "p1"):
        state = play.step(state, {"kind": "stand", "player": who})
    assert play.finished(state)
    record = play.record(state)
    verdict = play.verdict(play.settings({}), record)
    # p2 7, p3 5, p4 5 against the banker's 6: p2 wins, p3 and p4 lose
    assert (verdict["violations"], verdict["outcome"]) == ([], "split")
    assert [(r["player"], r["count"], r["result"]) for r in verdict["results"]] == [
        ("p2", 7, "win"),
        ("p3", 5, "loss"),
        ("p4", 5, "loss"),
    ]
    assert verdict["settlement"]["net"] == {"p1": 5, "p2": 5, "p3": -5, "p4": -5}
    assert [(t.payer, t.payee, t.amount) for t in play.transfers(state)] == [
        ("p1", "p2", 5),
        ("p3", "p1", 5),
        ("p4", "p1", 5),
    ]
    # the record replays through the machine to the same seats
    assert old_baccarat.replay(old_baccarat.OldBaccaratCoup.from_dict(record)).punters == state[0].punters


def test_a_newcomer_sits_after_the_seating_whenever_he_staked() -> None:
    state = old_baccarat.start(banker="b", seats=("a", "c"))
    for who in ("n", "c", "a"):
        state = old_baccarat.apply(state, old_baccarat.Move(old_baccarat.Kind.STAKE, who, 10))
    assert [s.player for s in state.punters] == ["a", "c", "n"]


# ------------------------------------------------------------------- 2. one reading of a card
@pytest.mark.parametrize(("written", "code"), [("10D", "TD"), ("TD", "TD"), ("10S", "TS"), ("AS", "AS")])
def test_a_ten_written_10_is_a_ten_in_a_record(written: str, code: str) -> None:
    assert card_code(written) == code


@pytest.mark.parametrize("written", ["1S", "1D", "10", "10X", "td", " 9H", "100D", "", 10, None])
def test_a_record_s_card_is_one_of_the_52_codes_or_a_ten_written_10(written: Any) -> None:
    assert card_code(written) is None


@pytest.mark.parametrize("typed", ["1S", "1d", "10", "10X", "100D", "", "T"])
def test_an_ace_typed_1_is_refused_as_it_is_in_a_record(typed: str) -> None:
    with pytest.raises(CardError) as refused:
        parse_card(typed)
    assert str(refused.value) == (
        f"bad card {typed!r}: a card is a rank (A, 2-9, T or 10, J, Q, K) and a suit (S, H, D, C), e.g. 9H"
    )


@pytest.mark.parametrize(("typed", "code"), [("10d", "TD"), (" 10H ", "TH"), ("td", "TD"), ("as", "AS")])
def test_a_typed_card_reads_as_a_record_does_case_aside(typed: str, code: str) -> None:
    assert parse_card(typed) == code


def test_a_macao_record_holding_10d_is_judged_as_one_holding_td() -> None:
    line = {"id": "m", "game": "macao", "unit": 10, "banker": "B", "punters": ["P"], "deal": ["10D", "5S"],
            "turns": [[["discard", "10H"]], []]}  # fmt: skip
    verdict = validate_one(line)
    assert verdict == validate_one({**line, "deal": ["TD", "5S"], "turns": [[["discard", "TH"]], []]})
    assert (verdict["violations"], verdict["outcome"]) == ([], "banker")
    held = validate_one({**line, "deal": ["1D", "5S"]})
    assert held["outcome"] is None
    assert held["violations"][0] == {"code": "bad-card", "detail": "Deal card 1 (to P): '1D' is not a card."}


def test_a_landsknecht_record_holding_10d_is_judged_as_one_holding_td() -> None:
    line = {"id": "l", "game": "landsknecht", "banker": "ann", "punters": ["bob"], "fund": 0, "stake": 50,
            "covers": [{"punter": "bob", "amount": 50}], "cards": ["10D", "JS", "QC", "JD"]}  # fmt: skip
    verdict = validate_one(line)
    assert verdict == validate_one({**line, "cards": ["TD", "JS", "QC", "JD"]})
    assert (verdict["violations"], verdict["outcome"]) == ([], "punters")
    held = validate_one({**line, "cards": ["1D", "JS", "QC", "JD"]})
    assert held["outcome"] is None
    assert held["violations"] == [{"code": "bad-card", "detail": "card 1: bad card '1D'"}]


def test_an_old_baccarat_record_holding_10d_is_judged_as_one_holding_td() -> None:
    line = {"id": "b", "game": "old-baccarat", "banker": "bk", "punters": [{"player": "A", "stake": 10}],
            "cut_by": "A", "deal": ["3S", "10D", "4S", "2D"],
            "draws": [{"player": "A", "card": "10H"}, {"player": "bk", "card": None}]}  # fmt: skip
    verdict = validate_one(line)
    draws = [{"player": "A", "card": "TH"}, {"player": "bk", "card": None}]
    assert verdict == validate_one({**line, "deal": ["3S", "TD", "4S", "2D"], "draws": draws})
    assert verdict["results"] == [{"player": "A", "stake": 10, "count": 17, "result": "win"}]


@pytest.mark.parametrize("game", ["macao", "landsknecht", "old-baccarat"])
def test_every_live_machine_takes_10d_as_the_ten_and_refuses_1s(game: str) -> None:
    play = play_for(game)
    seating = Seating("b", ("p",))
    steps: list[dict[str, Any]] = {  # type: ignore[assignment]
        "macao": [],
        "landsknecht": [{"kind": "stake", "amount": 10}, {"kind": "cover", "player": "p", "amount": 10},
                        {"kind": "close"}],
        "old-baccarat": [{"kind": "stake", "player": "p", "amount": 10}, {"kind": "cut", "player": "p"}],
    }[game]  # fmt: skip
    kind = "deal" if game == "macao" else "card"
    state = play.replay(play.settings({}), seating, steps)
    assert play.cards(play.step(state, {"kind": kind, "card": "10D"})) == ("TD",)
    with pytest.raises(StepRefused, match="'1S' is not a card"):
        play.step(state, {"kind": kind, "card": "1S"})


# ------------------------------------------------------------------- 3. Macao's first bank
def test_the_lowest_card_drawn_deals_first_the_ace_lowest() -> None:
    assert macao.first_banker({"ann": "KD", "bob": "AS", "cid": "2H"}) == "bob"
    assert macao.first_banker({"ann": "10D", "bob": "JS"}) == "ann"  # a ten written 10: below the jack
    assert macao.lowest_drawn({"ann": "5D", "bob": "5S", "cid": "9H"}) == ("ann", "bob")
    assert macao.first_banker({"ann": "5D", "bob": "5S"}) is None  # they draw again
    assert macao.lowest_drawn({}) == ()


def test_a_card_drawn_that_is_none_is_refused_with_a_sentence() -> None:
    with pytest.raises(macao.MacaoError, match=r"^bob drew '1S', which is not a card\.$"):
        macao.first_banker({"ann": "KD", "bob": "1S"})


# ------------------------------------------------------------------- 4. Macao: one finding, another
def test_a_draw_past_the_limit_is_found_whether_or_not_the_discard_before_it_was_legal() -> None:
    turns = [[], [], [["discard", "5S"], ["draw", "AS"], ["draw", "2S"]], []]
    line = {"game": "macao", "unit": 10, "banker": "B", "punters": ["P1", "P2", "P3"], "turns": turns}
    record = macao.record_from_dict({**line, "deal": ["2C", "3C", "XX", "4C"]})
    verdict = macao.judge(record)
    assert list(zip(verdict.codes, verdict.violations, strict=True)) == [
        ("bad-card", "Deal card 3 (to P3): 'XX' is not a card."),
        # request 2 is past the limit only if the discard was not legal: not a finding
        ("draw-past-limit", "P3, request 3: drew a card past the 2 this house allows."),
    ]
    assert verdict.settlement is None


def test_a_draw_over_9_under_every_reading_of_an_unknown_card_is_found() -> None:
    # XX thrown aside for 9S, or no zero there (then XX stays): 5S is past the limit only in the
    # second reading (no finding), 3S is a draw after going over 9 in both (a finding)
    turn = (macao.Action("discard", "9S"), macao.Action("draw", "5S"), macao.Action("draw", "3S"))
    verdict = macao.judge(macao.MacaoRecord(10, "B", ("P",), ("XX", "4C"), (turn, ())))
    assert list(zip(verdict.codes, verdict.violations, strict=True)) == [
        ("bad-card", "Deal card 1 (to P): 'XX' is not a card."),
        ("draw-after-over", "P, request 3: drew after going over 9."),
    ]


# ------------------------------------------------------------------- 5. Landsknecht: the decision
TABLE = Table("ann", ("bob", "cid"), fund=50)


def test_the_banker_s_missing_decision_is_found_when_the_cards_say_he_won() -> None:
    # 7S the banker's, then an unreadable card, then 7D: the banker's rank came again, and if the
    # unknown card was a seven too the doublet was his (the default): he won either way
    verdict = judge(Record(Table("ann", ("bob",)), 100, (Cover("bob", 100),), ("7S", "1X", "7D")))
    assert [(v.code, v.message) for v in verdict.violations] == [
        (Code.BAD_CARD, "card 2: bad card '1X'"),
        (Code.DECISION_MISSING, "the banker won: the banker takes or stakes again"),
    ]
    assert (verdict.outcome, verdict.settlement.transfers) == (None, ())


def test_where_the_doublet_is_a_standoff_the_unknown_card_leaves_the_decision_open() -> None:
    standoff = landsknecht.HouseSettings(doublet=landsknecht.Doublet.STANDOFF)
    verdict = judge(Record(Table("ann", ("bob",)), 100, (Cover("bob", 100),), ("7S", "1X", "7D")), standoff)
    assert [v.code for v in verdict.violations] == [Code.BAD_CARD]


# ------------------------------------------------------------------- 6. the fund and consent
@pytest.mark.parametrize("backs", [True, False])
def test_without_consent_the_fund_answers_for_the_rest_whatever_the_setting(backs: bool) -> None:
    settings = landsknecht.HouseSettings(fund_backs_uncovered=backs)
    covers = (Cover("bob", 60), Cover("cid", 20))
    record = Record(TABLE, 100, covers, ("7S", "9H", "7D"), landsknecht.Decision.TAKE)
    verdict = judge(record, settings)
    assert [(v.code, v.message) for v in verdict.violations] == [
        (Code.SPLIT_WITHOUT_CONSENT, "the stake was shared with bob, who had not agreed to share it"),
        (Code.SPLIT_WITHOUT_CONSENT, "the stake was shared with cid, who had not agreed to share it"),
    ]
    assert (verdict.fund_cover, verdict.at_risk) == (40, 100)
    assert [(t.payer, t.payee, t.amount) for t in verdict.settlement.transfers] == [
        ("bob", "ann", 60),
        ("fund", "ann", 40),
    ]


def test_a_part_the_punters_leave_uncovered_follows_the_setting() -> None:
    record = Record(TABLE, 100, (Cover("bob", 60),), ("7S", "9H", "7D"), landsknecht.Decision.TAKE)
    backs = judge(record)
    left = judge(record, landsknecht.HouseSettings(fund_backs_uncovered=False))
    assert (backs.fund_cover, backs.at_risk, left.fund_cover, left.at_risk) == (40, 100, 0, 60)


# ------------------------------------------------------------------- 7. the fund's name
@pytest.mark.parametrize(
    "line",
    [
        {"game": "landsknecht", "kind": "fund-return", "fund": 10, "paid": [{"player": "fund", "amount": 5}]},
        {"game": "landsknecht", "kind": "fund-return", "fund": 10, "paid": [{"player": "bob", "amount": 5}],
         "returned": [{"player": "fund", "amount": 10}]},
    ],
)  # fmt: skip
def test_a_fund_return_naming_a_player_fund_is_a_bad_one(line: dict[str, Any]) -> None:
    verdict = validate_one(line)
    assert verdict["outcome"] is None and verdict["settlement"] is None
    named = "'fund' is the reserve fund's name, not a player's"
    assert {"code": "bad-fund-return", "detail": named} in verdict["violations"]


def test_a_fund_return_naming_its_players_is_still_returned() -> None:
    paid = [{"player": "bob", "amount": 5}]
    verdict = validate_one({"game": "landsknecht", "kind": "fund-return", "fund": 10, "paid": paid})
    assert (verdict["outcome"], verdict["violations"]) == ("returned", [])
    assert verdict["settlement"]["net"] == {"fund": -10, "bob": 10}


# ------------------------------------------------------------------- 8. refusals quote the JSON
@pytest.mark.parametrize(
    ("game", "settings", "said"),
    [
        ("macao", {"count": 5}, "count is one of bust, modulo, not 5"),
        ("macao", {"banker_collects": None}, "banker_collects is one of scale, one, not null"),
        ("macao", {"count": "5"}, 'count is one of bust, modulo, not "5"'),
        ("macao", {"decks": True}, "decks is a whole number, not true"),
        ("macao", {"unit": "10"}, 'the unit is a positive whole number of chips, not "10"'),
        ("landsknecht", {"doublet": None}, "doublet is one of banker, standoff, not null"),
        ("old-baccarat", {"natural_stops_all_draws": 1}, "natural_stops_all_draws is true or false, not 1"),
        ("old-baccarat", {"min_stake": 10.0}, "min_stake is a whole number, not 10.0"),
    ],
)
def test_a_bad_setting_is_quoted_as_the_json_wrote_it(game: str, settings: dict[str, Any], said: str) -> None:
    with pytest.raises(StepRefused) as refused:
        game_play.play_for(game).settings(settings)
    assert str(refused.value) == said


def test_the_offline_judge_quotes_a_bad_setting_as_the_json_wrote_it() -> None:
    line = {"id": "m", "game": "macao", "unit": 10, "banker": "B", "punters": ["P"], "deal": ["2S", "5S"],
            "turns": [[], []], "settings": {"banker_collects": None}}  # fmt: skip
    assert validate_one(line)["error"] == "settings: banker_collects is one of scale, one, not null"
