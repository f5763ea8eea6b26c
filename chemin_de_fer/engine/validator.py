"""Offline validation of coup-record histories: JSON Lines in, one verdict a line out.

Streaming by construction: one line is read, judged and written before the next is read, so a
history of any length runs in constant memory. Output is buffered in chunks because a write per
line would cost more than judging the coup.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from chemin_de_fer.engine.interchange import AsWritten, record_from_dict, seats_refusal, verdict_to_dict
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.profiles import BUILTIN, Profile
from core.records import GameJudge, RecordError, error_to_dict, is_anchor_line, record_loads, unknown_game

_FLUSH_EVERY = 512
_COLLECT_EVERY_FLUSHES = 128

#: a record without ``"game"`` is chemin de fer's (the format was chemin de fer's before any other)
CHEMIN_DE_FER = "chemin-de-fer"



def game_refusal(game: object, known: Iterable[str]) -> str:
    """The refusal of a line whose ``"game"`` no judge knows (``null`` included: a game named
    nothing is no game), quoted as the line wrote it; ``import_coups`` says the same."""
    return unknown_game(AsWritten(game), known)


def dumps_line(verdict: Mapping[str, Any]) -> bytes:
    """One verdict line (``import_coups`` writes its lines with it too). orjson writes integers
    from -2**63 to 2**64 - 1 only, and a line may hold any integer (core.records.record_loads
    reads them exactly): an id beyond 64 bits, an older game's negative fund or cover far below
    -2**63 (the readers refuse only chips above ``MAX_RECORD_CHIPS``). Such a verdict is written
    by the standard encoder in the same compact form (no spaces, UTF-8, the keys in the same
    order), so the line keeps its id. Every other verdict pays nothing for it."""
    try:
        return orjson.dumps(verdict)
    except orjson.JSONEncodeError:
        return json.dumps(verdict, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True, slots=True)
class ValidationSummary:
    lines: int
    malformed: int
    flagged: int



def validate_lines(
    lines: Iterable[bytes],
    out: BinaryIO,
    *,
    profile: Profile | None = None,
    profiles: dict[str, Profile] | None = None,
    others: Mapping[str, GameJudge] | None = None,
) -> ValidationSummary:
    """Judge every record in ``lines`` and write one verdict a line to ``out``.

    A record's ``"game"`` (absent: chemin de fer) picks its judge: chemin de fer's below, any
    other game's from ``others`` by its slug (the caller's: every other game the house registers,
    ``tables.games.offline_judges``); an unknown game is a malformed line.
    ``profile`` forces one profile for every chemin de fer record (``--profile``; the other games
    have no profiles); otherwise each record names its own among ``profiles`` (the built-in ones
    by default). Blank lines are skipped: they hold
    no record and JSON Lines tools commonly leave one at the end; so is a report's closing
    ``{"anchor": {...}}`` line (the audit chain's signed head, reports/builders/coup_records.py).
    """
    known = profiles if profiles is not None else BUILTIN
    rules_by_slug = {slug: Rules.for_profile(p) for slug, p in known.items()}
    forced = Rules.for_profile(profile) if profile is not None else None
    forced_slug = profile.slug if profile is not None else None
    # Every object a line creates dies by reference counting when the next line starts: nothing
    # here makes reference cycles. The cyclic collector would only rescan them (a fifth of the
    # run time), so it is paused for the loop, with a young-generation sweep now and then as a
    # safety net; memory stays flat over millions of lines (bench/validate_bench.py measures it).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _validate(lines, out, forced, forced_slug, rules_by_slug, others or {})
    finally:
        if gc_was_enabled:
            gc.enable()


def _validate(
    lines: Iterable[bytes],
    out: BinaryIO,
    forced: Rules | None,
    forced_slug: str | None,
    rules_by_slug: dict[str, Rules],
    judges: Mapping[str, GameJudge],
) -> ValidationSummary:
    loads = record_loads  # orjson, its integers exact (core.records)
    dumps = dumps_line
    known = (CHEMIN_DE_FER, *sorted(judges))
    buffer: list[bytes] = []
    n = malformed = flagged = flushes = 0
    for line in lines:
        if not line.strip():
            continue
        if is_anchor_line(line):
            continue  # a report's last line, the audit chain's signed head: no record
        n += 1
        try:
            try:
                data = loads(line)
            except orjson.JSONDecodeError as exc:
                raise RecordError(f"not valid JSON: {exc}") from None
            # chemin de fer, the bulk of any history, pays one dict lookup for the other games
            if type(data) is not dict or (game := data.get("game", CHEMIN_DE_FER)) == CHEMIN_DE_FER:
                record = record_from_dict(data, profile=forced_slug, known_profiles=rules_by_slug)
                rules = forced or rules_by_slug[record.profile]
                unseated = seats_refusal(record, rules.profile)
                if unseated is not None:
                    raise RecordError(unseated, record.id, has_id="id" in data)
                verdict = judge_coup(record, rules)
                if verdict.violations:
                    flagged += 1
                buffer.append(dumps(verdict_to_dict(verdict)))
            else:
                judge = judges.get(game) if type(game) is str else None
                if judge is None:
                    raise RecordError(game_refusal(game, known), data.get("id"), has_id="id" in data)
                found = judge.judge_to_dict(data)
                if found["violations"]:
                    flagged += 1
                buffer.append(dumps(found))
        except RecordError as exc:
            malformed += 1
            buffer.append(dumps(error_to_dict(exc)))
        except (TypeError, orjson.JSONEncodeError) as exc:
            # an id that JSON cannot echo back (it came from JSON, so this is defensive only)
            malformed += 1
            buffer.append(dumps({"error": f"unreadable record: {exc}"}))
        if len(buffer) >= _FLUSH_EVERY:
            out.write(b"\n".join(buffer) + b"\n")
            buffer.clear()
            flushes += 1
            if flushes % _COLLECT_EVERY_FLUSHES == 0:
                gc.collect(0)
    if buffer:
        out.write(b"\n".join(buffer) + b"\n")
    out.flush()
    return ValidationSummary(lines=n, malformed=malformed, flagged=flagged)
