"""core.atomic: a service joins an all-or-nothing transaction without a savepoint, and opens one
everywhere else; a failure inside such a transaction still leaves nothing behind."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.atomic import service_atomic, whole_transaction
from core.models import IdempotencyRecord
from core.services.idempotency import idempotent_run

pytestmark = pytest.mark.django_db


def _write(user, key: str, *, fail: bool = False) -> None:
    IdempotencyRecord.objects.create(user=user, key=key, fingerprint=b"f", created_at=timezone.now())
    if fail:
        raise ValidationError("refused after writing")


service = service_atomic(_write)


def _savepoints(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"].split()[0] for q in ctx.captured_queries if "SAVEPOINT" in q["sql"].upper()]


def test_inside_a_transaction_a_service_opens_a_savepoint(outsider) -> None:
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        service(outsider, "a")
    assert _savepoints(ctx) == ["SAVEPOINT", "RELEASE"]  # the service's (the block's own is not captured)
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["a"]


def test_inside_a_whole_transaction_it_opens_none(outsider) -> None:
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx, whole_transaction():
        service(outsider, "a")
        service(outsider, "b")
    assert _savepoints(ctx) == []
    assert sorted(IdempotencyRecord.objects.values_list("key", flat=True)) == ["a", "b"]


def test_a_failure_caught_inside_a_whole_transaction_cannot_be_committed(outsider) -> None:
    with pytest.raises(TransactionManagementError), transaction.atomic(), whole_transaction():
        service(outsider, "a")
        with pytest.raises(ValidationError):
            service(outsider, "b", fail=True)
        IdempotencyRecord.objects.count()  # the transaction is marked for rollback: refused
    assert IdempotencyRecord.objects.count() == 0


def test_whole_transaction_ends_with_its_block(outsider) -> None:
    with transaction.atomic():
        with whole_transaction():
            pass
        with CaptureQueriesContext(connection) as ctx:
            service(outsider, "a")
    assert _savepoints(ctx) == ["SAVEPOINT", "RELEASE"]  # the service's own again


def test_an_idempotent_request_refused_after_a_write_keeps_nothing(outsider) -> None:
    def work() -> tuple[int, dict[str, str]]:
        service(outsider, "written-by-the-work")
        service(outsider, "refused", fail=True)
        return 201, {}

    with pytest.raises(ValidationError):
        idempotent_run(user=outsider, key="request-1", fingerprint=b"f", work=work)
    assert IdempotencyRecord.objects.count() == 0  # neither the claim nor the work's row
    # and the key was not used up: the same request runs again
    answer = idempotent_run(
        user=outsider, key="request-1", fingerprint=b"f", work=lambda: (201, {"ok": "yes"})
    )
    assert (answer.status, answer.body, answer.replayed) == (201, {"ok": "yes"}, False)
    assert list(IdempotencyRecord.objects.values_list("key", "status_code")) == [("request-1", 201)]
