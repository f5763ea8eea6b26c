"""``record_from_dict`` and the optional keys written ``null``, and the records' limit of chips.

Only ``shoe_next`` takes ``null`` ("none known", docs/coup-record.md); ``house_limit``, ``chip_unit``
and ``active_punter`` are left out when they say nothing, and a line that writes them ``null`` is
malformed, as a live table could not have played it. The writer never writes them ``null``, so an
export reads back, and writes again, byte for byte."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest

from chemin_de_fer.engine.interchange import record_from_dict, record_to_dict
from chemin_de_fer.engine.profiles import BUILTIN
from core.records import MAX_RECORD_CHIPS, RecordError, record_loads

RECORD: dict[str, Any] = {
    "id": "r",
    "profile": "casino",
    "bank": 100,
    "bets": [{"punter": "seat-1", "amount": 60}, {"punter": "seat-2", "amount": 40}],
    "banco": False,
    "first_coup_of_bank": False,
    "player": {"cards": ["2H", "3C", "9H"], "action": "draw"},
    "banker": {"cards": ["AS", "2D", "5S"], "action": "draw"},
    "shoe_next": [],
}


def refusal(data: dict[str, Any]) -> str:
    with pytest.raises(RecordError) as caught:
        record_from_dict(data, known_profiles=BUILTIN)
    assert (caught.value.record_id, caught.value.has_id) == ("r", True)
    return caught.value.message


@pytest.mark.parametrize(
    ("key", "sentence"),
    [
        ("house_limit", "house_limit must be a positive integer, not null"),
        ("chip_unit", "chip_unit must be a positive integer, not null"),
        ("active_punter", "active_punter must be a punter's name"),
    ],
)
def test_an_optional_key_written_null_is_malformed(key: str, sentence: str) -> None:
    assert refusal({**RECORD, key: None}) == sentence


def test_shoe_next_null_is_none_known() -> None:
    assert record_from_dict({**RECORD, "shoe_next": None}, known_profiles=BUILTIN).shoe_next == ()


AT_MOST = "must be a positive integer of at most 1,000,000,000,000 chips, not"


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        ({"bank": MAX_RECORD_CHIPS + 1}, f"bank {AT_MOST} 1000000000001"),
        ({"bets": [{"punter": "seat-1", "amount": 2**63}]}, f"bet 1: amount {AT_MOST} {2**63}"),
        ({"house_limit": 2**64}, f"house_limit {AT_MOST} {2**64}"),
        ({"chip_unit": 10**20}, f"chip_unit {AT_MOST} 100000000000000000000"),
        ({"bank": 0}, "bank must be a positive integer, not 0"),
        ({"house_limit": -1}, "house_limit must be a positive integer, not -1"),
        ({"chip_unit": 1.0}, "chip_unit must be a positive integer, not 1.0"),
    ],
)
def test_amounts_above_the_limit_say_the_limit(changes: dict[str, Any], sentence: str) -> None:
    assert refusal({**RECORD, **changes}) == sentence


def test_amounts_at_the_limit_are_read() -> None:
    at = MAX_RECORD_CHIPS
    bets = [{"punter": "seat-1", "amount": at}]
    data = {**RECORD, "bank": at, "bets": bets, "house_limit": at, "chip_unit": at}
    record = record_from_dict(data, known_profiles=BUILTIN)
    assert (record.bank, record.bets[0].amount, record.house_limit, record.chip_unit) == (at, at, at, at)


@pytest.mark.parametrize(
    "changes",
    [{}, {"house_limit": 500}, {"chip_unit": 5}, {"active_punter": "seat-1"}],
)
def test_the_writer_never_writes_null_and_a_record_reads_back_byte_for_byte(changes: dict[str, Any]) -> None:
    record = record_from_dict({**RECORD, **changes}, known_profiles=BUILTIN)
    line = orjson.dumps(record_to_dict(record))
    assert b"null" not in line
    again = record_from_dict(record_loads(line), known_profiles=BUILTIN)
    assert again == record and orjson.dumps(record_to_dict(again)) == line
    blank = replace(record, house_limit=None, chip_unit=1, active_punter=None)
    assert {"house_limit", "chip_unit", "active_punter"}.isdisjoint(record_to_dict(blank))
