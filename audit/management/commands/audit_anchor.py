"""``python manage.py audit_anchor --out FILE``: append the signed head of the audit chain to FILE."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.anchors import anchor_append, anchor_make


class Command(BaseCommand):
    help = (
        "Sign the audit chain's current head (seq, hash, time, key id) and append it to FILE as one JSON "
        "line; '-' writes it to stdout (to pipe to a WORM bucket or log host). Beat does this daily."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--out",
            default=None,
            help="the anchor file (default: settings AUDIT_ANCHOR_FILE); '-' for stdout",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        out = options["out"] or settings.AUDIT_ANCHOR_FILE
        if not out:
            raise CommandError("no anchor file: pass --out FILE or set AUDIT_ANCHOR_FILE", returncode=2)
        anchor = anchor_make()
        if out == "-":
            self.stdout.write(anchor.line())
            return
        try:
            anchor_append(anchor, out)
        except OSError as error:
            raise CommandError(f"could not append the anchor to {out}: {error}", returncode=1) from error
        self.stdout.write(f"anchored seq={anchor.seq} hash={anchor.hash} at {anchor.at} to {out}")
