"""``manage.py import_coups FILE --table ID --croupier USERNAME [--buy-in N]``

Loads a JSON Lines history of coup records (docs/coup-record.md) into a table: validated by the
rules engine, settled in the ledger, audited, as the croupier's tablet would record them
(tables/services/imports.py). The records are imported a chunk at a time, one transaction a chunk;
a bad line is reported with its line number and a reason, nothing of it is written, and the rest
goes on. A record whose id the table has already imported is skipped, so running the command again
on the same file imports nothing twice.

One verdict a line goes to stdout (as ``validate_coups`` gives it, plus the line number and what
became of the coup), ``{"line", "id", "skipped"}`` for a record imported before, ``{"line",
"error"}`` for a refused one; progress and the summary go to stderr. Exit status 1 if any line was
refused.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from chemin_de_fer.engine.coup import CoupRecord
from chemin_de_fer.engine.interchange import record_from_dict, verdict_to_dict
from chemin_de_fer.engine.validator import CHEMIN_DE_FER, dumps_line, game_refusal
from core.records import RecordError, is_anchor_line, record_loads
from tables.games import offline_judges
from tables.models import Table
from tables.permissions import is_croupier_at
from tables.services.imports import CHUNK_RECORDS, LineOutcome, coups_import, record_import_id

#: a line is one record: anything longer is refused unread (a record is a few hundred bytes)
MAX_LINE_BYTES = 1 << 20


def parse_line(line: bytes) -> tuple[CoupRecord, str]:
    """A line's record and the id it is imported under; ValueError with a readable reason."""
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"line longer than {MAX_LINE_BYTES:,} bytes")
    try:
        data = record_loads(line)  # validate_coups's reader: its integers exact, as the line wrote them
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if type(data) is dict and "game" in data and data["game"] != CHEMIN_DE_FER:
        judges = offline_judges()
        game = data["game"]
        if type(game) is not str or game not in judges:
            # a game no judge knows, a null one included: refused with validate_coups's sentence
            # (another known game's record is the chemin de fer reader's to refuse, below)
            refusal = game_refusal(game, (CHEMIN_DE_FER, *sorted(judges)))
            raise LineRefused(refusal, _id_named(data.get("id")))
    try:
        record = record_from_dict(data, known_profiles=_Known())
    except RecordError as exc:
        raise LineRefused(exc.message, _id_named(exc.record_id) if exc.has_id else {}) from None
    except RecursionError:
        raise ValueError("nested too deeply to be a coup record") from None
    try:
        return record, record_import_id(record)
    except ValueError as exc:  # read, but not importable (no id, a NUL in a name…)
        raise LineRefused(str(exc), _named(record)) from None


class LineRefused(ValueError):
    """A line refused once its record's id could be read: the report names the id too, as
    ``validate_coups`` does (COUP_RECORD.md: ``error``, "with ``id`` if it could be read")."""

    def __init__(self, message: str, named: dict[str, Any]) -> None:
        super().__init__(message)
        self.named = named  # {"id": the id as the line wrote it}, or {} where it had none


#: a line as _chunks hands it on: its number, its record (None: refused, or another game's),
#: its id (or the other game's name), its refusal ("" if none), and the id a refused line named
_Line = tuple[int, CoupRecord | None, str, str, dict[str, Any]]


def _named(record: CoupRecord | None) -> dict[str, Any]:
    """What a refused line's report says of its record's id: the id as the line wrote it."""
    return {} if record is None else _id_named(record.id)


def _id_named(value: object) -> dict[str, Any]:
    """``{"id": value}`` for an id a report can echo (a string or a whole number: an id no import
    takes, a list nested a thousand deep, is not written back), else ``{}``."""
    return {"id": value} if type(value) in (str, int) else {}


class Command(BaseCommand):
    help = "Import a JSON Lines history of coup records into a table, through the table services."
    # no system checks at start-up: they import every URLconf, view and form of the site (about as
    # much CPU as Django's own start-up, ~0.9 s here) and check nothing an import relies on; the
    # deployment runs ``manage.py check --deploy`` (docs/deployment.md), the suite runs them too
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSON Lines file of coup records, or - for stdin")
        parser.add_argument("--table", type=int, required=True, help="the table's id")
        parser.add_argument(
            "--croupier", required=True, help="username of the croupier on shift at the table (the actor)"
        )
        parser.add_argument(
            "--buy-in",
            type=int,
            default=0,
            help="chips each new player buys in for from the cage (default 0)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        table = Table.objects.filter(pk=options["table"]).select_related("casino", "profile").first()
        if table is None:
            raise CommandError(f"no table with id {options['table']}")
        actor = get_user_model().objects.filter(username=options["croupier"]).first()
        if actor is None or not is_croupier_at(actor, table):
            raise CommandError(f"{options['croupier']} is not a croupier on shift at {table}")
        if options["buy_in"] < 0:
            raise CommandError("--buy-in is a number of chips, at least 0")
        name = options["file"]
        try:
            stream = sys.stdin.buffer if name == "-" else Path(name).open("rb")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"cannot read {name}: {exc.strerror}") from None
        self.totals = dict.fromkeys(
            ("coups", "flagged", "restored", "awaiting_correction", "rejected", "levy", "skipped"), 0
        )
        self.totals["other_games"] = 0
        try:
            for chunk in self._chunks(stream):
                records = [(n, rec, rid) for n, rec, rid, _error, _named in chunk if rec is not None]
                outcomes = (
                    coups_import(actor=actor, table=table, records=records, buy_in=options["buy_in"])
                    if records
                    else {}
                )
                for number, record, rid, error, named in chunk:
                    if record is None and not error:
                        self.totals["other_games"] += 1
                        skipped = f"a {rid} coup (not chemin de fer)"
                        self.stdout.write(orjson.dumps({"line": number, "skipped": skipped}).decode())
                        continue
                    outcome = outcomes.get(number) or LineOutcome(error=error)
                    self._report(number, record, rid, outcome, named)
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
        self.stderr.write(
            "{coups} coups imported ({flagged} flagged, {restored} restored awaiting approval, "
            "{awaiting_correction} awaiting correction), levy {levy}; skipped {skipped} already imported; "
            "{rejected} lines rejected; {other_games} coups of other games left out".format(**self.totals)
        )
        if self.totals["rejected"]:
            sys.exit(1)

    def _chunks(self, stream: BinaryIO) -> Iterator[list[_Line]]:
        """The lines, parsed, in chunks of CHUNK_RECORDS records (a refused line rides along with
        its error and the id it named, so that every line is reported in order)."""
        chunk: list[_Line] = []
        valid = 0
        for number, line in enumerate(tqdm(stream, desc="import", unit="line", file=sys.stderr), 1):
            if not line.strip() or is_anchor_line(line):
                continue  # a coup records report ends with the audit chains' signed heads: no coups
            game = _other_game(line)
            if game:  # the report lists every table's coups: another game's were played elsewhere
                chunk.append((number, None, game, "", {}))  # no record and no error: reported as such
                continue
            try:
                record, rid = parse_line(line)
            except ValueError as exc:
                named = exc.named if isinstance(exc, LineRefused) else {}
                chunk.append((number, None, "", str(exc), named))
                continue
            chunk.append((number, record, rid, "", {}))
            valid += 1
            if valid == CHUNK_RECORDS:
                yield chunk
                chunk, valid = [], 0
        if chunk:
            yield chunk

    def _report(
        self,
        number: int,
        record: CoupRecord | None,
        rid: str,
        outcome: LineOutcome,
        refused_named: dict[str, Any],
    ) -> None:
        totals, out = self.totals, self.stdout
        if outcome.skipped:
            totals["skipped"] += 1
            out.write(dumps_line({"line": number, "id": rid, "skipped": "already imported"}).decode())
            return
        imported = outcome.imported
        if imported is None:
            totals["rejected"] += 1
            # the id the line names, where it could be read (as validate_coups says it)
            named = _named(record) if record is not None else refused_named
            # dumps_line: an id beyond 64 bits (read exactly, core.records.record_loads) is written
            # as validate_coups writes it, where orjson writes no such integer
            out.write(dumps_line({"line": number, **named, "error": outcome.error}).decode())
            return
        verdict, coup = imported.verdict, imported.coup
        totals["coups"] += 1
        totals["flagged"] += bool(verdict.violations)
        totals["restored"] += imported.restored
        totals["awaiting_correction"] += coup.state == "awaiting_correction"
        if verdict.settlement is not None and coup.state != "awaiting_correction":
            totals["levy"] += verdict.settlement.tax
        out.write(
            dumps_line(
                {"line": number, "coup": coup.pk, "state": coup.state, **verdict_to_dict(verdict)}
            ).decode()
        )


def _other_game(line: bytes) -> str:
    """The game a record line names when it is not chemin de fer (docs/coup-record.md); "" for
    chemin de fer's lines (which carry no ``"game"``) and for a line that is no JSON object (the
    parser reports that one)."""
    if b'"game"' not in line:
        return ""
    try:
        data = record_loads(line)
    except orjson.JSONDecodeError:
        return ""
    game = data.get("game") if isinstance(data, dict) else None
    # the games a coup-records report may hold besides chemin de fer (their wings' judges)
    return game if isinstance(game, str) and game in offline_judges() else ""


class _Known:
    """Any profile name passes the parser; the importer itself resolves it (a casino's derived
    profiles included) and rejects the line if it names none."""

    def __contains__(self, item: object) -> bool:
        return True
