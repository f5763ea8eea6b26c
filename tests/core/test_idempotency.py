"""A retried request gets its first answer back, byte for byte, from the packed record."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.utils import timezone

from core.answers import answer_unpack
from core.models import IdempotencyRecord
from tests.tables.api.conftest import Api
from tests.tables.play import open_floor, row_counts

pytestmark = pytest.mark.django_db


def test_a_retry_gets_the_same_status_and_body_bytes(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    body = {"step": 1, "kind": "bet", "seat": 2, "amount": 40}
    first = api.post(f"/coups/{coup}/steps/", body, key="retry-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    after = row_counts()

    again = api.post(f"/coups/{coup}/steps/", body, key="retry-1")

    assert (again.status_code, again.content, again["Idempotent-Replayed"]) == (201, first.content, "true")
    assert row_counts() == after
    record = IdempotencyRecord.objects.get(user=croupier, key="retry-1")
    assert record.status_code == 201
    # the claim's time, as the purge reads it (access.services.idempotency)
    assert timezone.now() - dt.timedelta(minutes=1) < record.created_at <= timezone.now()
    assert answer_unpack(record.answer) == first.json()
    assert len(bytes(record.answer)) * 4 < len(first.content)  # packed: under a quarter of the body
    path = f"/api/v1/coups/{coup}/steps/"
    canonical = '{"amount":40,"kind":"bet","seat":2,"step":1}'
    assert bytes(record.fingerprint) == hashlib.sha256(f"POST\n{path}\n{canonical}".encode()).digest()


@pytest.mark.django_db(transaction=True)
def test_the_migration_packs_the_records_kept_and_they_still_replay() -> None:
    """core 0004: a record stored as ``jsonb`` with a hex fingerprint is converted, not lost; an
    unanswered claim keeps an empty answer."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from core.services.idempotency import _replay
    from tests.factories import UserFactory

    user = UserFactory()
    body = {"coup": {"id": 3, "players": ["Жан", "Zoë"]}, "step": None}
    digest = hashlib.sha256(b"a request").digest()
    executor = MigrationExecutor(connection)
    executor.migrate([("core", "0003_outbox")])
    try:
        old = MigrationExecutor(connection).loader.project_state([("core", "0003_outbox")]).apps
        records = old.get_model("core", "IdempotencyRecord")
        records.objects.create(
            user_id=user.pk, key="old-1", fingerprint=digest.hex(), status_code=201, response=body,
            created_at="2026-12-01T10:00:00Z",
        )
        records.objects.create(
            user_id=user.pk,
            key="old-2",
            fingerprint=digest.hex(),
            status_code=0,
            created_at="2026-12-01T10:00:00Z",
        )
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    answered = IdempotencyRecord.objects.get(key="old-1")
    assert bytes(answered.fingerprint) == digest
    assert (answered.status_code, answer_unpack(answered.answer)) == (201, body)
    replayed = _replay(answered, digest)
    assert (replayed.status, replayed.body, replayed.replayed) == (201, body, True)
    claimed = IdempotencyRecord.objects.get(key="old-2")
    assert (bytes(claimed.fingerprint), claimed.status_code, bytes(claimed.answer)) == (digest, 0, b"")
