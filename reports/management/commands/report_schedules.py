"""``manage.py report_schedules [--reset]``: every casino's report schedules in beat's database
(reports/schedules.py). Run after adding a casino or changing its cut-off or time zone (with
``--reset``: an administrator's edits of those schedules are replaced)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from reports.schedules import schedules_install


class Command(BaseCommand):
    help = "Create (or with --reset, restore) every casino's report schedules for Celery beat."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--reset", action="store_true", help="restore existing schedules to the defaults")

    def handle(self, *args: Any, **options: Any) -> None:
        names = schedules_install(reset=options["reset"])
        self.stdout.write(f"{len(names)} schedule(s) written" + "".join(f"\n  {n}" for n in names))
