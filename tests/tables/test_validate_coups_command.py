"""``manage.py validate_coups`` as an auditor runs it: no database, JSON Lines in and out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        # an address where no database listens: the command must not need one
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/none",
        "DJANGO_SETTINGS_MODULE": "casino.settings.base",
    }
    return subprocess.run(
        [sys.executable, "manage.py", "validate_coups", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        check=False,
        timeout=60,
    )


def test_the_examples_file_gives_exactly_the_expected_verdicts() -> None:
    done = run(str(DATA / "coups.jsonl"))
    expected = [json.loads(x) for x in (DATA / "verdicts.jsonl").read_text().splitlines()]
    assert [json.loads(x) for x in done.stdout.splitlines()] == expected
    assert done.returncode == 1  # one malformed line
    assert done.stderr.decode().strip() == "14 records, 9 with violations, 1 malformed"


def test_every_games_examples_give_exactly_the_expected_verdicts() -> None:
    """A history mixing chemin de fer, macao and landsknecht lines (and malformed ones), line by
    line; ``--profile`` changes nothing for the other games' lines."""
    expected = [json.loads(x) for x in (DATA / "verdicts_games.jsonl").read_text().splitlines()]
    for args in ((), ("--profile", "casino")):
        done = run(*args, str(DATA / "coups_games.jsonl"))
        got = [json.loads(x) for x in done.stdout.splitlines()]
        assert len(got) == len(expected) == 17
        for line, (verdict, want) in enumerate(zip(got, expected, strict=True), 1):
            assert verdict == want, f"line {line}"
        assert done.returncode == 1  # malformed lines
        assert done.stderr.decode().strip() == "17 records, 3 with violations, 7 malformed"


def test_a_clean_history_of_another_game_exits_zero() -> None:
    lines = (DATA / "coups_games.jsonl").read_bytes().splitlines()
    done = run("-", stdin=b"\n".join([lines[1], lines[7]]) + b"\n")
    assert done.returncode == 0
    assert [(v["id"], v["game"], v["outcome"]) for v in map(json.loads, done.stdout.splitlines())] == [
        ("macao-doc-example", "macao", "split"),
        ("landsknecht-doc-example", "landsknecht", "banker"),
    ]


def test_stdin_and_a_clean_history_exit_zero() -> None:
    lines = (DATA / "coups.jsonl").read_bytes().splitlines()[:2]
    done = run("-", stdin=b"\n".join(lines) + b"\n")
    assert done.returncode == 0
    assert [json.loads(x)["id"] for x in done.stdout.splitlines()] == [
        "home-seed-example",
        "casino-doc-example",
    ]


def test_profile_override() -> None:
    line = (DATA / "coups.jsonl").read_bytes().splitlines()[7]  # home, several punters stand on 3
    assert json.loads(run("-", stdin=line).stdout)["violations"][0]["code"] == "PLAYER_SHOULD_DRAW"
    overridden = json.loads(run("--profile", "casino", "-", stdin=line).stdout)
    assert overridden["violations"][0]["code"] == "PLAYER_SHOULD_DRAW"  # casino: draw on 3 as well
    single = json.loads(
        run("--profile", "home", "-", stdin=line.replace(b'"seat-8"', b'"seat-6"')).stdout
    )  # one punter betting twice: the home single-punter tableau, standing on 3 is free
    assert single["violations"] == []


def test_a_missing_file_is_a_clear_error() -> None:
    done = run("/no/such/file.jsonl")
    assert done.returncode == 1
    assert b"cannot read /no/such/file.jsonl" in done.stderr
    assert done.stdout == b""
