"""``import_coups`` (tables/services/imports.py, ``MAX_CHIPS``) and a record whose bank and bet are
2**64 - 1: ``validate_coups`` judges it (tests/chemin_de_fer/engine/test_validator_huge_integers.py),
the import refuses it with a sentence that names the line, the record's id and the amount, writing
nothing."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from tables.models import Coup
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



def _import(tmp_path: Path, table, croupier) -> tuple[list[dict], str, int]:
    path = tmp_path / "huge.jsonl"
    path.write_bytes(orjson.dumps(RECORD) + b"\n")
    return run(path, table, croupier)


def test_the_import_refuses_a_record_beyond_its_limit_and_writes_nothing(croupier, table, tmp_path) -> None:
    lines, _summary, code = _import(tmp_path, table, croupier)
    assert code == 1
    assert lines == [
        {
            "line": 1,
            "id": "huge-bank",
            "error": f"the bank of {HUGE} chips is more than 1,000,000,000,000 (the import's limit)",
        }
    ]
    assert Coup.objects.filter(shoe__table=table).count() == 0


def test_the_import_refusal_names_the_records_id(croupier, table, tmp_path) -> None:
    lines, _summary, _code = _import(tmp_path, table, croupier)
    assert "huge-bank" in json.dumps(lines[0])
