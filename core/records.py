"""A coup record line, whatever its game: the error of a malformed one, the judge that reads and
judges one game's records offline, and the lines of a history as a stream (``validate_coups``,
``import_coups``; docs/coup-record.md).

Pure Python, no Django: every game's engine reads its records through these, so that one
history of several games is read line by line by one loop (``chemin_de_fer.engine.validator``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeGuard

import orjson


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
