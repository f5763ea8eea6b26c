"""The older games' readers and the records' limit of chips (``core.records.MAX_RECORD_CHIPS``),
and two of Landsknecht's findings (a negative fund said as what it is, a negative stake found once).

Every amount a record of another game names is at most 10**12 chips, as chemin de fer's (and
``import_coups``'s): a larger one makes the line malformed, with a sentence that gives the amount
as the line wrote it and the limit. Negative amounts stay the judges' findings."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from chemin_de_fer.engine.validator import validate_lines
from older_games.engine import landsknecht, macao
from older_games.engine.games import JUDGES
from older_games.engine.old_baccarat import OldBaccaratCoup

LIMIT = 10**12
OVER = LIMIT + 1
BEYOND = 10**20  # beyond 64 bits: quoted as written, never 1e+20
AT_MOST = "of at most 1,000,000,000,000 chips"

LANDSKNECHT: dict[str, Any] = {
    "id": "l",
    "game": "landsknecht",
    "banker": "ann",
    "punters": ["bob", "cid"],
    "fund": 0,
    "stake": 100,
    "covers": [{"punter": "bob", "amount": 60}],
    "cards": ["7S", "9H", "2C", "KD", "7D"],  # the banker's 7 comes again: he wins
    "decision": "take",
}
#: a void coup: nothing at risk, no card turned
NOTHING_DEALT: dict[str, Any] = {"cards": [], "decision": None}
FUND_RETURN: dict[str, Any] = {
    "id": "f",
    "game": "landsknecht",
    "kind": "fund-return",
    "fund": 100,
    "paid": [{"player": "bob", "amount": 10}],
}
MACAO: dict[str, Any] = {
    "id": "m",
    "game": "macao",
    "unit": 50,
    "banker": "Ann",
    "punters": ["Bob"],
    "deal": ["KD", "6S"],
    "turns": [[], []],
}
OLD_BACCARAT: dict[str, Any] = {
    "id": "o",
    "game": "old-baccarat",
    "banker": "bk",
    "punters": [{"player": "A", "stake": 10}, {"player": "B", "stake": 20}],
    "cut_by": "A",
    "deal": ["3S", "2H", "2D", "3H", "4S", "4D"],
}


def validated(record: dict[str, Any]) -> dict[str, Any]:
    out = io.BytesIO()
    validate_lines([json.dumps(record).encode()], out, others=JUDGES)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("amount", [OVER, 2**63, 2**64 - 1, BEYOND])
@pytest.mark.parametrize(
    ("record", "changes", "sentence"),
    [
        (LANDSKNECHT, lambda a: {"stake": a}, "stake must be a whole number {at_most}, not {a}"),
        (LANDSKNECHT, lambda a: {"fund": a}, "fund must be a whole number {at_most}, not {a}"),
        (
            LANDSKNECHT,
            lambda a: {"opening": "again", "previous": a},
            "previous must be a whole number {at_most}, not {a}",
        ),
        (
            LANDSKNECHT,
            lambda a: {"covers": [{"punter": "bob", "amount": 60}, {"punter": "cid", "amount": a}]},
            "cover 2's amount must be a whole number {at_most}, not {a}",
        ),
        (FUND_RETURN, lambda a: {"fund": a}, "fund must be a whole number {at_most}, not {a}"),
        (
            FUND_RETURN,
            lambda a: {"paid": [{"player": "bob", "amount": a}]},
            "paid 1's amount must be a whole number {at_most}, not {a}",
        ),
        (
            FUND_RETURN,
            lambda a: {"returned": [{"player": "bob", "amount": a}]},
            "returned 1's amount must be a whole number {at_most}, not {a}",
        ),
        (MACAO, lambda a: {"unit": a}, "unit must be a whole number {at_most}, not {a}"),
        (
            OLD_BACCARAT,
            lambda a: {"punters": [{"player": "A", "stake": 10}, {"player": "B", "stake": a}]},
            "punter 2: stake must be a whole number {at_most}, not {a}",
        ),
    ],
    ids=[
        "landsknecht stake",
        "landsknecht fund",
        "landsknecht previous",
        "landsknecht cover",
        "fund return fund",
        "fund return paid",
        "fund return returned",
        "macao unit",
        "old baccarat stake",
    ],
)
def test_an_amount_above_the_limit_is_a_malformed_line(record, changes, sentence, amount) -> None:
    line = {**record, **changes(amount)}
    assert validated(line) == {
        "id": record["id"],
        "error": sentence.format(at_most=AT_MOST, a=amount),
    }


@pytest.mark.parametrize(
    "record",
    [
        {**LANDSKNECHT, "stake": LIMIT, "fund": LIMIT, "covers": [{"punter": "bob", "amount": LIMIT}]},
        {**FUND_RETURN, "fund": LIMIT, "paid": [{"player": "bob", "amount": LIMIT}]},
        {**MACAO, "unit": LIMIT},
        {**OLD_BACCARAT, "punters": [{"player": "A", "stake": LIMIT}, {"player": "B", "stake": 20}]},
    ],
    ids=["landsknecht", "fund return", "macao", "old baccarat"],
)
def test_an_amount_at_the_limit_is_read_and_judged(record) -> None:
    verdict = validated(record)
    assert "error" not in verdict and verdict["id"] == record["id"]


def test_the_readers_say_it_themselves() -> None:
    """The readers the live tables' records go through too (older_games.engine.game_play)."""
    with pytest.raises(ValueError, match=f"^stake must be a whole number {AT_MOST}, not {BEYOND}$"):
        landsknecht.record_from_dict({**LANDSKNECHT, "stake": BEYOND})
    with pytest.raises(macao.MacaoError, match=f"^unit must be a whole number {AT_MOST}, not {OVER}$"):
        macao.record_from_dict({**MACAO, "unit": OVER})
    with pytest.raises(ValueError, match=f"^punter 1: stake must be a whole number {AT_MOST}, not {OVER}$"):
        OldBaccaratCoup.from_dict({**OLD_BACCARAT, "punters": [{"player": "A", "stake": OVER}]})


def test_a_negative_amount_is_still_the_judges_finding() -> None:
    """Only amounts above the limit are malformed: a negative one is read, and judged."""
    punters = [{"player": "A", "stake": -BEYOND}, {"player": "B", "stake": 20}]
    verdict = validated({**OLD_BACCARAT, "punters": punters})
    assert verdict["violations"][0] == {"code": "stake", "detail": f"A's stake {-BEYOND} is under 1"}


def test_a_negative_fund_is_said_negative() -> None:
    verdict = validated({**LANDSKNECHT, "fund": -5})
    said = "the fund's balance is negative (-5)"
    assert verdict["violations"] == [{"code": "bad-table", "detail": said}]
    verdict = validated({**FUND_RETURN, "fund": -5})
    assert verdict["violations"] == [{"code": "bad-fund-return", "detail": said}]
    with pytest.raises(ValueError, match=r"^the fund's balance is negative \(-5\)$"):
        landsknecht.fund_return([("bob", 10)], -5)


@pytest.mark.parametrize("covers", [[], [{"punter": "bob", "amount": 60}]])
def test_a_negative_stake_is_found_once_as_a_stake_below_the_minimum(covers) -> None:
    """``"stake": -10`` is read (a whole number) and judged: it is under the minimum, once; covers
    of 0 (or of 60) "exceeding" it are no finding of their own."""
    verdict = validated({**LANDSKNECHT, **NOTHING_DEALT, "stake": -10, "covers": covers})
    assert verdict["violations"] == [
        {"code": "stake-below-minimum", "detail": "the stake must be at least the minimum of 10"}
    ]
    assert (verdict["outcome"], verdict["at_risk"]) == ("void", 0)


def test_covers_beyond_a_stake_of_nothing_or_more_are_still_found() -> None:
    covers = [{"punter": "bob", "amount": 60}]
    verdict = validated({**LANDSKNECHT, **NOTHING_DEALT, "stake": 0, "covers": covers})
    assert [v["code"] for v in verdict["violations"]] == ["stake-below-minimum", "covers-exceed-stake"]
    verdict = validated({**LANDSKNECHT, "covers": [{"punter": "bob", "amount": 160}]})
    assert verdict["violations"] == [
        {"code": "covers-exceed-stake", "detail": "covers of 160 exceed the stake of 100"}
    ]
