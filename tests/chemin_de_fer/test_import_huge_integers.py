"""``import_coups`` and a record whose bank and bet are beyond the records' limit
(``core.records.MAX_RECORD_CHIPS``, 10**12): the reader refuses the line with the sentence
``validate_coups`` gives the same line (tests/chemin_de_fer/engine/test_validator_huge_integers.py),
naming the line, the record's id and the amount as the line wrote it, and writes nothing. The
import's own check (tables/services/imports.py, ``MAX_CHIPS``) stays behind it as a guard and never
speaks first."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from chemin_de_fer.engine.validator import validate_lines
from tables.models import Coup, ImportedRecord
from tests.tables.test_import_coups import run  # the command as a user runs it, its lines read

pytestmark = pytest.mark.django_db

HUGE = 2**64 - 1
RECORD = {
    "id": "huge-bank",
    "profile": "home",
    "bank": HUGE,
    "bets": [{"punter": "seat-2", "amount": HUGE}],
    "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
    "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
}
SMALL = {**RECORD, "bank": 100, "bets": [{"punter": "seat-2", "amount": 100}]}


def _import(tmp_path: Path, table, croupier, line: bytes) -> tuple[list[dict], str, int]:
    path = tmp_path / "huge.jsonl"
    path.write_bytes(line + b"\n")
    return run(path, table, croupier)


def _validated(line: bytes) -> dict:
    out = io.BytesIO()
    validate_lines([line], out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize(
    ("line", "sentence"),
    [
        (
            json.dumps(RECORD).encode(),
            f"bank must be a positive integer of at most 1,000,000,000,000 chips, not {HUGE}",
        ),
        (
            # beyond 64 bits: orjson alone read it as 1e+20, and the sentence said so
            json.dumps({**RECORD, "bank": 10**20}).encode(),
            "bank must be a positive integer of at most 1,000,000,000,000 chips, not 100000000000000000000",
        ),
        (
            json.dumps({**RECORD, "bank": 10**12, "bets": [{"punter": "seat-2", "amount": 10**12 + 1}]})
            .encode(),
            "bet 1: amount must be a positive integer of at most 1,000,000,000,000 chips, not 1000000000001",
        ),
        (
            json.dumps({**SMALL, "house_limit": 2**63}).encode(),
            f"house_limit must be a positive integer of at most 1,000,000,000,000 chips, not {2**63}",
        ),
    ],
    ids=["bank 2**64-1", "bank 10**20", "bet limit+1", "house limit 2**63"],
)
def test_the_import_refuses_a_record_beyond_the_limit_as_validate_coups_does(
    line: bytes, sentence: str, croupier, table, tmp_path
) -> None:
    lines, _summary, code = _import(tmp_path, table, croupier, line)
    assert code == 1
    assert lines == [{"line": 1, "id": "huge-bank", "error": sentence}]
    assert _validated(line) == {"id": "huge-bank", "error": sentence}
    assert Coup.objects.filter(shoe__table=table).count() == 0
    assert not ImportedRecord.objects.exists()
