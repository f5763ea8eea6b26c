"""``python manage.py verify_audit [--full] [--anchors FILE]``: recheck the audit chain (by default
what was appended since the last successful verification, whose head must still be there unchanged;
``--full``: every event from the first), and its head against the signed anchors kept outside the
database; exit 1 if anything is wrong. Read-only: it writes nothing, not even its result (the
nightly task and the dashboard's "verify now" store theirs, and those are the points it starts from)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from audit.anchors import anchors_verify
from audit.db_triggers import triggers_present
from audit.models import AuditEvent
from audit.selectors import audit_chain_verify, audit_chain_vouched


class Command(BaseCommand):
    help = (
        "Walk the audit chain in seq order, recompute every (keyed) hash and link, report the first break; "
        "with --anchors FILE, also check the chain against the signed heads in FILE."
    )

    def add_arguments(self, parser: CommandParser) -> None:
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
        vouched = None if options["full"] else audit_chain_vouched()
        report = audit_chain_verify(after=vouched)
        if vouched is None:
            self.stdout.write(f"events checked: {report.checked} (the whole chain)")
        else:
            self.stdout.write(
                f"events checked: {report.checked} (from seq {report.from_seq}; seq {vouched.seq} and "
                "before were verified earlier, its hash confirmed; --full walks everything)"
            )
        self.stdout.write(f"chain head: seq={report.head_seq} hash={report.head_hash}")
        if report.plain:
            self.stdout.write(f"plain SHA-256 events (before the keyed cut-over): {report.plain}, "
                              f"the last seq={report.last_plain_seq}")  # fmt: skip
        if report.keys_used:
            used = ", ".join(f"{kid}={count}" for kid, count in sorted(report.keys_used.items()))
            self.stdout.write(f"keyed events by key id: {used}")
        table = AuditEvent._meta.db_table
        if not triggers_present(connection, table):
            # Not a chain break, but the table is no longer protected against edits: say so loudly.
            self.stderr.write(f"WARNING: append-only triggers are missing or disabled on {table}")

        failures: list[str] = []
        if not report.ok:
            first = report.first_broken
            assert first is not None
            self.stdout.write(f"broken events: {len(report.broken)}")
            for broken in report.broken:
                self.stdout.write(f"  seq={broken.seq} id={broken.id}: {broken.reason}")
            failures.append(
                f"audit chain BROKEN: first broken event seq={first.seq} id={first.id} ({first.reason})"
            )
        else:
            self.stdout.write(self.style.SUCCESS("audit chain OK"))

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
                for problem in anchors.problems:
                    self.stdout.write(f"  {problem.reason}")
                failures.append(f"anchors: {anchors.problems[0].reason}")

        if failures:
            raise CommandError("; ".join(failures), returncode=1)
