"""Hashes kept as their 32 bytes (audit 0011, ``audit.models.HashField``): read and written as hex
everywhere above the database, converted both ways by the migration with the chain intact."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from audit.canonical import GENESIS_HASH
from audit.db_triggers import triggers_present
from audit.models import AuditEvent, ChainVerification
from audit.selectors import audit_chain_verify
from audit.services import audit_record, chain_verification_record
from tests.factories import CasinoFactory

pytestmark = pytest.mark.django_db

TABLES = ("audit_auditevent", "audit_chainverification")


def record(**kwargs: object) -> AuditEvent:
    with transaction.atomic():
        return audit_record(**{"actor": None, "action": "test.event", **kwargs})  # type: ignore[arg-type]


def raw_hashes() -> list[tuple[object, object]]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT prev_hash, hash FROM audit_auditevent ORDER BY id")
        return [(_plain(prev), _plain(this)) for prev, this in cursor.fetchall()]


def _plain(value: object) -> object:
    return bytes(value) if isinstance(value, memoryview) else value


def test_a_hash_is_stored_as_32_bytes_and_read_as_hex() -> None:
    first, second = record(), record()
    assert raw_hashes() == [
        (bytes(32), bytes.fromhex(first.hash)),
        (bytes.fromhex(first.hash), bytes.fromhex(second.hash)),
    ]
    stored = AuditEvent.objects.get(pk=second.pk)
    assert (stored.prev_hash, stored.hash) == (first.hash, second.hash)
    assert len(stored.hash) == 64 and stored.hash == stored.hash.lower()
    assert AuditEvent.objects.get(hash=second.hash).pk == second.pk
    assert list(AuditEvent.objects.filter(prev_hash=GENESIS_HASH).values_list("pk", flat=True)) == [first.pk]


def test_a_hash_that_is_not_64_hex_digits_is_refused_and_nothing_is_written() -> None:
    event = record()
    with pytest.raises(ValueError, match="a hash is 64 hex digits, got 63 characters"):
        AuditEvent.objects.filter(hash="a" * 63).exists()
    with pytest.raises(ValueError):
        AuditEvent.objects.filter(hash="z" * 64).exists()
    # bytes of another length, straight to the database: the 32-byte check refuses them
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO audit_chainverification (chain, started_at, finished_at, checked, from_seq,"
            " head_hash, ok, broken_count, first_broken_reason) VALUES (0, %s, %s, 1, 1, %s, true, 0, '')",
            [timezone.now(), timezone.now(), event.hash.encode()],
        )
    assert ChainVerification.objects.count() == 0
    assert list(AuditEvent.objects.values_list("pk", flat=True)) == [event.pk]


def test_the_admin_finds_an_event_by_a_part_of_its_hex_hash(admin_client) -> None:
    one, two = record(), record()
    url = reverse("admin:audit_auditevent_changelist")
    response = admin_client.get(url, {"q": two.hash[10:30].upper()})
    assert response.status_code == 200
    assert [e.pk for e in response.context["cl"].result_list] == [two.pk]
    response = admin_client.get(url, {"q": "not-hex"})
    assert [e.pk for e in response.context["cl"].result_list] == []
    page = admin_client.get(reverse("admin:audit_auditevent_change", args=[one.pk]))
    assert page.status_code == 200 and one.hash in page.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_migration_converts_every_hash_both_ways_and_the_chain_still_verifies() -> None:
    casino = CasinoFactory()
    made = [record(), record(casino=casino), record(after={"n": 3}), record(casino=casino)]
    report = audit_chain_verify(chain=casino.pk)
    verification = chain_verification_record(report=report, started_at=timezone.now())
    hexes = [(e.prev_hash, e.hash) for e in AuditEvent.objects.order_by("id")]
    assert [h for _, h in hexes[:4]] == [e.hash for e in made]
    executor = MigrationExecutor(connection)
    executor.migrate([("audit", "0010_hash_unique_without_like_index")])
    try:
        # the columns hold the same hashes as 64 hex characters again, the triggers in place
        assert raw_hashes() == hexes
        with connection.cursor() as cursor:
            cursor.execute("SELECT head_hash FROM audit_chainverification WHERE id = %s", [verification.pk])
            assert cursor.fetchone()[0] == made[-1].hash
        assert all(triggers_present(connection, table) for table in TABLES)
        if connection.vendor == "postgresql":
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT head_seq, head_hash FROM audit_chain_head_locked(%s)", [casino.pk])
                assert cursor.fetchone() == (2, made[-1].hash)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert raw_hashes() == [(bytes.fromhex(p), bytes.fromhex(h)) for p, h in hexes]
    assert ChainVerification.objects.get(pk=verification.pk).head_hash == made[-1].hash
    assert all(triggers_present(connection, table) for table in TABLES)
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE audit_auditevent SET action = 'x' WHERE id = %s", [made[0].pk])
    # the chains go on from their heads as converted, and verify whole
    after = record(casino=casino)
    assert (after.seq, after.prev_hash) == (3, made[-1].hash)
    out = io.StringIO()
    call_command("verify_audit", full=True, stdout=out)
    assert "audit chain OK (2 chain(s))" in out.getvalue()
