"""``python manage.py trial_balance [--casino ID] [--json]``: every account's balance and the totals.

Debits are the positive balances (chips held), credits the negative ones (the cage's chips in
circulation, the players' markers); they are equal in a sound ledger. ``markers`` is the part of
the credits that players owe the house (player accounts below zero; docs/ledger.md, Markers).
Exit status 1 when they are not, when a stored balance differs from the sum of its entries, or
when a transaction does not sum to zero.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.models import Account
from ledger.selectors import ledger_drift, trial_balance, unbalanced_transactions


class Command(BaseCommand):
    help = (
        "Print the ledger's trial balance (every account, debits and credits); exit 1 if it does not balance."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--casino", type=int, help="only this casino (id)")
        parser.add_argument("--json", action="store_true", help="machine-readable output")

    def handle(self, *args: Any, **options: Any) -> None:
        casino = None
        if options["casino"] is not None:
            # the casino model through the ledger's foreign key: the ledger does not import the floor
            casinos = Account._meta.get_field("casino").related_model._default_manager
            casino = casinos.filter(pk=options["casino"]).first()
            if casino is None:
                raise CommandError(f"no casino with id {options['casino']}")
        report = trial_balance(casino=casino)
        if options["json"]:
            payload = {
                "accounts": [
                    {"account": r.account, "kind": r.kind, "balance": r.balance} for r in report.rows
                ],
                "debits": report.debits,
                "credits": report.credits,
                "markers": report.markers,
            }
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
        else:
            self._table(report)

        problems = []
        if not report.balanced:
            problems.append(f"debits {report.debits} != credits {report.credits}")
        drift = ledger_drift(casino=casino)
        problems += [f"{d.account}: balance {d.balance} != entries {d.entries_total}" for d in drift]
        problems += [f"transaction #{t} sums to {s}" for t, s in unbalanced_transactions(casino=casino)]
        if problems:
            for problem in problems:
                self.stderr.write(f"NOT BALANCED: {problem}")
            raise CommandError("the trial balance does not balance", returncode=1)

    def _table(self, report: Any) -> None:
        headers = ("account", "kind", "debit", "credit")
        lines = [
            (
                r.account,
                r.kind,
                str(r.balance) if r.balance > 0 else "",
                str(-r.balance) if r.balance < 0 else "",
            )
            for r in report.rows
        ]
        total = ("total", "", str(report.debits), str(report.credits))
        widths = [max(len(row[i]) for row in [headers, *lines, total]) for i in range(4)]

        def fmt(row: tuple[str, ...]) -> str:
            return "  ".join(
                cell.ljust(w) if i < 2 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ).rstrip()

        rule = "  ".join("-" * w for w in widths)
        self.stdout.write(fmt(headers))
        self.stdout.write(rule)
        for line in lines:
            self.stdout.write(fmt(line))
        self.stdout.write(rule)
        self.stdout.write(fmt(total))
        if report.markers:
            self.stdout.write(f"markers: players owe the house {report.markers}")
        self.stdout.write("balanced" if report.balanced else "NOT BALANCED")
