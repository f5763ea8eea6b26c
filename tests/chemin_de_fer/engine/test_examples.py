"""The interchange examples give exactly their verdicts: ``coups.jsonl``/``verdicts.jsonl`` are the
spec's own examples (COUP_RECORD.md), copied unchanged; ``coups_parity.jsonl``/
``verdicts_parity.jsonl`` are ours, for what the spec added later (SPECTATOR_BET_NOT_ALLOWED,
BANK_BELOW_MINIMUM, ``banco_suivi``: RULES.md §2, §3.1, §10). The spec's own file has since grown
the three procedural codes' examples (``X-limit``, ``X-suivi``, ``X-spectator-first``)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from chemin_de_fer.engine.validator import validate_lines
from tables.games import offline_judges

DATA = Path(__file__).resolve().parents[2] / "data"


#: (records, verdicts, how many lines)
EXAMPLE_FILES = (
    ("coups.jsonl", "verdicts.jsonl", 14),
    ("coups_parity.jsonl", "verdicts_parity.jsonl", 9),
    # every game's records (docs/coup-record.md, *Other games*)
    ("coups_games.jsonl", "verdicts_games.jsonl", 17),
)


def _pairs():
    pairs = []
    for coups_name, verdicts_name, n in EXAMPLE_FILES:
        coups = (DATA / coups_name).read_bytes().splitlines()
        verdicts = [json.loads(line) for line in (DATA / verdicts_name).read_text().splitlines()]
        assert len(coups) == len(verdicts) == n
        pairs += zip(coups, verdicts, strict=True)
    return pairs


@pytest.mark.parametrize(
    ("line", "expected"), _pairs(), ids=lambda x: x.get("id") if isinstance(x, dict) else ""
)
def test_example_verdict(line: bytes, expected: dict) -> None:
    out = io.BytesIO()
    validate_lines([line], out, others=offline_judges())
    assert json.loads(out.getvalue()) == expected


def test_whole_file_summary() -> None:
    out = io.BytesIO()
    with (DATA / "coups.jsonl").open("rb") as lines:
        summary = validate_lines(lines, out, others=offline_judges())
    assert (summary.lines, summary.malformed, summary.flagged) == (14, 1, 9)
    assert len(out.getvalue().splitlines()) == 14


def test_the_parity_examples_cover_both_new_codes_and_banco_suivi() -> None:
    """COUP_RECORD.md: every profile's spectator rule (RULES.md §10), the home minimum bank (§3.1)
    and a banco suivi (§2), each with its verdict; the procedural codes alone restore nothing."""
    out = io.BytesIO()
    with (DATA / "coups_parity.jsonl").open("rb") as lines:
        summary = validate_lines(lines, out, others=offline_judges())
    assert (summary.lines, summary.malformed, summary.flagged) == (9, 1, 5)
    verdicts = {v["id"]: v for v in map(json.loads, out.getvalue().splitlines())}
    codes = {i: [x["code"] for x in v.get("violations", [])] for i, v in verdicts.items()}
    assert codes == {
        "classic-spectator-bet": ["SPECTATOR_BET_NOT_ALLOWED"],
        "home-spectator-bet": ["SPECTATOR_BET_NOT_ALLOWED"],
        "club-spectator-banco": ["SPECTATOR_BET_NOT_ALLOWED"],
        "casino-spectator-banco": [],
        "home-bank-below-minimum": ["BANK_BELOW_MINIMUM"],
        "home-low-bank-spectator-and-a-wrong-stand": [
            "BANK_BELOW_MINIMUM",
            "SPECTATOR_BET_NOT_ALLOWED",
            "PLAYER_SHOULD_DRAW",
        ],
        "home-banco-lost": [],
        "home-banco-suivi": [],
        "suivi-without-banco": [],
    }
    restored = {i for i, v in verdicts.items() if v.get("restored")}
    assert restored == {"home-low-bank-spectator-and-a-wrong-stand"}
    assert verdicts["suivi-without-banco"]["error"] == "banco_suivi is only for a banco record"


def test_stream_lines_splits_across_blocks_exactly() -> None:
    from core.records import stream_lines

    data = b"one\ntwo\n\nthree-is-long\nfour"
    for chunk in (1, 2, 3, 5, 100):
        assert list(stream_lines(io.BytesIO(data), chunk=chunk)) == [
            b"one",
            b"two",
            b"",
            b"three-is-long",
            b"four",
        ]
    assert list(stream_lines(io.BytesIO(b"a\n"), chunk=1)) == [b"a"]
    assert list(stream_lines(io.BytesIO(b""))) == []
