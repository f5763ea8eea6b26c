"""``validate_coups`` (chemin_de_fer/engine/validator.py) and integers beyond what orjson handles.

orjson reads an integer up to 2**64 - 1 exactly, one beyond 64 bits as a float
(``100000000000000000000`` as ``1e+20``), and writes nothing outside -2**63 .. 2**64 - 1. So:

- every line is read with ``core.records.record_loads``: its integers exact, so a refusal quotes
  the number the line wrote (``not 100000000000000000000``, never ``not 1e+20``);
- every game's reader refuses an amount of chips above ``MAX_RECORD_CHIPS`` (10**12, the import's
  limit too) as a malformed line: a bank, a stake, a fund or a unit of 2**64 - 1 is no longer
  judged offline while ``import_coups`` refuses it;
- a verdict that still holds an integer orjson cannot write (an id beyond 64 bits, a Landsknecht
  fund far below -2**63, which the judge flags) is written by the standard ``json`` encoder in the
  same compact form (no spaces, UTF-8, the keys in the same order), with its id."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from chemin_de_fer.engine.interchange import record_from_dict, verdict_to_dict
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.validator import validate_lines
from core.records import MAX_RECORD_CHIPS
from older_games.engine import landsknecht
from older_games.engine.games import JUDGES

ROOT = Path(__file__).resolve().parents[3]
HUGE = 2**64 - 1  # the largest integer orjson reads exactly
BEYOND = 10**20  # beyond 64 bits: orjson alone reads it as 1e+20
BEYOND_TEXT = "100000000000000000000"
AT_MOST = "of at most 1,000,000,000,000 chips"

CHEMIN = {
    "id": "huge-bank-é",
    "profile": "home",
    "bank": HUGE,
    "bets": [{"punter": "seat-2", "amount": HUGE}],
    "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
    "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
}
LANDSKNECHT = {
    "id": "huge-stake",
    "game": "landsknecht",
    "banker": "ann",
    "punters": ["bob"],
    "fund": 0,
    "stake": HUGE,
    "covers": [{"punter": "bob", "amount": 100}],
    "cards": ["7S", "9H", "9D"],
    "decision": None,
}
MACAO = {
    "id": 7,
    "game": "macao",
    "unit": HUGE,
    "banker": "Ann",
    "punters": ["Bob", "Cy", "Dee"],
    "deal": ["KD", "6S", "3H", "5C"],
    "turns": [[["discard", "8H"]], [["draw", "7D"]], [["draw", "5S"]], [["draw", "2D"]]],
}
OLD_BACCARAT = {
    "id": "huge-punter-stake",
    "game": "old-baccarat",
    "banker": "bk",
    "punters": [{"player": "A", "stake": HUGE}],
    "cut_by": "A",
    "deal": ["3S", "2H", "2D", "3H"],
}


def compact(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def chemin_verdict(line: dict[str, Any]) -> dict[str, Any]:
    known = {slug: Rules.for_profile(p) for slug, p in BUILTIN.items()}
    record = record_from_dict(line, known_profiles=known)
    return verdict_to_dict(judge_coup(record, Rules.for_profile(BUILTIN[record.profile])))


def landsknecht_verdict(line: dict[str, Any]) -> dict[str, Any]:
    verdict = landsknecht.judge(landsknecht.record_from_dict(line))
    return landsknecht.verdict_to_dict(verdict, line["id"])


def validate_bytes(*lines: bytes) -> list[bytes]:
    out = io.BytesIO()
    validate_lines(list(lines), out, others=JUDGES)
    return out.getvalue().splitlines()


def validate(*lines: dict[str, Any]) -> list[bytes]:
    # the standard encoder: it writes any integer, as a person's or another tool's file may
    return validate_bytes(*(json.dumps(x).encode() for x in lines))


def refusal(id_: object, sentence: str) -> bytes:
    return compact({"id": id_, "error": sentence})


@pytest.mark.parametrize(
    ("line", "sentence"),
    [
        (CHEMIN, f"bank must be a positive integer {AT_MOST}, not {HUGE}"),
        (LANDSKNECHT, f"stake must be a whole number {AT_MOST}, not {HUGE}"),
        (MACAO, f"unit must be a whole number {AT_MOST}, not {HUGE}"),
        (OLD_BACCARAT, f"punter 1: stake must be a whole number {AT_MOST}, not {HUGE}"),
    ],
    ids=["chemin de fer bank", "landsknecht stake", "macao unit", "old baccarat stake"],
)
def test_every_games_reader_refuses_chips_beyond_the_limit(line: dict[str, Any], sentence: str) -> None:
    assert validate(line) == [refusal(line["id"], sentence)]


@pytest.mark.parametrize(
    ("line", "sentence"),
    [
        ({**CHEMIN, "bank": BEYOND}, f"bank must be a positive integer {AT_MOST}, not {BEYOND_TEXT}"),
        (
            {**CHEMIN, "bank": 100, "bets": [{"punter": "seat-2", "amount": BEYOND}]},
            f"bet 1: amount must be a positive integer {AT_MOST}, not {BEYOND_TEXT}",
        ),
        ({**LANDSKNECHT, "stake": BEYOND}, f"stake must be a whole number {AT_MOST}, not {BEYOND_TEXT}"),
        (
            {**LANDSKNECHT, "stake": 100, "covers": [{"punter": "bob", "amount": BEYOND}]},
            f"cover 1's amount must be a whole number {AT_MOST}, not {BEYOND_TEXT}",
        ),
        ({**MACAO, "unit": BEYOND}, f"unit must be a whole number {AT_MOST}, not {BEYOND_TEXT}"),
        (
            {**OLD_BACCARAT, "punters": [{"player": "A", "stake": BEYOND}]},
            f"punter 1: stake must be a whole number {AT_MOST}, not {BEYOND_TEXT}",
        ),
    ],
    ids=["bank", "bet", "landsknecht stake", "landsknecht cover", "macao unit", "old baccarat stake"],
)
def test_an_integer_beyond_64_bits_is_quoted_as_the_line_wrote_it(
    line: dict[str, Any], sentence: str
) -> None:
    assert type(orjson.loads(BEYOND_TEXT)) is float  # orjson alone reads it as 1e+20
    assert validate(line) == [refusal(line["id"], sentence)]


def test_amounts_at_the_limit_are_judged() -> None:
    limit = MAX_RECORD_CHIPS
    at_limit = {**CHEMIN, "bank": limit, "bets": [{"punter": "seat-2", "amount": limit}]}
    (written,) = validate(at_limit)
    assert written == orjson.dumps(chemin_verdict(at_limit))
    settlement = json.loads(written)["settlement"]
    assert (settlement["banker_net"], settlement["punters"]) == (limit, {"seat-2": -limit})


ID_BEYOND = {**CHEMIN, "id": BEYOND, "bank": 100, "bets": [{"punter": "seat-2", "amount": 100}]}
FUND_BELOW = {**LANDSKNECHT, "id": "fund-below", "fund": -(2**64), "stake": 100}  # flagged, judged


@pytest.mark.parametrize(
    ("line", "expected"),
    [(ID_BEYOND, chemin_verdict), (FUND_BELOW, landsknecht_verdict)],
    ids=["an id beyond 64 bits", "a landsknecht fund of -2**64"],
)
def test_a_verdict_orjson_cannot_write_is_written_with_its_id(line: dict[str, Any], expected: Any) -> None:
    verdict = expected(line)
    with pytest.raises(orjson.JSONEncodeError):  # the case at hand: orjson refuses this verdict
        orjson.dumps(verdict)
    (written,) = validate(line)
    assert written == compact(verdict)  # the same compact form, keys in the same order
    parsed = json.loads(written)
    assert parsed["id"] == line["id"] and "error" not in parsed
    assert list(parsed) == list(verdict)


def test_the_landsknecht_fund_below_minus_2_63_is_the_judges_finding() -> None:
    (written,) = validate(FUND_BELOW)
    verdict = json.loads(written)
    assert verdict["violations"] == [
        {"code": "bad-table", "detail": f"the fund's balance is negative ({-(2**64)})"}
    ]
    assert verdict["fund_after"] == -(2**64)


def test_the_lines_around_it_keep_their_order_and_their_orjson_bytes() -> None:
    ordinary = {**CHEMIN, "id": "ordinary", "bank": 100, "bets": [{"punter": "seat-2", "amount": 100}]}
    lines = validate(ordinary, CHEMIN, ID_BEYOND, LANDSKNECHT, ordinary)
    ids = [json.loads(x)["id"] for x in lines]
    assert ids == ["ordinary", "huge-bank-é", BEYOND, "huge-stake", "ordinary"]
    assert lines[0] == lines[4] == orjson.dumps(chemin_verdict(ordinary))


def test_the_command_prints_the_same_lines(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    lines = (CHEMIN, LANDSKNECHT, MACAO, OLD_BACCARAT, ID_BEYOND, {**CHEMIN, "bank": BEYOND})
    path.write_bytes(b"\n".join(json.dumps(x).encode() for x in lines) + b"\n")
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none",  # the command needs no database
        "DJANGO_SETTINGS_MODULE": "casino.settings.base",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "validate_coups", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 1  # malformed lines
    assert done.stdout.splitlines() == [
        refusal(CHEMIN["id"], f"bank must be a positive integer {AT_MOST}, not {HUGE}"),
        refusal(LANDSKNECHT["id"], f"stake must be a whole number {AT_MOST}, not {HUGE}"),
        refusal(MACAO["id"], f"unit must be a whole number {AT_MOST}, not {HUGE}"),
        refusal(OLD_BACCARAT["id"], f"punter 1: stake must be a whole number {AT_MOST}, not {HUGE}"),
        compact(chemin_verdict(ID_BEYOND)),
        refusal(CHEMIN["id"], f"bank must be a positive integer {AT_MOST}, not {BEYOND_TEXT}"),
    ]
    assert "6 records, 0 with violations, 5 malformed" in done.stderr.decode()
