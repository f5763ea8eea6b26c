"""``python manage.py verify_books``: re-derive every coup's settlement from its recorded steps with
the rules engine and compare it with the ledger's postings and the levy (``BankTax``); check every
account's balance against its entries, every transaction against zero and every posting against
its audit event; the hourly fees against their billed hours and the card money against the seats;
every row of the bound tables against the digest its audit event carries (audit.rows).
Prints each difference as it is found; exit 1 if there is any (docs/ledger.md, "Verifying the
books"). ``--record`` also stores the result for the pit boss's dashboard, as the nightly run does.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.books import BooksReport, Difference
from ledger.services.books import books_verification_finish, books_verification_start
from tables.money.books import books_verify


class Command(BaseCommand):
    help = (
        "Verify the books: coups re-derived by the rules engine, balances, postings and their audit events."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--record", action="store_true", help="store the result (BooksVerification) for the dashboard"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run = None
        if options["record"]:
            run = books_verification_start()
            if run is None:
                raise CommandError("a verification of the books is already running", returncode=2)

        def show(difference: Difference) -> None:
            self.stdout.write(f"DIFFERENCE {difference}")

        started = time.perf_counter()
        report = books_verify(BooksReport(on_difference=show))
        elapsed = time.perf_counter() - started
        if run is not None:
            books_verification_finish(run=run, report=report)
        self.stdout.write(f"coups checked: {report.coups}")
        self.stdout.write(f"transactions checked: {report.transactions}")
        self.stdout.write(f"accounts checked: {report.accounts}")
        self.stdout.write(f"game coups checked: {report.game_coups}")
        self.stdout.write(f"rows checked against their audit events: {report.rows}")
        self.stdout.write(f"time: {elapsed:.2f} s")
        if report.ok:
            self.stdout.write(self.style.SUCCESS("books OK"))
            return
        raise CommandError(f"books DIFFER: {report.difference_count} difference(s)", returncode=1)
