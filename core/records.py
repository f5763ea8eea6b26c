"""A coup record line, whatever its game: the error of a malformed one, the judge that reads and
judges one game's records offline, and the lines of a history as a stream (``validate_coups``,
``import_coups``; docs/coup-record.md).

Pure Python, no Django: every game's engine reads its records through these, so that one
history of several games is read line by line by one loop (``chemin_de_fer.engine.validator``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeGuard

import orjson

#: the largest amount of chips a record may name (a chemin de fer bank, bet, house limit or chip
#: unit; an older game's stake, cover, fund, payment or unit): far above any table's, far below
#: what the ledger's 64-bit balances can add up. Every game's reader refuses a larger one as a
#: malformed line, so ``validate_coups`` and ``import_coups`` refuse it alike, with one sentence
MAX_RECORD_CHIPS = 10**12
#: the limit as a refusal says it (``… of at most 1,000,000,000,000 chips, not …``)
MAX_RECORD_CHIPS_SAID = f"{MAX_RECORD_CHIPS:,}"

#: a line's bytes with every digit made a ``9`` and every other byte a space (``bytes.translate``),
#: so that a run of digits is found by a substring search: both in C, some five times cheaper
#: than a regular expression's search (0.5 against 2.6 µs a line here; orjson's parse is 1.2)
_DIGITS_AS_NINES = bytes(0x39 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
#: a run of digits no shorter than any integer orjson reads as a float: from 2**64 up (20 digits),
#: and from -2**63 - 1 down (19 digits after the sign)
_LONG_RUN = b"9" * 19


def record_loads(line: bytes) -> Any:
    """A record line's JSON value, its integers exact (``orjson.JSONDecodeError`` for a line that
    is not JSON). orjson reads an integer beyond 64 bits as a float (``100000000000000000000`` as
    ``1e+20``), so a refusal would quote a number the line never wrote: a line holding a run of
    19 digits or more (a cheap search, rarely found) is read again by the standard library, whose
    integers are exact. orjson has read it first, so the second reader sees only what orjson
    takes: no NaN or Infinity, no lone surrogate, no number too big for a float, nesting within
    orjson's depth. Where the standard reader nests less deep than orjson (Python's recursion
    limit), orjson's reading stands: a big number is then a float, refused as no whole number."""
    data = orjson.loads(line)
    if _LONG_RUN not in line.translate(_DIGITS_AS_NINES):
        return data
    try:
        return json.loads(line.decode())  # orjson found it UTF-8
    except (RecursionError, ValueError):  # ValueError: defensive, orjson took the line
        return data


class RecordError(ValueError):
    """A line that is not a valid coup record."""

    def __init__(self, message: str, record_id: object = None, *, has_id: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.record_id = record_id
        self.has_id = has_id


def error_to_dict(error: RecordError) -> dict[str, Any]:
    if error.has_id:
        return {"id": error.record_id, "error": error.message}
    return {"error": error.message}


@dataclass(frozen=True, slots=True)
class GameJudge:
    """One game's record reader and offline judge, for a record line whose ``"game"`` is ``slug``.

    ``judge_to_dict`` parses the record (raising :class:`RecordError` with the record's id and a
    sentence for a malformed line, as chemin de fer's reader does) and returns the verdict as a
    JSON-ready dict, judged under the house settings the record carries (its optional
    ``"settings"`` object, as the back office exports a table's coups) or else the house's
    defaults (docs/games/<slug>.md)."""

    slug: str
    record_from_dict: Callable[[Mapping[str, Any]], Any]
    judge_to_dict: Callable[[Mapping[str, Any]], dict[str, Any]]


def record_reader(read: Callable[[Mapping[str, Any]], Any]) -> Callable[[Mapping[str, Any]], Any]:
    """``read`` with its ValueError turned into the validator's RecordError, carrying the id."""

    def record_from_dict(data: Mapping[str, Any]) -> Any:
        if type(data) is not dict:
            raise RecordError("not a JSON object")
        try:
            return read(data)
        except ValueError as exc:
            raise RecordError(str(exc), data.get("id"), has_id="id" in data) from None

    return record_from_dict


def is_str_list(value: object) -> TypeGuard[list[str]]:
    """A list of strings as JSON gives it (a record's names, its cards in the order dealt): the
    older games' readers check only this shape and leave the values to their judges. ``type()``,
    not ``isinstance()``: nothing but a JSON array of JSON strings passes, whatever a caller built."""
    return type(value) is list and all(type(x) is str for x in value)


def unknown_game(game: object, known: Iterable[str]) -> str:
    """The refusal of a record (or a table) naming a game no judge knows, with the ones known."""
    return f"unknown game {game!r}; known: {', '.join(known)}"


def stream_lines(stream: BinaryIO, *, chunk: int = 1 << 20) -> Iterator[bytes]:
    """The lines of a binary stream, read a megabyte at a time: splitting big blocks in C is
    cheaper than reading line by line, and memory stays bounded by the block size."""
    rest = b""
    while block := stream.read(chunk):
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        yield from lines
    if rest:
        yield rest


#: how a report's closing line starts (``{"anchor": {...}}``, keys sorted: reports/writers/jsonl.py);
#: a line that is exactly ``{"anchor": {...}}`` holds no record and is skipped
ANCHOR_LINE = b'{"anchor":'


def _is_anchor(line: bytes) -> bool:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(data, dict) and data.keys() == {"anchor"} and isinstance(data["anchor"], dict)


def is_anchor_line(line: bytes) -> bool:
    """A report's closing ``{"anchor": {...}}`` line: no record (validate_coups, import_coups)."""
    return line.startswith(ANCHOR_LINE) and _is_anchor(line)
