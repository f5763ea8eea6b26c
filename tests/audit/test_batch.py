"""Many events in one transaction (a bulk writer: import_coups): appended at COMMIT with one COPY,
linked and hashed exactly as one at a time; a bulk writer takes back what it recorded since a mark."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.db import transaction

from audit.canonical import event_hash
from audit.models import AuditEvent
from audit.selectors import audit_chain_verify
from audit.services import _COPY_FROM, audit_pending_mark, audit_pending_rewind, audit_record
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_many_events_are_appended_with_copy_and_chained_as_ever() -> None:
    user = UserFactory(username="alice")
    player: Any = PlayerFactory(display_name='Zoë "\\ \t"')
    with transaction.atomic():
        first = audit_record(actor=None, action="test.before", casino=player.casino_id)
    n = _COPY_FROM + 50
    with transaction.atomic():
        built = [
            audit_record(
                actor=user,
                action="test.bulk",
                target=player,
                before={"when": dt.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=dt.UTC), "n": i},
                after={"d": Decimal("1.5"), "t": ("a", 1), "nested": {"x": [None, True, "é"]}},
            )
            for i in range(n)
        ]
    with transaction.atomic():
        last = audit_record(actor=None, action="test.after", casino=player.casino)
    # every event on the player's casino's chain (the bulk ones found from their target)
    assert AuditEvent.objects.exclude(chain=player.casino_id).count() == 0
    events = list(AuditEvent.objects.order_by("seq"))
    assert [e.action for e in events] == ["test.before", *["test.bulk"] * n, "test.after"]
    assert [e.seq for e in events] == list(range(first.seq, last.seq + 1))
    assert [e.pk for e in events[1:-1]] == [e.pk for e in built]  # the ids were set
    assert built[0].prev_hash == first.hash and last.prev_hash == built[-1].hash
    for event in events:  # the hash written is the one the verifier recomputes
        assert event_hash(event) == event.hash
    assert events[1].before == {"when": "2026-01-02T03:04:05.000006Z", "n": 0}
    assert events[1].after == {"d": "1.5", "t": ["a", 1], "nested": {"x": [None, True, "é"]}}
    report = audit_chain_verify(chain=player.casino_id)
    assert (report.ok, report.checked, report.head_seq) == (True, n + 2, last.seq)


def test_a_bulk_writer_takes_back_the_events_since_a_mark() -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.kept")
        mark = audit_pending_mark()
        assert mark is not None
        audit_record(actor=None, action="test.dropped")
        audit_record(actor=None, action="test.dropped")
        audit_pending_rewind(mark)
        audit_record(actor=None, action="test.kept")
    assert list(AuditEvent.objects.values_list("action", flat=True)) == ["test.kept", "test.kept"]
    assert audit_chain_verify().ok
