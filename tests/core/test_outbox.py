"""The outbox (core/services/outbox.py): Celery work written with the change, sent after COMMIT,
kept when the broker is down and sent once by the drain."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from core.models import OutboxMessage
from core.services import outbox
from core.tasks import outbox_drain as outbox_drain_task
from core.tasks import purge_outbox
from tests.broker import broker_down

pytestmark = pytest.mark.django_db


def old_sent(key: str, days: int) -> OutboxMessage:
    when = timezone.now() - dt.timedelta(days=days)
    return OutboxMessage.objects.create(task="core.purge_outbox", key=key, created_at=when, sent_at=when)


def test_enqueue_is_one_insert_and_sends_after_commit(
    django_capture_on_commit_callbacks, django_assert_num_queries
) -> None:
    old_sent("old", days=30)  # what the task, run in-process (no broker), purges: proof that it ran
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        with django_assert_num_queries(1):
            outbox.outbox_enqueue(task=purge_outbox, key="k-1")
        assert OutboxMessage.objects.get(key="k-1").sent_at is None  # not before COMMIT
    assert len(callbacks) == 1
    message = OutboxMessage.objects.get(key="k-1")
    assert (message.task, message.args, message.kwargs) == ("core.purge_outbox", [], {})
    assert message.sent_at is not None and (message.attempts, message.last_error) == (1, "")
    assert not OutboxMessage.objects.filter(key="old").exists()


def test_a_key_already_used_inserts_and_sends_nothing(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        first = outbox.outbox_enqueue(task=purge_outbox, args=[1], key="same")
        again = outbox.outbox_enqueue(task=purge_outbox, args=[2], key="same")
    assert first is not None and again is None and len(callbacks) == 1
    assert list(OutboxMessage.objects.values_list("key", "args")) == [("same", [1])]


def test_a_send_refused_by_the_broker_is_kept_then_drained_once(django_capture_on_commit_callbacks) -> None:
    with broker_down(), django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        outbox.outbox_enqueue(task=purge_outbox, key="down")
    message = OutboxMessage.objects.get(key="down")
    assert message.sent_at is None and message.attempts == 1
    assert message.last_error.startswith("OperationalError: Error 111 connecting to 127.0.0.1:1")
    # the broker still down: the drain tries, keeps it and says so
    with broker_down():
        result = outbox.outbox_drain(grace=0)
    assert (result.sent, result.failed, result.left, result.broker_down) == (0, 1, 1, True)
    assert OutboxMessage.objects.get(key="down").attempts == 2
    # back: sent once, and never again
    assert outbox.outbox_drain(grace=0) == outbox.DrainResult(sent=1, failed=0, left=0, broker_down=False)
    assert outbox.outbox_drain(grace=0) == outbox.DrainResult(sent=0, failed=0, left=0, broker_down=False)
    message.refresh_from_db()
    assert message.sent_at is not None and (message.attempts, message.last_error) == (3, "")


def test_the_drain_stops_at_the_first_refusal_of_the_broker() -> None:
    now = timezone.now() - dt.timedelta(minutes=5)
    for n in range(3):
        OutboxMessage.objects.create(task="core.purge_outbox", key=f"m{n}", created_at=now)
    with broker_down():
        result = outbox.outbox_drain(grace=0)
    assert (result.sent, result.failed, result.left) == (0, 1, 3)
    assert list(OutboxMessage.objects.order_by("key").values_list("attempts", flat=True)) == [1, 0, 0]


def test_the_drain_leaves_young_messages_to_their_own_commit() -> None:
    OutboxMessage.objects.create(task="core.purge_outbox", key="young", created_at=timezone.now())
    assert outbox.outbox_drain(grace=30).sent == 0
    assert outbox.outbox_drain(grace=0).sent == 1


def test_a_task_failing_in_process_is_recorded_and_the_drain_goes_on() -> None:
    before = timezone.now() - dt.timedelta(minutes=5)
    OutboxMessage.objects.create(
        task="ledger.bill_hourly_fees", args=[999_999, "x"], key="bad", created_at=before
    )
    OutboxMessage.objects.create(task="core.purge_outbox", key="good", created_at=before)
    result = outbox.outbox_drain(grace=0)
    assert (result.sent, result.failed, result.left, result.broker_down) == (1, 1, 1, False)
    assert OutboxMessage.objects.get(key="bad").last_error.startswith("DoesNotExist")


def test_the_beat_task_and_the_command_drain(capsys) -> None:
    before = timezone.now() - dt.timedelta(minutes=5)
    OutboxMessage.objects.create(task="core.purge_outbox", key="a", created_at=before)
    assert outbox_drain_task.delay().get() == {"sent": 1, "failed": 0, "left": 0}
    OutboxMessage.objects.create(task="core.purge_outbox", key="b", created_at=timezone.now())
    call_command("outbox_drain", "--grace", "0")
    assert "sent: 1  failed: 0  left unsent: 0" in capsys.readouterr().out
    OutboxMessage.objects.create(task="core.purge_outbox", key="c", created_at=before)
    with broker_down(), pytest.raises(CommandError, match="the broker refused the connection") as refused:
        call_command("outbox_drain")
    assert refused.value.returncode == 1
    assert OutboxMessage.objects.filter(sent_at__isnull=True).count() == 1


def test_sent_messages_are_purged_after_the_retention_unsent_ones_never(settings) -> None:
    settings.OUTBOX_RETENTION_DAYS = 7
    old_sent("old", days=8)
    old_sent("recent", days=6)
    OutboxMessage.objects.create(
        task="core.purge_outbox", key="unsent", created_at=timezone.now() - dt.timedelta(days=30)
    )
    assert purge_outbox.delay().get() == 1
    assert sorted(OutboxMessage.objects.values_list("key", flat=True)) == ["recent", "unsent"]
