"""``python manage.py rollups [--rebuild] [--check]``: bring the per table-day rollups up to date
(default), rebuild them from scratch, or check them against the records (exit 1 on a difference)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.services.rollups import rollups_check, rollups_rebuild, rollups_refresh


class Command(BaseCommand):
    help = "Refresh the per table-day rollups from the audit trail; --rebuild from scratch; --check them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rebuild", action="store_true", help="recompute every table-day from the records"
        )
        parser.add_argument(
            "--check",
            action="store_true",
            help="derive every table-day again row by row and compare (read-only; exit 1 on a difference)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["rebuild"]:
            self.stdout.write(f"rebuilt: {rollups_rebuild()} table-days")
        elif not options["check"]:
            outcome = rollups_refresh()
            self.stdout.write(
                f"refreshed: {outcome.table_days} table-days from {outcome.events} events "
                "(audit "
                + ", ".join(
                    f"chain {chain} seq {outcome.marks_from.get(chain, 0)} → {seq}"
                    for chain, seq in sorted(outcome.marks_to.items())
                )
                + ")"
            )
        if options["check"]:
            differences = rollups_check()
            for d in differences[:50]:
                self.stdout.write(
                    f"  table {d.table_id} on {d.gaming_day}: {d.what} stored {d.stored}, derived {d.derived}"
                )
            if differences:
                message = f"rollups differ from the records in {len(differences)} places"
                raise CommandError(message, returncode=1)
            self.stdout.write(self.style.SUCCESS("rollups match the records"))
