"""The interchange examples (copied from the spec into tests/data) give exactly their verdicts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tables.rules.validator import validate_lines

DATA = Path(__file__).resolve().parents[2] / "data"


def _pairs():
    coups = (DATA / "coups.jsonl").read_bytes().splitlines()
    verdicts = [json.loads(line) for line in (DATA / "verdicts.jsonl").read_text().splitlines()]
    assert len(coups) == len(verdicts) == 11
    return list(zip(coups, verdicts, strict=True))


@pytest.mark.parametrize(
    ("line", "expected"), _pairs(), ids=lambda x: x.get("id") if isinstance(x, dict) else ""
)
def test_example_verdict(line: bytes, expected: dict) -> None:
    out = io.BytesIO()
    validate_lines([line], out)
    assert json.loads(out.getvalue()) == expected


def test_whole_file_summary() -> None:
    out = io.BytesIO()
    with (DATA / "coups.jsonl").open("rb") as lines:
        summary = validate_lines(lines, out)
    assert (summary.lines, summary.malformed, summary.flagged) == (11, 1, 6)
    assert len(out.getvalue().splitlines()) == 11
