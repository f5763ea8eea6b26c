"""No index the database keeps for nothing: a plain index that is the left edge of another index of
its table answers no lookup the longer one does not, and costs every insert and its bytes on disk
(a coup step, a bet, a ledger entry). The migrations that dropped them (core.migration_ops) leave
the tables, their foreign keys and their append-only triggers as they were, both ways."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from audit.db_triggers import triggers_present
from core.migration_ops import field_own_indexes, field_unique_constraints
from tables.models import CoupStep, ShoeCard
from tests.factories import CoupStepFactory

pytestmark = pytest.mark.django_db

#: third-party tables (Django's auth, django-axes, Celery beat...) keep their own layout
_THEIRS = ("auth_", "axes_", "django_")

#: before and after the drop, per app
_BEFORE = [
    ("core", "0004_idempotency_answers_packed"),
    ("tables", "0031_rules_snapshots"),
    ("ledger", "0011_booksverification_frozen_once_finished"),
    ("compliance", "0002_records_guarded_and_role"),
]

#: the hot tables' foreign keys whose own index went: (table, column)
_DROPPED = [
    ("tables_coupstep", "coup_id"),
    ("tables_bet", "coup_id"),
    ("tables_coup", "shoe_id"),
    ("ledger_entry", "transaction_id"),
    ("ledger_entry", "account_id"),
    ("ledger_transaction", "casino_id"),
    ("core_idempotencyrecord", "user_id"),
    ("compliance_cashlogentry", "casino_id"),
]

#: foreign keys most rows leave empty, indexed where set only: (table, column, partial index);
#: ``reverses`` by its partial unique constraint
_WHERE_SET = [
    ("tables_coupstep", "corrects_id", "coupstep_corrects_set_idx"),
    ("tables_bet", "spectator_id", "bet_spectator_set_idx"),
    ("ledger_transaction", "coup_step_id", "txn_coup_step_set_idx"),
    ("ledger_transaction", "game_coup_id", "txn_game_coup_set_idx"),
    ("ledger_transaction", "reverses_id", "transaction_reversed_once"),
]

#: references each row may be named by once (an amended step, bet or card), unique where set:
#: (table, column, partial unique index); a ``OneToOneField``'s unique index before (tables 0034)
_ONCE_WHERE_SET = [
    ("tables_coupstep", "supersedes_id", "coupstep_superseded_once"),
    ("tables_bet", "replaces_id", "bet_replaced_once"),
    ("tables_shoecard", "replaces_id", "shoecard_replaced_once"),
]

_TRIGGERED = ("tables_coupstep", "ledger_entry", "ledger_transaction", "compliance_cashlogentry")


def _indexes(table: str) -> dict[str, Any]:
    with connection.cursor() as cursor:
        return connection.introspection.get_constraints(cursor, table)


def _foreign_keys(table: str, column: str) -> list[tuple[str, str]]:
    return [
        spec["foreign_key"]
        for spec in _indexes(table).values()
        if spec["foreign_key"] and spec["columns"] == [column]
    ]


_SET_KEYS = [(t, c) for t, c, _ in _WHERE_SET]


def _where_set_now() -> dict[tuple[str, str], tuple[list[str], list[str]]]:
    """Per key of _WHERE_SET: its full plain indexes, and which of the expected partial ones exist."""
    return {
        (t, c): (field_own_indexes(connection, t, c), [i for i in [i] if i in _indexes(t)])
        for t, c, i in _WHERE_SET
    }


def _triggers() -> dict[str, bool]:
    return {table: triggers_present(connection, table) for table in _TRIGGERED}


@pytest.mark.postgres
def test_no_plain_index_is_the_left_edge_of_another_index_of_its_table() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            """
            WITH idx AS (
              SELECT c.relname AS tbl, i.relname AS idx, x.indisunique AS uniq,
                     x.indpred IS NOT NULL AS partial,
                     (SELECT array_agg(k::int ORDER BY n)
                      FROM unnest(x.indkey::int2[]) WITH ORDINALITY u(k, n)) AS cols,
                     (SELECT array_agg(k::oid ORDER BY n)
                      FROM unnest(x.indclass::oid[]) WITH ORDINALITY u(k, n)) AS ops
              FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
              JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = current_schema()
            )
            SELECT a.tbl, a.idx, b.idx FROM idx a JOIN idx b ON a.tbl = b.tbl AND a.idx <> b.idx
            WHERE NOT a.uniq AND NOT a.partial AND NOT b.partial
              AND cardinality(a.cols) <= cardinality(b.cols)
              AND a.cols = b.cols[1:cardinality(a.cols)] AND a.ops = b.ops[1:cardinality(a.ops)]
            ORDER BY 1, 2, 3
            """
        )
        found = [row for row in cursor.fetchall() if not row[0].startswith(_THEIRS)]
    assert found == []


@pytest.mark.django_db(transaction=True)
def test_the_drop_keeps_tables_keys_and_triggers_and_goes_back() -> None:
    keys_before = {(t, c): _foreign_keys(t, c) for t, c in _DROPPED + _SET_KEYS}
    assert all(keys_before.values())
    # (on SQLite some of these tables are guarded otherwise: what counts is that nothing changes)
    triggers_before = _triggers()
    assert triggers_before["ledger_entry"] and triggers_before["compliance_cashlogentry"]
    assert {(t, c): field_own_indexes(connection, t, c) for t, c in _DROPPED} == {k: [] for k in _DROPPED}
    assert _where_set_now() == {(t, c): ([], [i]) for t, c, i in _WHERE_SET}
    executor = MigrationExecutor(connection)
    executor.migrate(_BEFORE)
    try:
        restored = {(t, c): field_own_indexes(connection, t, c) for t, c in _DROPPED}
        assert all(len(names) == 1 for names in restored.values()), restored
        # the full indexes are back, and the partial ones of this change gone (not the constraint)
        assert {k: (len(full), partial) for k, (full, partial) in _where_set_now().items()} == {
            (t, c): (1, [i] if i == "transaction_reversed_once" else []) for t, c, i in _WHERE_SET
        }
        assert _triggers() == triggers_before
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    assert {(t, c): field_own_indexes(connection, t, c) for t, c in _DROPPED} == {k: [] for k in _DROPPED}
    assert _where_set_now() == {(t, c): ([], [i]) for t, c, i in _WHERE_SET}
    assert {(t, c): _foreign_keys(t, c) for t, c in _DROPPED + _SET_KEYS} == keys_before
    assert _triggers() == triggers_before


@pytest.mark.postgres
@pytest.mark.parametrize(("table", "column", "index"), _WHERE_SET + _ONCE_WHERE_SET)
def test_a_key_indexed_where_set_is_found_by_value_through_that_index(
    table: str, column: str, index: str
) -> None:
    with connection.cursor() as cursor:
        # the tables are empty here: without this the planner would rightly scan them instead
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f'EXPLAIN SELECT id FROM "{table}" WHERE "{column}" = %s', [1])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    # "Index Scan using <index> on <table>" or "Bitmap Index Scan on <index>"
    assert re.search(rf"Index Scan (using|on) {index}\b", plan) and "Seq Scan" not in plan, plan


def _uniques(table: str, column: str) -> list[str]:
    return field_unique_constraints(connection, table, column)


@pytest.mark.postgres
@pytest.mark.parametrize(("table", "column", "index"), _ONCE_WHERE_SET)
def test_a_reference_named_once_is_unique_where_set_only(table: str, column: str, index: str) -> None:
    assert _uniques(table, column) == [index]
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [index])
        assert cursor.fetchone()[0].endswith(f"WHERE ({column} IS NOT NULL)")


def test_a_step_amended_twice_is_refused_and_nothing_changes() -> None:
    step = CoupStepFactory(index=1)
    CoupStepFactory(coup=step.coup, index=2, kind="amend", supersedes=step, payload={"amount": 60})
    before = list(CoupStep.objects.order_by("id").values_list("id", "index", "supersedes_id"))

    with pytest.raises(IntegrityError), transaction.atomic():
        CoupStepFactory(coup=step.coup, index=3, kind="amend", supersedes=step, payload={"amount": 70})

    assert list(CoupStep.objects.order_by("id").values_list("id", "index", "supersedes_id")) == before


@pytest.mark.postgres
def test_the_live_cards_of_a_shoe_are_found_through_the_partial_index() -> None:
    """``replaced_by__isnull=True`` (the shoe's live cards) is an anti-join on ``replaces_id``: the
    partial index serves it, as the full one did."""
    query = ShoeCard.objects.filter(shoe_id=1, replaced_by__isnull=True).values_list("card", flat=True)
    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "shoecard_replaced_once" in plan, plan


@pytest.mark.django_db(transaction=True)
def test_the_unique_where_set_goes_back_to_the_one_to_one_and_forward() -> None:
    triggers_before = _triggers()
    keys_before = {(t, c): _foreign_keys(t, c) for t, c, _ in _ONCE_WHERE_SET}
    assert all(keys_before.values())
    executor = MigrationExecutor(connection)
    executor.migrate([("tables", "0033_fk_indexed_where_set")])
    try:
        for table, column, index in _ONCE_WHERE_SET:
            names = _uniques(table, column)
            assert index not in names and len(names) == 1, names
            if connection.vendor == "postgresql":
                assert names == [f"{table}_{column}_key"]
        assert _triggers() == triggers_before
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    for table, column, index in _ONCE_WHERE_SET:
        # SQLite keeps the column's own UNIQUE beside the partial index (no table rebuilt)
        assert index in _uniques(table, column)
        assert len(_uniques(table, column)) == (1 if connection.vendor == "postgresql" else 2)
    assert {(t, c): _foreign_keys(t, c) for t, c, _ in _ONCE_WHERE_SET} == keys_before
    assert _triggers() == triggers_before
