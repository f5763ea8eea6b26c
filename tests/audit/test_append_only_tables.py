"""Every append-only table has its triggers after ``migrate``, on SQLite as on PostgreSQL (tables
0035, ledger 0014: SQLite rebuilds a table to alter it, and the rebuild had dropped the triggers of
the coup steps and the ledger's transactions), and ``verify_audit`` warns about each one that lost
them, not only about the audit trail's own."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from audit.db_triggers import guarded_tables, tables_unguarded, trigger_names
from core.db_roles import APPEND_ONLY_TABLES, FROZEN_ONCE_FINISHED_TABLES
from ledger.models import Transaction
from ledger.services import cage_buy_in
from tables.models import CoupStep
from tests.factories import CasinoFactory, CoupStepFactory, PlayerFactory

pytestmark = pytest.mark.django_db


def _triggered_tables() -> set[str]:
    """The tables that carry a trigger named as the append-only ones, as the database says."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE t.tgname LIKE %s AND NOT t.tgisinternal",
                ["%\\_append\\_only\\_%"],
            )
        else:
            cursor.execute(
                "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name LIKE %s ESCAPE '\\'",
                ["%\\_append\\_only\\_%"],
            )
        return {row[0] for row in cursor.fetchall()}


def test_every_guarded_table_has_its_triggers_after_migrate() -> None:
    assert tables_unguarded(connection) == []
    assert _triggered_tables() == set(guarded_tables())
    assert {"tables_coupstep", "ledger_transaction"} <= set(APPEND_ONLY_TABLES)
    assert set(APPEND_ONLY_TABLES) | set(FROZEN_ONCE_FINISHED_TABLES) <= set(guarded_tables())


def _coup_step() -> CoupStep:
    return CoupStepFactory()


def _ledger_transaction() -> Transaction:
    casino = CasinoFactory()
    return cage_buy_in(actor=None, casino=casino, player=PlayerFactory(casino=casino), amount=100, key="k")


@pytest.mark.parametrize(
    ("table", "make"), [("tables_coupstep", _coup_step), ("ledger_transaction", _ledger_transaction)]
)
def test_a_coup_step_and_a_ledger_transaction_refuse_update_and_delete(
    table: str, make: Callable[[], Any]
) -> None:
    row = make()
    model = type(row)
    before = model.objects.filter(pk=row.pk).values().get()

    for verb, sql in (
        ("UPDATE", f'UPDATE "{table}" SET "id" = "id" WHERE "id" = %s'),
        ("DELETE", f'DELETE FROM "{table}" WHERE "id" = %s'),
    ):
        with pytest.raises(IntegrityError) as refused, transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [row.pk])
        assert f"{table} is append-only: {verb} refused" in str(refused.value)
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.filter(pk=row.pk).delete()

    assert model.objects.filter(pk=row.pk).values().get() == before


def _drop_triggers(table: str) -> None:
    with connection.cursor() as cursor:
        for name in trigger_names(connection.vendor, table):
            if connection.vendor == "postgresql":
                cursor.execute(f'DROP TRIGGER "{name}" ON "{table}"')
            else:
                cursor.execute(f'DROP TRIGGER "{name}"')


def test_verify_audit_warns_about_every_append_only_table_without_its_triggers() -> None:
    _drop_triggers("tables_coupstep")  # undone with the test's transaction
    _drop_triggers("ledger_transaction")
    err = io.StringIO()

    call_command("verify_audit", stdout=io.StringIO(), stderr=err)

    assert err.getvalue().splitlines() == [
        "WARNING: append-only triggers are missing or disabled on ledger_transaction",
        "WARNING: append-only triggers are missing or disabled on tables_coupstep",
    ]
    assert tables_unguarded(connection) == ["ledger_transaction", "tables_coupstep"]
