"""``python manage.py outbox_drain``: send the Celery work the outbox still holds, now.

Beat runs the same drain every minute (``core.outbox_drain``), but beat's own message goes through
the broker: after an outage an operator can drain at once from any web node. Exit 1 when a send
failed (the broker is still down, or a task run in-process failed): the messages stay unsent.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.services.outbox import outbox_drain


class Command(BaseCommand):
    help = "Send every outbox message not sent yet (oldest first); exit 1 if a send failed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=10_000, help="at most this many messages")
        parser.add_argument(
            "--grace",
            type=float,
            default=None,
            help="skip messages younger than this many seconds (default OUTBOX_DRAIN_GRACE_SECONDS): "
            "their own commit is sending them",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        result = outbox_drain(limit=options["limit"], grace=options["grace"])
        self.stdout.write(f"sent: {result.sent}  failed: {result.failed}  left unsent: {result.left}")
        if result.failed:
            reason = "the broker refused the connection" if result.broker_down else "a task failed"
            raise CommandError(
                f"outbox not drained: {reason}; the messages stay for the next drain", returncode=1
            )
        self.stdout.write(self.style.SUCCESS("outbox drained"))
