"""``python manage.py verify_audit [--full] [--chain ID] [--anchors FILE]``: recheck every audit
chain (the global one, 0, and each casino's; ``--chain ID`` only that one), by default what was
appended to each since its newest signed anchor, whose head must still be there unchanged
(``--full``: every event from the first), and each chain's head against its signed anchors kept
outside the database; then the rows bound to the events (audit.row_verify): with ``--full`` every
row of every bound table both ways, else the rows the newly walked events bind. Exit 1 if anything
is wrong, naming the chain and seq of the first break, and each row by table, id and column.
Read-only: it writes nothing, not even its result (the nightly task and the dashboard's "verify
now" store theirs)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from audit.anchors import anchors_verify
from audit.db_triggers import chain_link_present, tables_unguarded
from audit.models import AuditEvent
from audit.row_verify import RowsReport, rows_verify, rows_verify_since
from audit.selectors import audit_chain_verify, audit_chain_vouched, audit_chains


class Command(BaseCommand):
    help = (
        "Walk every audit chain in seq order, recompute every (keyed) hash and link, report the first break "
        "(chain and seq); with --anchors FILE, also check each chain against its signed heads in FILE."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--chain",
            type=int,
            default=None,
            metavar="ID",
            help="verify only this chain (0: the global one, else a casino's id)",
        )
        parser.add_argument("--anchors", metavar="FILE", help="the anchor file written by audit_anchor")
        parser.add_argument(
            "--full",
            action="store_true",
            help="walk the whole chain, not only what was appended since the last successful verification",
        )
        parser.add_argument(
            "--max-age-hours",
            type=float,
            default=None,
            help="how old the newest anchor (and the gap between two) may be; default "
            "settings AUDIT_ANCHOR_MAX_AGE_HOURS",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        only = options["chain"]
        chains = [only] if only is not None else audit_chains() or [0]
        failures: list[str] = []
        vouched: dict[int, int] = {}
        for chain in chains:
            failures.extend(self._chain(chain, full=options["full"], vouched=vouched))
        if only is None:  # the rows' bindings span the chains: checked when every chain is
            # no anchor vouches for any chain: the whole chains were walked, so are the rows
            failures.extend(self._rows(full=options["full"] or not vouched, vouched=vouched))
        table = AuditEvent._meta.db_table
        # Not a chain break, but a table no longer protected against edits: say so loudly, each one
        # (the trail's own, and every other table the database keeps append-only: on SQLite a
        # migration that rebuilt one dropped its triggers unseen, tables 0035, ledger 0014)
        for unguarded in tables_unguarded(connection):
            self.stderr.write(f"WARNING: append-only triggers are missing or disabled on {unguarded}")
        if not chain_link_present(connection):
            # the database no longer refuses an event that does not follow its predecessor
            self.stderr.write(f"WARNING: the chain's link trigger is missing or disabled on {table}")
        if not failures:
            self.stdout.write(self.style.SUCCESS(f"audit chain OK ({len(chains)} chain(s))"))

        if options["anchors"]:
            hours = options["max_age_hours"]
            anchors = anchors_verify(
                options["anchors"], max_age=dt.timedelta(hours=hours) if hours is not None else None
            )
            self.stdout.write(f"anchors checked: {anchors.checked} in {anchors.path}")
            if anchors.newest is not None:
                self.stdout.write(f"newest anchor: seq={anchors.newest.seq} at {anchors.newest.at}")
            if anchors.ok:
                self.stdout.write(self.style.SUCCESS("anchors OK"))
            else:
                self.stdout.write(f"anchor problems: {len(anchors.problems)}")
                problems = [p for p in anchors.problems if only is None or p.chain in (None, only)]
                for problem in problems:
                    self.stdout.write(f"  {problem.reason}")
                    if problem.unwritten:  # asked about this file by name: still a failure, said why
                        self.stdout.write(
                            "  (no anchor was ever written to it, as far as the database records: "
                            "a new install before its first anchor, or not the anchor file)"
                        )
                if problems:
                    failures.append(f"anchors: {problems[0].reason}")

        if failures:
            raise CommandError("; ".join(failures), returncode=1)

    def _rows(self, *, full: bool, vouched: dict[int, int]) -> list[str]:
        """The rows bound to the events: every one both ways (``full``), else those the events
        past the vouched-for heads bind; each difference printed, the first returned."""
        report: RowsReport = rows_verify() if full else rows_verify_since(vouched)
        how = (
            "every row of every bound table, both ways"
            if full
            else "the rows the events checked above bind (--full: every row, both ways)"
        )
        self.stdout.write(
            f"rows bound to events: {report.rows} rows of {report.tables} table(s), "
            f"{report.bindings} bindings checked ({how})"
        )
        if report.ok:
            return []
        self.stdout.write(f"rows that differ: {report.difference_count}")
        for difference in report.differences:
            self.stdout.write(f"  ROW {difference}")
        return [f"rows: {report.differences[0]}"]

    def _chain(self, chain: int, *, full: bool, vouched: dict[int, int]) -> list[str]:
        """Verify one chain, print what was found, and return its failure (empty when OK);
        ``vouched`` gets the chain's starting point (for the rows' incremental check)."""
        name = "global chain" if chain == 0 else f"chain {chain} (casino {chain})"
        point = None if full else audit_chain_vouched(chain=chain)
        if point is not None:
            vouched[chain] = point.seq
        report = audit_chain_verify(chain=chain, after=point)
        if point is None:
            self.stdout.write(f"{name}: events checked: {report.checked} (the whole chain)")
        else:
            self.stdout.write(
                f"{name}: events checked: {report.checked} (from seq {report.from_seq}; "
                f"seq {point.seq} and before are vouched for by the newest signed anchor, its hash "
                "confirmed; --full walks everything)"
            )
        self.stdout.write(f"{name}: chain head: seq={report.head_seq} hash={report.head_hash}")
        if report.plain:
            self.stdout.write(f"{name}: plain SHA-256 events (before the keyed cut-over): {report.plain}, "
                              f"the last seq={report.last_plain_seq}")  # fmt: skip
        if report.keys_used:
            used = ", ".join(f"{kid}={count}" for kid, count in sorted(report.keys_used.items()))
            self.stdout.write(f"{name}: keyed events by key id: {used}")
        if report.ok:
            return []
        first = report.first_broken
        assert first is not None
        self.stdout.write(f"{name}: broken events: {len(report.broken)}")
        for broken in report.broken:
            self.stdout.write(f"  chain={chain} seq={broken.seq} id={broken.id}: {broken.reason}")
        return [
            f"audit chain BROKEN: first broken event chain={chain} seq={first.seq} id={first.id} "
            f"({first.reason})"
        ]
