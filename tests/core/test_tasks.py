"""Periodic tasks of core."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from access.tasks import purge_idempotency_records
from audit.models import AuditEvent
from core.models import IdempotencyRecord

pytestmark = pytest.mark.django_db


def test_old_idempotency_records_are_purged_and_the_purge_audited(croupier) -> None:
    now = timezone.now()
    for key, age in (("old", 8), ("older", 30), ("fresh", 1)):
        IdempotencyRecord.objects.create(
            user=croupier,
            key=key,
            fingerprint=b"f" * 32,
            status_code=201,
            created_at=now - dt.timedelta(days=age),
        )
    assert purge_idempotency_records.delay().get() == 2
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    event = AuditEvent.objects.filter(action="tables.idempotencyrecord.purge").get()
    assert event.after is not None
    assert event.after["deleted"] == 2
    assert purge_idempotency_records.delay().get() == 0  # nothing left to purge: nothing audited
    assert AuditEvent.objects.filter(action="tables.idempotencyrecord.purge").count() == 1
