"""The chain is appended last: audit_record keeps its event until the transaction's outermost
atomic block ends, takes the chain lock only then, and a rolled-back savepoint drops its events."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from audit.models import AuditEvent
from audit.selectors import audit_chain_verify
from audit.services import audit_record
from tables.services import player_create
from tests.factories import CasinoFactory, UserFactory

pytestmark = pytest.mark.django_db


def _chain_lock_held() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.postgres
def test_the_event_is_appended_when_the_block_ends_and_not_before() -> None:
    with transaction.atomic():
        event = audit_record(actor=None, action="test.first")
        second = audit_record(actor=None, action="test.second")
        # kept, not yet on the chain: no seq, no row, no chain lock taken
        assert (event.seq, event.pk, second.seq) == (None, None, None)
        assert AuditEvent.objects.count() == 0
        assert not _chain_lock_held()
    assert (event.seq, second.seq) == (1, 2)  # in the order recorded
    assert second.prev_hash == event.hash
    assert list(AuditEvent.objects.values_list("pk", "action")) == [
        (event.pk, "test.first"),
        (second.pk, "test.second"),
    ]
    assert _chain_lock_held()  # (the test's own transaction is still open: held until it ends)
    report = audit_chain_verify()
    assert (report.ok, report.checked) == (True, 2)


def test_a_rolled_back_savepoint_drops_its_events_and_the_rest_stay_in_order() -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.kept.1")
        with pytest.raises(RuntimeError), transaction.atomic():
            audit_record(actor=None, action="test.dropped")
            with transaction.atomic():
                audit_record(actor=None, action="test.dropped.inner")
            raise RuntimeError("the change failed")
        with transaction.atomic():
            audit_record(actor=None, action="test.kept.2")
    assert list(AuditEvent.objects.values_list("seq", "action")) == [(1, "test.kept.1"), (2, "test.kept.2")]
    assert audit_chain_verify().ok


def test_a_failed_block_appends_nothing() -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(actor=None, action="test.doomed")
        raise RuntimeError
    assert AuditEvent.objects.count() == 0
    with transaction.atomic():
        assert audit_record(actor=None, action="test.after").seq is None
    assert AuditEvent.objects.get().seq == 1


def test_a_service_returns_with_its_events_on_the_chain() -> None:
    casino = CasinoFactory()
    user = UserFactory(username="clerk", roles=["croupier"], casinos=[casino])
    player = player_create(actor=user, casino=casino, display_name="Zoë")
    event = AuditEvent.objects.get(action="tables.player.create")
    assert (event.object_id, event.actor_label) == (str(player.pk), "clerk")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_committed_for_real_the_events_are_appended_before_commit_and_the_lock_released() -> None:
    with transaction.atomic():
        first = audit_record(actor=None, action="test.one")
        assert not _chain_lock_held()
        audit_record(actor=None, action="test.two")
    assert first.seq == 1 and first.pk is not None
    assert not _chain_lock_held()  # released by COMMIT
    assert list(AuditEvent.objects.values_list("seq", flat=True)) == [1, 2]
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(actor=None, action="test.doomed")
        raise RuntimeError
    assert AuditEvent.objects.count() == 2 and audit_chain_verify().ok
