"""``python manage.py audit_anchor --out FILE``: append the signed head of every audit chain (the
global one, then each casino's) to FILE, one line each."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from audit.anchors import anchor_append, anchors_make


class Command(BaseCommand):
    help = (
        "Sign every audit chain's current head (scope, seq, hash, time, key id) and append them to FILE, one "
        "JSON line per chain; '-' writes them to stdout (to pipe to a WORM bucket or log host). "
        "Beat does this daily."
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
        anchors = anchors_make()
        if out == "-":
            for anchor in anchors:
                self.stdout.write(anchor.line())
            return
        try:
            anchor_append(anchors, out)
        except OSError as error:
            raise CommandError(f"could not append the anchors to {out}: {error}", returncode=1) from error
        for anchor in anchors:
            self.stdout.write(
                f"anchored {anchor.scope} seq={anchor.seq} hash={anchor.hash} at {anchor.at} to {out}"
            )
