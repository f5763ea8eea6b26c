"""``core.records.record_loads``: a record line's JSON value, its integers exact.

orjson reads an integer beyond 64 bits as a float; every reader of record lines (``validate_coups``,
``import_coups``) reads through ``record_loads``, so a refusal quotes the number as the line wrote
it (docs/coup-record.md: "A sentence quotes a value as the line wrote it, in JSON")."""

from __future__ import annotations

import json

import orjson
import pytest

from core.records import MAX_RECORD_CHIPS, MAX_RECORD_CHIPS_SAID, record_loads


@pytest.mark.parametrize(
    "number",
    [
        2**64,  # the first integer orjson reads as a float
        10**20,
        -(2**63) - 1,  # 19 digits: below orjson's smallest integer
        -(10**30),
        int("9" * 300),
    ],
)
def test_an_integer_orjson_reads_as_a_float_is_read_exactly(number: int) -> None:
    line = b'{"id": "x", "bank": %d, "bets": [{"amount": %d}]}' % (number, number)
    assert type(orjson.loads(line)["bank"]) is float  # the case at hand
    data = record_loads(line)
    assert data == {"id": "x", "bank": number, "bets": [{"amount": number}]}
    assert type(data["bank"]) is int


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": "x", "bank": 100, "shoe_next": ["AS"]}',
        b'{"id": "x", "bank": 18446744073709551615}',  # 2**64 - 1: orjson reads it exactly
        b'{"id": "x", "bank": -9223372036854775808}',  # -2**63 too
        # a long run of digits in a string, and floats: read twice, the same
        b'{"id": "12345678901234567890123", "bank": 1.5, "f": 1.2345678901234567e300}',
        b'{"a": 1, "a": 2, "t": true, "n": null, "s": "\\u00e9\\n"}',
    ],
)
def test_every_other_line_reads_as_orjson_reads_it(line: bytes) -> None:
    assert record_loads(line) == orjson.loads(line) == json.loads(line)


@pytest.mark.parametrize(
    "line",
    [
        b"NaN",
        b'{"bank": Infinity, "id": "12345678901234567890"}',
        b'{"bank": 1e999, "id": "12345678901234567890"}',  # too big for a float
        b'{"id": "\\ud800", "bank": 12345678901234567890123}',  # a lone surrogate
        b"[" * 1025 + b"1" * 20 + b"]" * 1025,  # deeper than orjson reads
        b'{"bank": 12345678901234567890123',
        b"\xef\xbb\xbf{}",
    ],
)
def test_what_orjson_refuses_is_refused_as_orjson_refuses_it(line: bytes) -> None:
    with pytest.raises(orjson.JSONDecodeError):
        record_loads(line)


def test_a_line_nested_deeper_than_the_standard_reader_keeps_orjsons_reading() -> None:
    """orjson reads 1,024 levels; the standard reader stops at Python's recursion limit: such a
    line is orjson's reading (a big number stays a float, which no reader takes for chips)."""
    line = b'{"bank": 100000000000000000000, "deep": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    data = record_loads(line)
    assert data["bank"] == 1e20 and type(data["bank"]) is float


def test_the_limit() -> None:
    assert MAX_RECORD_CHIPS == 10**12 and MAX_RECORD_CHIPS_SAID == "1,000,000,000,000"
