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


def test_stream_lines_splits_across_blocks_exactly() -> None:
    from tables.rules.validator import stream_lines

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
