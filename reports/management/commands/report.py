"""``manage.py report KIND --from DATE --to DATE --format FMT --out FILE [--casino ID] [--table ID]``:
a report run written in-process, the same service as the workers' (docs/reports.md). Prints the
run, its row count and sha256; a request it cannot produce exits 2 with the reason, a failed run 1."""

from __future__ import annotations

import datetime as dt
import shutil
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from reports.kinds import KINDS, ReportRequest
from reports.models import ReportRun
from reports.services import COMMAND, report_run_execute, report_run_schedule
from reports.storage import reports_storage


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError as exc:
        raise CommandError(f"Not a date (YYYY-MM-DD): {text!r}", returncode=2) from exc


class Command(BaseCommand):
    help = "Write a report now, in this process, as a recorded and audited report run."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("kind", help=f"one of: {', '.join(KINDS)}")
        parser.add_argument("--from", dest="start", required=True, help="first gaming day, YYYY-MM-DD")
        parser.add_argument("--to", dest="end", required=True, help="last gaming day, YYYY-MM-DD")
        parser.add_argument(
            "--format", dest="fmt", required=True, help="csv, xlsx, pdf or jsonl (as the kind offers)"
        )
        parser.add_argument("--out", required=True, help="the file to write")
        parser.add_argument("--casino", type=int, default=None, help="a casino's id")
        parser.add_argument("--table", type=int, default=None, help="a table's id")

    def handle(self, *args: Any, **options: Any) -> None:
        request = ReportRequest(
            kind=options["kind"],
            fmt=options["fmt"],
            start=_date(options["start"]),
            end=_date(options["end"]),
            casino_id=options["casino"],
            table_id=options["table"],
        )
        try:
            run = report_run_schedule(request=request, label=COMMAND, enqueue=False)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages), returncode=2) from exc
        if run.status == ReportRun.Status.RUNNING:
            raise CommandError(
                f"The same report is being written by a worker (run {run.pk}); wait for it to finish.",
                returncode=1,
            )
        run = report_run_execute(run_id=run.pk) or run
        if run.status != ReportRun.Status.FINISHED:
            raise CommandError(f"Run {run.pk} {run.status}: {run.error}", returncode=1)
        try:
            with (
                reports_storage().open(str(run.file.name), "rb") as source,
                open(options["out"], "wb") as target,
            ):
                shutil.copyfileobj(source, target)
        except OSError as exc:
            raise CommandError(f"Cannot write {options['out']}: {exc.strerror or exc}", returncode=1) from exc
        self.stdout.write(
            f"run {run.pk}: {run.row_count} rows, sha256 {run.sha256}, written to {options['out']}"
        )
