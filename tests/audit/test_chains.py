"""One audit chain per casino plus the global chain (issue 13 §3): which chain an event goes on,
gapless seqs per chain, casinos that do not wait for each other, the existing chain kept."""

from __future__ import annotations

import hashlib
import io
import threading
import time
from itertools import pairwise

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.canonical import GENESIS_HASH, canonical_json, event_content
from audit.models import GLOBAL_CHAIN, AuditEvent
from audit.selectors import audit_chain_heads, audit_chain_verify, audit_chains, audit_chains_verify
from audit.services import _CASINO_LOCK_CLASS, audit_record, casino_path, chain_of
from tables.models import Coup, Player
from tables.services import player_create
from tests.factories import CasinoFactory, PlayerFactory, TableFactory, TableSessionFactory, UserFactory

pytestmark = pytest.mark.django_db


def record(**kwargs) -> AuditEvent:
    with transaction.atomic():
        return audit_record(**{"actor": None, "action": "test.event", **kwargs})


def test_the_road_to_the_casino_is_found_per_model() -> None:
    assert casino_path("tables.casino") == ()
    assert casino_path("tables.table") == ("casino",)
    assert casino_path("tables.player") == ("casino",)
    assert casino_path("tables.tablesession") == ("table", "casino")
    assert casino_path("tables.coup") == ("shoe", "table", "casino")  # not the banker's casino
    assert casino_path("tables.bankshare") == ("turn", "session", "table", "casino")
    assert casino_path("ledger.transaction") == ("casino",)
    assert casino_path("tables.ruleprofile") == ("casino",)  # nullable: a built-in one is global
    assert casino_path("auth.user") is None
    assert casino_path("core.apitoken") is None


def test_events_go_on_their_casinos_chain_or_the_global_one() -> None:
    one, two = CasinoFactory(), CasinoFactory()
    user = UserFactory()
    table = TableFactory(casino=two)
    made = [
        record(target=PlayerFactory(casino=one)),  # a model with casino_id
        record(target=table),
        record(target=two),  # the casino itself
        record(target=user),  # a user: no casino
        record(),  # no target
        record(target=user, casino=one),  # the caller knows better
        record(target=PlayerFactory(casino=one)),
        record(casino=two.pk),
    ]
    assert [(e.chain, e.seq) for e in made] == [
        (one.pk, 1), (two.pk, 1), (two.pk, 2), (0, 1), (0, 2), (one.pk, 2), (one.pk, 3), (two.pk, 3),
    ]  # fmt: skip
    # each chain starts at the genesis hash and links event to event
    for chain in (0, one.pk, two.pk):
        events = list(AuditEvent.objects.filter(chain=chain).order_by("seq"))
        assert events[0].prev_hash == GENESIS_HASH
        assert all(b.prev_hash == a.hash for a, b in pairwise(events))
    assert audit_chains() == [0, one.pk, two.pk]
    assert {c: p.seq for c, p in audit_chain_heads().items()} == {0: 2, one.pk: 3, two.pk: 3}
    assert [(r.chain, r.ok, r.checked) for r in audit_chains_verify()] == [
        (0, True, 2), (one.pk, True, 3), (two.pk, True, 3),
    ]  # fmt: skip


def test_a_casinos_event_hashes_its_chain_and_a_global_one_does_not() -> None:
    player = PlayerFactory()
    on_casino, on_global = record(target=player), record()
    assert event_content(on_casino)["chain"] == player.casino_id
    assert "chain" not in event_content(on_global)  # byte for byte the layout of before the chains


def test_the_chain_is_read_from_loaded_relations_without_a_query() -> None:
    table = TableFactory()
    coup = Coup(pk=10**9)  # never saved: only its loaded relations are read
    shoe = table.shoes.model(pk=10**9, table=table)
    coup.shoe = shoe
    with CaptureQueriesContext(connection) as queries:
        assert chain_of(coup) == table.casino_id
    assert len(queries) == 0


def test_a_relation_not_loaded_is_resolved_at_commit_in_one_query_per_model() -> None:
    casino = CasinoFactory()
    players = [PlayerFactory(casino=casino) for _ in range(3)]
    # a player as a bare row (its casino_id is on it: no query at all)
    assert chain_of(Player.objects.only("pk", "casino_id").get(pk=players[0].pk)) == casino.pk
    sessions = [TableSessionFactory(table=TableFactory(casino=casino)) for _ in range(3)]
    fresh = list(type(sessions[0]).objects.filter(pk__in=[s.pk for s in sessions]))  # table not loaded
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        made = [audit_record(actor=None, action="test.event", target=s) for s in fresh]
        recorded = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert recorded == []  # nothing read while recording
    lookups = [q["sql"] for q in queries if '"tables_table"' in q["sql"] and "audit" not in q["sql"]]
    assert len(lookups) == 1  # the three sessions' casino in one query, at COMMIT
    assert [(e.chain, e.seq) for e in made] == [(casino.pk, 1), (casino.pk, 2), (casino.pk, 3)]


def test_logins_and_users_are_on_the_global_chain(client) -> None:
    user = UserFactory(username="pit", password="a-long-password-1")
    PlayerFactory()  # a casino chain exists too
    client.post("/accounts/login/", {"username": "pit", "password": "a-long-password-1"})
    for event in AuditEvent.objects.filter(action__startswith="auth."):
        assert event.chain == GLOBAL_CHAIN, event.action
    assert AuditEvent.objects.filter(action="auth.login", actor=user, chain=GLOBAL_CHAIN).count() == 1


def test_verify_audit_walks_every_chain_or_one(capsys) -> None:
    one = CasinoFactory()
    record()
    record(casino=one)
    record(casino=one)
    out = io.StringIO()
    call_command("verify_audit", full=True, stdout=out)
    text = out.getvalue()
    assert "global chain: events checked: 1 (the whole chain)" in text
    assert f"chain {one.pk} (casino {one.pk}): events checked: 2 (the whole chain)" in text
    assert "audit chain OK (2 chain(s))" in text
    out = io.StringIO()
    call_command("verify_audit", full=True, chain=one.pk, stdout=out)
    assert "global chain" not in out.getvalue() and "audit chain OK (1 chain(s))" in out.getvalue()


# ----------------------------------------------------------------------- PostgreSQL: concurrency


@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_casino_commits_while_another_casinos_chain_is_locked() -> None:
    """Casino A's chain lock held by another connection: casino B's audited transaction commits
    meanwhile; A's waits for the lock and commits once it is released, its seqs still gapless."""
    a, b = CasinoFactory(), CasinoFactory()
    record(casino=a)
    holder = connections.create_connection("default")
    done: dict[str, float] = {}
    errors: list[BaseException] = []

    def write(casino, name: str) -> None:
        try:
            player_create(actor=None, casino=casino, display_name=name)
            done[name] = time.monotonic()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    try:
        holder.set_autocommit(False)
        with holder.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_CASINO_LOCK_CLASS, a.pk])
        blocked = threading.Thread(target=write, args=(a, "at A"))
        blocked.start()
        time.sleep(0.5)
        assert "at A" not in done  # waiting for A's chain
        free = threading.Thread(target=write, args=(b, "at B"))
        free.start()
        free.join(timeout=20)
        assert "at B" in done and "at A" not in done  # B committed while A's chain was held
        assert AuditEvent.objects.filter(chain=b.pk).count() == 1
        holder.rollback()  # releases A's chain
        blocked.join(timeout=20)
        assert "at A" in done and done["at B"] < done["at A"]
    finally:
        holder.close()
    assert errors == []
    assert list(AuditEvent.objects.filter(chain=a.pk).order_by("seq").values_list("seq", flat=True)) == [1, 2]
    assert all(r.ok for r in audit_chains_verify())


@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_two_casinos_writing_in_parallel_keep_gapless_chains() -> None:
    casinos = [CasinoFactory(), CasinoFactory()]
    threads_per_casino, writes = 3, 15
    start = threading.Barrier(len(casinos) * threads_per_casino)
    errors: list[BaseException] = []

    def writer(casino, t: int) -> None:
        try:
            start.wait()
            for i in range(writes):
                player_create(actor=None, casino=casino, display_name=f"{casino.pk}-{t}-{i}")
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=writer, args=(c, t)) for c in casinos for t in range(threads_per_casino)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    for casino in casinos:
        events = list(AuditEvent.objects.filter(chain=casino.pk).order_by("seq"))
        assert [e.seq for e in events] == list(range(1, threads_per_casino * writes + 1))
        assert all(b.prev_hash == a.hash for a, b in pairwise(events))
        report = audit_chain_verify(chain=casino.pk)
        assert (report.ok, report.checked) == (True, threads_per_casino * writes)
    assert AuditEvent.objects.filter(chain=GLOBAL_CHAIN).count() == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_transaction_over_two_casinos_takes_their_locks_in_ascending_order() -> None:
    a, b = CasinoFactory(), CasinoFactory()
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        audit_record(actor=None, action="test.event", casino=b)
        audit_record(actor=None, action="test.event", casino=a)
        audit_record(actor=None, action="test.event")
    locks = [q["sql"] for q in queries if "audit_chain_head_locked" in q["sql"]]
    assert locks == [
        f"SELECT head_seq, head_hash FROM audit_chain_head_locked({chain})" for chain in (0, a.pk, b.pk)
    ]
    assert sorted(AuditEvent.objects.values_list("chain", "seq")) == [(0, 1), (a.pk, 1), (b.pk, 1)]


# ---------------------------------------------------------------------- the migration (audit 0006)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_existing_single_chain_stays_valid_through_the_migration() -> None:
    """Events written before audit 0006 (one chain, no chain column) become the global chain with
    their hashes unchanged; new events continue it, and casinos' chains start beside it."""
    executor = MigrationExecutor(connection)
    executor.migrate([("audit", "0005_verification_from_seq")])
    try:
        old = []
        prev = GENESIS_HASH
        with transaction.atomic(), connection.cursor() as cursor:
            for seq in range(1, 4):
                event = AuditEvent(
                    seq=seq,
                    occurred_at=timezone.now(),
                    actor_label="system",
                    action="test.old",
                    after={"n": seq},
                    prev_hash=prev,
                    key_id="",
                )
                content = event_content(event)
                assert "chain" not in content  # the layout of before: no chain
                event.hash = hashlib.sha256(prev.encode() + b"\n" + canonical_json(content)).hexdigest()
                cursor.execute(
                    "INSERT INTO audit_auditevent (seq, occurred_at, actor_label, action, object_type,"
                    " object_id, after, prev_hash, hash, key_id)"
                    " VALUES (%s, %s, 'system', 'test.old', '', '', %s::jsonb, %s, %s, '')",
                    [seq, event.occurred_at, f'{{"n": {seq}}}', prev, event.hash],
                )
                old.append((seq, event.hash))
                prev = event.hash
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert list(AuditEvent.objects.order_by("seq").values_list("chain", "seq", "hash")) == [
        (0, seq, h) for seq, h in old
    ]
    casino = CasinoFactory()
    new_global, new_casino = record(), record(casino=casino)
    assert (new_global.chain, new_global.seq, new_global.prev_hash) == (0, 4, old[-1][1])
    assert (new_casino.chain, new_casino.seq, new_casino.prev_hash) == (casino.pk, 1, GENESIS_HASH)
    out = io.StringIO()
    # production sets the cut-over's seq (docs/audit.md, "Cut-over from plain hashes")
    with override_settings(AUDIT_PLAIN_UNTIL_SEQ=3):
        call_command("verify_audit", full=True, stdout=out)
    assert (
        "global chain: plain SHA-256 events (before the keyed cut-over): 3, the last seq=3" in out.getvalue()
    )
    assert "audit chain OK (2 chain(s))" in out.getvalue()


@pytest.mark.postgres
def test_the_lock_and_head_function_is_pinned_to_a_search_path() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.proconfig, p.provolatile FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = current_schema() AND p.proname = 'audit_chain_head_locked'"
        )
        config, volatile = cursor.fetchone()
    path = next(c for c in config if c.startswith("search_path="))
    schemas = [s.strip() for s in path.removeprefix("search_path=").split(",")]
    # the catalog first, the temporary schema last; volatile: each statement sees the latest commits
    assert (schemas[0], schemas[-1], volatile) == ("pg_catalog", "pg_temp", "v")


@pytest.mark.postgres  # the edit bypasses the append-only triggers the PostgreSQL way
def test_incremental_verification_starts_each_chain_at_its_newest_anchor(settings, tmp_path) -> None:
    from audit.tasks import audit_anchor_task

    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    casino = CasinoFactory()
    record()
    for _ in range(3):
        record(casino=casino)
    assert audit_anchor_task.delay().get()["heads"] == {"global": 1, f"casino:{casino.pk}": 3}
    record(casino=casino)
    record(casino=casino)
    record()
    out = io.StringIO()
    call_command("verify_audit", stdout=out)
    text = out.getvalue()
    assert f"chain {casino.pk} (casino {casino.pk}): events checked: 2 (from seq 4; seq 3 and before" in text
    # seq 2 records the anchor file (audit.anchorfile.record), seq 3 the event recorded since
    assert "global chain: events checked: 2 (from seq 2; seq 1 and before" in text
    # the casino's vouched head rewritten: that chain is named, from where it was vouched for
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            "UPDATE audit_auditevent SET hash = %s WHERE chain = %s AND seq = 3",
            [bytes.fromhex("f" * 64), casino.pk],
        )
    with pytest.raises(CommandError) as info:
        call_command("verify_audit", stdout=io.StringIO())
    assert str(info.value).startswith(f"audit chain BROKEN: first broken event chain={casino.pk} seq=3 ")
    assert "the event an earlier verification vouched for is gone or its hash changed" in str(info.value)
