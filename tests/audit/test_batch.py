"""AuditBatch: many events appended in memory and written at once, exactly as audit_record would
have chained them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.db import transaction

from audit.canonical import event_hash
from audit.models import AuditEvent
from audit.selectors import audit_chain_verify
from audit.services import AuditOutsideTransaction, audit_batch_open, audit_record
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_batch_continues_the_chain_and_audit_record_continues_the_batch() -> None:
    user = UserFactory(username="alice")
    player: Any = PlayerFactory(display_name='Zoë "\\ \t"')
    with transaction.atomic():
        first = audit_record(actor=None, action="test.before")
    with transaction.atomic():
        batch = audit_batch_open()
        built = [
            batch.append(
                actor=user,
                action="test.batch",
                target=player,
                before={"when": dt.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=dt.UTC), "n": n},
                after={"d": Decimal("1.5"), "t": ("a", 1), "nested": {"x": [None, True, "é"]}},
            )
            for n in range(5)
        ]
        mark = batch.mark()
        batch.append(actor=None, action="test.dropped")
        batch.rewind(mark)
        batch.write()
        last = audit_record(actor=None, action="test.after")
    events = list(AuditEvent.objects.order_by("seq"))
    assert [e.action for e in events] == ["test.before", *["test.batch"] * 5, "test.after"]
    assert [e.seq for e in events] == list(range(first.seq, last.seq + 1))
    assert built[0].prev_hash == first.hash and last.prev_hash == built[-1].hash
    for event in events:  # the hash the batch wrote is the one the verifier recomputes
        assert event_hash(event) == event.hash
    assert events[1].before == {"when": "2026-01-02T03:04:05.000006Z", "n": 0}
    assert events[1].after == {"d": "1.5", "t": ["a", 1], "nested": {"x": [None, True, "é"]}}
    assert audit_chain_verify().ok


def test_a_batch_is_opened_and_written_inside_a_transaction() -> None:
    # pytest-django wraps each test in a transaction; leave it for this check.
    from django.db import connection

    with transaction.atomic():
        batch = audit_batch_open()
        batch.append(actor=None, action="test.event")
    atomic, connection.in_atomic_block = connection.in_atomic_block, False
    try:
        with pytest.raises(AuditOutsideTransaction):
            audit_batch_open()
        with pytest.raises(AuditOutsideTransaction):
            batch.write()
    finally:
        connection.in_atomic_block = atomic
