"""``manage.py validate_coups [--profile SLUG] [FILE|-]``: re-judge an exported coup history.

Needs no database: an auditor can run it on any machine with the code. One verdict a line on
stdout; a summary on stderr; exit status 1 when any line was malformed (violations are findings,
not errors).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, BinaryIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from chemin_de_fer.engine.profiles import BUILTIN, get_profile
from chemin_de_fer.engine.validator import validate_lines
from core.records import stream_lines
from tables.games import known_games, offline_judges


class _TextSink:
    """Lets the validator's byte output go to a text stream (tests pass a StringIO)."""

    def __init__(self, out: Any) -> None:
        self._out = out

    def write(self, data: bytes) -> int:
        self._out.write(data.decode())
        return len(data)

    def flush(self) -> None:
        self._out.flush()


class Command(BaseCommand):
    help = (
        'Judge coup records (JSON Lines) of every game (a record\'s "game": '
        + ", ".join(known_games())
        + "; chemin-de-fer when absent) against the rules; one verdict a line on stdout."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", default="-", help="JSON Lines file, or - for stdin (default)")
        parser.add_argument(
            "--profile",
            choices=sorted(BUILTIN),
            help="judge every chemin de fer record under this profile, whatever the record says "
            "(the other games have no profiles: their records are judged under the house's defaults)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        profile = get_profile(options["profile"]) if options["profile"] else None
        raw_out = self.stdout._out
        # _TextSink has only the write() the validator calls, not the rest of BinaryIO
        out: BinaryIO = getattr(raw_out, "buffer", None) or _TextSink(raw_out)  # type: ignore[assignment]
        name = options["file"]
        if name == "-":
            summary = validate_lines(
                stream_lines(sys.stdin.buffer), out, profile=profile, others=offline_judges()
            )
        else:
            path = Path(name)
            try:
                stream = path.open("rb")
            except OSError as exc:
                raise CommandError(f"cannot read {name}: {exc.strerror}") from None
            with stream:
                summary = validate_lines(stream_lines(stream), out, profile=profile, others=offline_judges())
        self.stderr.write(
            f"{summary.lines} records, {summary.flagged} with violations, {summary.malformed} malformed"
        )
        if summary.malformed:
            sys.exit(1)
