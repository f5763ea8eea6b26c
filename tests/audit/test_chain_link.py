"""The database refuses an event that does not follow its predecessor (audit.db_triggers, "the
chain's links"; audit 0012), on both databases: a fork, a gap, a chain started anywhere but at the
genesis, a link to another chain's event. What the trigger lets through is exactly what the
appender writes; whether the hash is the right HMAC stays the verifier's to say.
"""

from __future__ import annotations

import hashlib
import io
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from audit.canonical import GENESIS_HASH
from audit.db_triggers import chain_link_present, triggers_present
from audit.models import AuditEvent
from audit.services import audit_record

pytestmark = pytest.mark.django_db

_COLUMNS = "chain, seq, occurred_at, actor_label, action, object_type, object_id, prev_hash, hash, key_id"


def three_events() -> list[AuditEvent]:
    with transaction.atomic():
        return [audit_record(actor=None, action="test.event", after={"n": n}) for n in (1, 2, 3)]


def fake_hash(label: str) -> bytes:
    return hashlib.sha256(label.encode()).digest()


def raw_insert(*rows: tuple[int, int, str]) -> None:
    """INSERT events (chain, seq, prev_hash in hex) as a writer without the appender would, in one
    statement, each with a made-up hash."""
    values = ", ".join(["(%s, %s, %s, 'intruder', 'forged.event', '', '', %s, %s, '')"] * len(rows))
    params: list[Any] = []
    for chain, seq, prev_hash in rows:
        params += [chain, seq, timezone.now(), bytes.fromhex(prev_hash), fake_hash(f"{chain}/{seq}")]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO audit_auditevent ({_COLUMNS}) VALUES {values}", params)


def trail() -> list[tuple[int, int, str]]:
    return list(AuditEvent.objects.order_by("chain", "seq").values_list("chain", "seq", "hash"))


def test_the_link_trigger_is_installed_beside_the_append_only_ones() -> None:
    assert chain_link_present(connection)
    assert triggers_present(connection, "audit_auditevent")


@pytest.mark.parametrize(
    "case",
    [
        "fork: a fourth event naming the second as its predecessor",
        "gap: a fifth event with no fourth",
        "wrong genesis: a new chain's first event naming a predecessor",
        "no genesis: a new chain starting at seq 2",
        "crossed chains: a casino chain's event linked to the global chain's head",
        "duplicate: a second third event, linked as the first was",
    ],
)
def test_an_event_that_does_not_follow_its_predecessor_is_refused(case: str) -> None:
    _, second, third = three_events()
    forged = {
        "fork": (0, 4, second.hash),
        "gap": (0, 5, third.hash),
        "wrong genesis": (77, 1, third.hash),
        "no genesis": (77, 2, GENESIS_HASH),
        "crossed chains": (77, 4, third.hash),
        "duplicate": (0, 3, second.hash),
    }[case.split(":")[0]]
    before = trail()

    with pytest.raises(IntegrityError):
        raw_insert(forged)

    assert trail() == before


def test_a_linked_event_is_let_through_and_its_hash_left_to_the_verifier() -> None:
    *_, third = three_events()

    raw_insert((0, 4, third.hash), (0, 5, fake_hash("0/4").hex()), (78, 1, GENESIS_HASH))

    assert [(chain, seq) for chain, seq, _ in trail()] == [(0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (78, 1)]
    with pytest.raises(CommandError) as failed:
        call_command("verify_audit", "--chain", "0", stdout=io.StringIO(), stderr=io.StringIO())
    forged = AuditEvent.objects.get(chain=0, seq=4)
    assert f"first broken event chain=0 seq=4 id={forged.pk}" in str(failed.value)


def test_one_bad_link_in_a_many_row_statement_refuses_the_whole_statement() -> None:
    *_, third = three_events()
    before = trail()

    with pytest.raises(IntegrityError):
        raw_insert((0, 4, third.hash), (0, 5, fake_hash("0/4").hex()), (0, 6, third.hash))

    assert trail() == before


def test_the_appender_goes_on_after_a_refused_forgery() -> None:
    *_, third = three_events()
    with pytest.raises(IntegrityError):
        raw_insert((0, 4, GENESIS_HASH))

    with transaction.atomic():
        fourth = audit_record(actor=None, action="test.event", after={"n": 4})

    assert (fourth.seq, fourth.prev_hash) == (4, third.hash)


@pytest.mark.postgres
def test_a_copy_with_a_bad_link_is_refused_whole() -> None:
    """The batched import writes its events with COPY: the statement trigger sees those rows too."""
    *_, third = three_events()
    before = trail()
    rows = [(0, 4, third.hash), (0, 5, GENESIS_HASH)]

    with (
        pytest.raises(psycopg.IntegrityError, match="chain=0 seq=5 does not follow its predecessor"),
        transaction.atomic(),
        connection.cursor() as cursor,
        cursor.copy(f"COPY audit_auditevent ({_COLUMNS}) FROM STDIN") as copy,
    ):
        for chain, seq, prev in rows:
            copy.write_row(
                [chain, seq, timezone.now(), "intruder", "forged.event", "", "", bytes.fromhex(prev),
                 fake_hash(f"{chain}/{seq}"), ""]
            )  # fmt: skip

    assert trail() == before


@pytest.mark.postgres
def test_the_events_table_keeps_no_index_on_a_hash() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'audit_auditevent' ORDER BY 1")
        names = [name for (name,) in cursor.fetchall()]
    assert [n for n in names if not n.startswith("audit_auditevent_actor_id_")] == [
        "audit_auditevent_pkey",
        "audit_chain_seq_unique",
        "audit_object_idx",
        "audit_verify_request_idx",
    ]
    assert len(names) == 5


@pytest.mark.django_db(transaction=True)
def test_the_migration_walks_back_to_the_unique_indexes_and_forward_to_the_trigger() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([("audit", "0011_hashes_as_bytes")])
    try:
        assert not chain_link_present(connection)
        assert triggers_present(connection, "audit_auditevent")
        constraints = connection.introspection.get_constraints(connection.cursor(), "audit_auditevent")
        assert {"audit_hash_unique", "audit_chain_prev_hash_unique"} <= set(constraints)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    constraints = connection.introspection.get_constraints(connection.cursor(), "audit_auditevent")
    assert not {"audit_hash_unique", "audit_chain_prev_hash_unique"} & set(constraints)
    assert chain_link_present(connection)
    assert triggers_present(connection, "audit_auditevent")
    with transaction.atomic():
        head = audit_record(actor=None, action="test.event", after={"n": 1})
    before = trail()
    with pytest.raises(IntegrityError):
        raw_insert((0, head.seq + 1, GENESIS_HASH))
    assert trail() == before
