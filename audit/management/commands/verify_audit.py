"""``python manage.py verify_audit``: recheck the whole audit chain; exit 1 if it is broken."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from audit.db_triggers import triggers_present
from audit.models import AuditEvent
from audit.selectors import audit_chain_verify


class Command(BaseCommand):
    help = "Walk the audit chain in seq order, recompute every hash and link, report the first break."

    def handle(self, *args: Any, **options: Any) -> None:
        report = audit_chain_verify()
        self.stdout.write(f"events checked: {report.checked}")
        self.stdout.write(f"chain head: seq={report.head_seq} hash={report.head_hash}")
        table = AuditEvent._meta.db_table
        if not triggers_present(connection, table):
            # Not a chain break, but the table is no longer protected against edits: say so loudly.
            self.stderr.write(f"WARNING: append-only triggers are missing or disabled on {table}")
        if report.ok:
            self.stdout.write(self.style.SUCCESS("audit chain OK"))
            return
        first = report.first_broken
        assert first is not None
        self.stdout.write(f"broken events: {len(report.broken)}")
        for broken in report.broken:
            self.stdout.write(f"  seq={broken.seq} id={broken.id}: {broken.reason}")
        raise CommandError(
            f"audit chain BROKEN: first broken event seq={first.seq} id={first.id} ({first.reason})",
            returncode=1,
        )
