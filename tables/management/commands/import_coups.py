"""``manage.py import_coups FILE --table ID --croupier USERNAME [--buy-in N]``

Loads a JSON Lines history of coup records (docs/coup-record.md) into a table through the same
services as the croupier's tablet: validated, settled, audited. Every line is its own
transaction: a bad line is reported with its line number and nothing of it is written; the rest
goes on. One verdict a line goes to stdout (as ``validate_coups`` gives it, plus the line number
and what became of the coup); progress and the summary go to stderr. Exit status 1 if any line
was rejected.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from tables.models import Table
from tables.permissions import is_croupier_at
from tables.rules.interchange import RecordError, record_from_dict, verdict_to_dict
from tables.rules.machine import IllegalStep
from tables.services.coups import CoupConflict
from tables.services.imports import coup_import


def _message(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(exc.messages)
    return str(exc)


class Command(BaseCommand):
    help = "Import a JSON Lines history of coup records into a table, through the table services."

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
        table = Table.objects.filter(pk=options["table"]).select_related("casino").first()
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
        out = self.stdout
        totals = {"coups": 0, "flagged": 0, "restored": 0, "awaiting_correction": 0, "rejected": 0, "levy": 0}
        for number, line in enumerate(tqdm(stream, desc="import", unit="line", file=sys.stderr), 1):
            if not line.strip():
                continue
            try:
                record = record_from_dict(orjson.loads(line), known_profiles=_Known())
                imported = coup_import(actor=actor, table=table, record=record, buy_in=options["buy_in"])
            except (
                orjson.JSONDecodeError,
                RecordError,
                ValidationError,
                IllegalStep,
                CoupConflict,
                PermissionDenied,
            ) as exc:
                totals["rejected"] += 1
                out.write(orjson.dumps({"line": number, "error": _message(exc)}).decode())
                continue
            verdict = imported.verdict
            totals["coups"] += 1
            totals["flagged"] += bool(verdict.violations)
            totals["restored"] += imported.restored
            totals["awaiting_correction"] += imported.coup.state == "awaiting_correction"
            if verdict.settlement is not None and imported.coup.state != "awaiting_correction":
                totals["levy"] += verdict.settlement.tax
            out.write(
                orjson.dumps(
                    {
                        "line": number,
                        "coup": imported.coup.pk,
                        "state": imported.coup.state,
                        **verdict_to_dict(verdict),
                    }
                ).decode()
            )
        if stream is not sys.stdin.buffer:
            stream.close()
        self.stderr.write(
            "{coups} coups imported ({flagged} flagged, {restored} restored awaiting approval, "
            "{awaiting_correction} awaiting correction), levy {levy}; {rejected} lines rejected".format(
                **totals
            )
        )
        if totals["rejected"]:
            sys.exit(1)


class _Known:
    """Any profile name passes the parser; the importer itself resolves it (a casino's derived
    profiles included) and rejects the line if it names none."""

    def __contains__(self, item: object) -> bool:
        return True
