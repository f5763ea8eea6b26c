"""The outbox: Celery work a transaction asks for, handed to the broker once it has committed —
never lost, and never failing the request, when the broker is down.

``task.delay()`` in ``transaction.on_commit`` has two faults: with the broker down the send raises
after the COMMIT (the change is recorded, the client gets a 500 and the work is lost), and with
the process killed between the COMMIT and the send the work is lost silently. Instead:

1. :func:`outbox_enqueue` INSERTs an :class:`~core.models.OutboxMessage` in the caller's
   transaction (one statement; a ``key`` already used inserts nothing), so the work is recorded
   exactly when the change is;
2. once that commits, the message is sent (one connection attempt: a broker that is down costs
   one refused connection, not kombu's backoff) and marked sent; a failure is logged and kept;
3. :func:`outbox_drain` — every minute from beat (``core.outbox_drain``), or ``manage.py
   outbox_drain`` — sends whatever is still unsent and older than ``OUTBOX_DRAIN_GRACE_SECONDS``
   (younger ones are being sent by their own commit), each under a row lock taken with SKIP
   LOCKED, so two drains never send one message twice.

Delivery is at least once (a send may succeed and its marking fail): every task sent this way is
idempotent (docs/deployment.md lists them and why).
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connections, router, transaction
from django.db.models import Count, F, Field, Min
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from core.models import OutboxMessage

logger = logging.getLogger(__name__)

#: how much of a failed send's error is kept on the message
ERROR_LENGTH = 500


def outbox_enqueue(
    *, task: Any, args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None, key: str | None = None
) -> int | None:
    """Record that ``task`` is to run with ``args``/``kwargs`` once the current transaction commits
    (one INSERT in it), and send it then. ``key`` (default: unique) makes the message idempotent:
    a key already used inserts nothing and sends nothing. Returns the message's id, None then.
    ``task`` is a Celery task or its registered name (what is stored: a service names the task it
    enqueues, and the task module, which calls the service, is not imported by it); arguments must
    be plain JSON."""
    name = task if isinstance(task, str) else str(task.name)
    message_args, message_kwargs = list(args), dict(kwargs or {})
    message_id = _insert(
        task=name, args=message_args, kwargs=message_kwargs, key=key or f"{name}:{uuid.uuid4().hex}"
    )
    if message_id is not None:
        transaction.on_commit(
            functools.partial(_send_after_commit, message_id, name, message_args, message_kwargs)
        )
    return message_id


def _insert(*, task: str, args: list[Any], kwargs: dict[str, Any], key: str) -> int | None:
    # One statement whatever happens: ON CONFLICT DO NOTHING keeps the caller's transaction alive
    # on a key already used (the ORM would need a savepoint and a second query to say the same).
    using = router.db_for_write(OutboxMessage)
    connection = connections[using]
    quote = connection.ops.quote_name
    values = {
        "task": task,
        "args": args,
        "kwargs": kwargs,
        "key": key,
        "created_at": timezone.now(),
        "attempts": 0,
        "last_error": "",
    }
    fields = {name: OutboxMessage._meta.get_field(name) for name in values}
    columns = ", ".join(quote(str(field.column)) for field in fields.values() if isinstance(field, Field))
    params = [
        field.get_db_prep_save(values[name], connection)
        for name, field in fields.items()
        if isinstance(field, Field)
    ]
    placeholders = ", ".join(["%s"] * len(params))
    sql = (
        f"INSERT INTO {quote(OutboxMessage._meta.db_table)} ({columns}) VALUES ({placeholders}) "
        f"ON CONFLICT ({quote('key')}) DO NOTHING RETURNING {quote('id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return int(row[0]) if row else None


def _task(name: str) -> Any:
    tasks = current_app.tasks
    if name not in tasks:
        # a management command has not imported every app's tasks module: Celery's autodiscovery does
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def _send(name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    task = _task(name)
    if task.app.conf.task_always_eager:
        task.apply_async(args=args, kwargs=kwargs)  # no broker: the task runs here, now
        return
    # One connection attempt, then fail (the drain sends it later): kombu's own reconnection
    # backoff would hold the request for seconds on every send while the broker is down.
    with task.app.producer_or_acquire() as producer:
        producer.connection.ensure_connection(
            max_retries=1,
            interval_start=0,
            interval_step=0,
            timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT,
        )
        task.apply_async(args=args, kwargs=kwargs, producer=producer, retry=False)


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_LENGTH]


def _send_after_commit(message_id: int, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
    """The send right after COMMIT. Never raises: the change is committed, the request answers
    what it did; a message not sent stays for the drain."""
    try:
        _send(name, args, kwargs)
    except Exception as exc:
        logger.warning(
            "outbox message %s (%s) not sent after commit, left for the drain: %s", message_id, name, exc
        )
        _mark(message_id, error=_error_text(exc))
        return
    _mark(message_id, error=None)


def _mark(message_id: int, *, error: str | None) -> None:
    unsent = OutboxMessage.objects.filter(pk=message_id, sent_at__isnull=True)
    try:
        if error is None:
            unsent.update(sent_at=timezone.now(), attempts=F("attempts") + 1, last_error="")
        else:
            unsent.update(attempts=F("attempts") + 1, last_error=error)
    except DatabaseError as exc:
        # sent but not marked: the drain sends it once more, which an idempotent task absorbs
        logger.warning("outbox message %s could not be marked: %s", message_id, exc)


@dataclass(frozen=True, slots=True)
class DrainResult:
    sent: int
    failed: int
    left: int  # unsent messages after this drain, however young
    broker_down: bool


def outbox_drain(*, limit: int = 500, grace: float | None = None) -> DrainResult:
    """Send the unsent messages older than ``grace`` seconds (``OUTBOX_DRAIN_GRACE_SECONDS``),
    oldest first, at most ``limit``. Stops at the first send the broker refuses (it is down:
    the next drain will try again); a task that fails when run in-process (no broker, eager) is
    recorded on its message and the drain goes on."""
    if grace is None:
        grace = settings.OUTBOX_DRAIN_GRACE_SECONDS
    cutoff = timezone.now() - dt.timedelta(seconds=grace)
    ids = list(
        OutboxMessage.objects.filter(sent_at__isnull=True, created_at__lte=cutoff)
        .order_by("created_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    sent = failed = 0
    broker_down = False
    for message_id in ids:
        outcome = _drain_one(message_id)
        if outcome is None:
            continue  # sent meanwhile, or being sent by another drain
        if outcome is True:
            sent += 1
            continue
        failed += 1
        if isinstance(outcome, (BrokerError, ConnectionError)):
            broker_down = True
            break
    left = OutboxMessage.objects.filter(sent_at__isnull=True).count()
    if sent or failed:
        log = logger.warning if failed else logger.info
        log("outbox drain: %d sent, %d failed, %d left", sent, failed, left)
    return DrainResult(sent=sent, failed=failed, left=left, broker_down=broker_down)


def _drain_one(message_id: int) -> bool | Exception | None:
    with transaction.atomic():
        message = (
            OutboxMessage.objects.select_for_update(skip_locked=True)
            .filter(pk=message_id, sent_at__isnull=True)
            .first()
        )
        if message is None:
            return None
        message.attempts += 1
        try:
            with transaction.atomic():  # a task run in-process (eager) that fails leaves nothing behind
                _send(message.task, list(message.args), dict(message.kwargs))
        except Exception as exc:
            logger.warning("outbox message %s (%s) not sent: %s", message.pk, message.task, exc)
            message.last_error = _error_text(exc)
            message.save(update_fields=["attempts", "last_error"])
            return exc
        message.sent_at = timezone.now()
        message.last_error = ""
        message.save(update_fields=["attempts", "last_error", "sent_at"])
        return True


def outbox_purge(*, before: dt.datetime) -> int:
    """Forget the messages sent before ``before`` (unsent ones are kept, whatever their age)."""
    deleted, _ = OutboxMessage.objects.filter(sent_at__lt=before).delete()
    return deleted


def outbox_backlog() -> dict[str, Any]:
    """What waits to be sent: how many messages, and the age of the oldest (seconds)."""
    found = OutboxMessage.objects.filter(sent_at__isnull=True).aggregate(
        unsent=Count("id"), oldest=Min("created_at")
    )
    oldest = found["oldest"]
    age = round((timezone.now() - oldest).total_seconds(), 1) if oldest is not None else None
    return {"unsent": found["unsent"], "oldest_unsent_seconds": age}
