"""``validate_coups`` (chemin_de_fer/engine/validator.py) writes a verdict whose numbers orjson
cannot write.

orjson reads an integer up to 2**64 - 1, but writes nothing below -2**63: a record with a bank, a
stake, a fund or a unit of 2**64 - 1 was read and judged, and then its verdict (a net of
-(2**64 - 1), a win of twice it) could not be written, so the line came out as
``{"error": "unreadable record: Integer exceeds 64-bit range"}`` without its id. Now such a verdict
is written by the standard ``json`` encoder in the same compact form (no spaces, UTF-8, the keys in
the same order), with its id. Each test failed before its fix (but the last, which checks the
ordinary lines did not change)."""

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
from older_games.engine import landsknecht, macao
from older_games.engine.games import JUDGES

ROOT = Path(__file__).resolve().parents[3]
HUGE = 2**64 - 1  # the largest integer orjson reads

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
    "fund": HUGE,
    "stake": HUGE,
    "covers": [{"punter": "bob", "amount": HUGE}],
    "cards": ["7S", "9H", "9D"],
    "decision": None,
}
LANDSKNECHT_FUND = {**LANDSKNECHT, "id": "huge-fund", "covers": []}  # the fund covers it all
MACAO = {
    "id": 7,
    "game": "macao",
    "unit": HUGE,
    "banker": "Ann",
    "punters": ["Bob", "Cy", "Dee"],
    "deal": ["KD", "6S", "3H", "5C"],
    "turns": [[["discard", "8H"]], [["draw", "7D"]], [["draw", "5S"]], [["draw", "2D"]]],
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


def macao_verdict(line: dict[str, Any]) -> dict[str, Any]:
    record = macao.record_from_dict(line)
    return macao.verdict_to_dict(macao.judge(record), line["id"])


def validate(*lines: dict[str, Any]) -> list[bytes]:
    out = io.BytesIO()
    summary = validate_lines([orjson.dumps(x) for x in lines], out, others=JUDGES)
    assert summary.malformed == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (CHEMIN, chemin_verdict),
        (LANDSKNECHT, landsknecht_verdict),
        (LANDSKNECHT_FUND, landsknecht_verdict),
        (MACAO, macao_verdict),
    ],
    ids=["chemin de fer bank and bet", "landsknecht stake and cover", "landsknecht fund", "macao unit"],
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


def test_the_huge_numbers_are_the_judges_own() -> None:
    (chemin,) = validate(CHEMIN)
    settlement = json.loads(chemin)["settlement"]
    assert (settlement["banker_net"], settlement["punters"]) == (HUGE, {"seat-2": -HUGE})
    (stake,) = validate(LANDSKNECHT)
    verdict = json.loads(stake)
    assert verdict["settlement"]["net"] == {"ann": -HUGE, "bob": HUGE}
    assert (verdict["at_risk"], verdict["fund_after"]) == (HUGE, HUGE)


def test_the_lines_around_it_keep_their_order_and_their_orjson_bytes() -> None:
    ordinary = {**CHEMIN, "id": "ordinary", "bank": 100, "bets": [{"punter": "seat-2", "amount": 100}]}
    lines = validate(ordinary, CHEMIN, LANDSKNECHT, ordinary)
    assert [json.loads(x)["id"] for x in lines] == ["ordinary", "huge-bank-é", "huge-stake", "ordinary"]
    assert lines[0] == lines[3] == orjson.dumps(chemin_verdict(ordinary))


def test_the_command_prints_the_verdict_line_with_its_id(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(x) for x in (CHEMIN, LANDSKNECHT, MACAO)) + b"\n")
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
    assert done.stdout.splitlines() == [
        compact(chemin_verdict(CHEMIN)),
        compact(landsknecht_verdict(LANDSKNECHT)),
        compact(macao_verdict(MACAO)),
    ]
    assert "malformed" not in done.stderr.decode() or ", 0 malformed" in done.stderr.decode()
