"""The reusable trigger helper, exercised on a scratch SQLite database (independent of the test DB)."""

from __future__ import annotations

import sqlite3

import pytest

from audit.db_triggers import append_only_operation, install_sql, trigger_names, uninstall_sql


@pytest.fixture
def scratch() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE ledger_entry (id INTEGER PRIMARY KEY, amount INTEGER)")
    db.execute("INSERT INTO ledger_entry (amount) VALUES (10)")
    for sql in install_sql("sqlite", "ledger_entry"):
        db.execute(sql)
    return db


@pytest.mark.parametrize(
    "sql,verb", [("UPDATE ledger_entry SET amount = 11", "UPDATE"), ("DELETE FROM ledger_entry", "DELETE")]
)
def test_sqlite_triggers_refuse_and_leave_the_row(scratch: sqlite3.Connection, sql: str, verb: str) -> None:
    with pytest.raises(sqlite3.IntegrityError, match=f"ledger_entry is append-only: {verb} refused"):
        scratch.execute(sql)
    assert scratch.execute("SELECT id, amount FROM ledger_entry").fetchall() == [(1, 10)]


def test_sqlite_inserts_still_work_and_uninstall_removes_the_triggers(scratch: sqlite3.Connection) -> None:
    scratch.execute("INSERT INTO ledger_entry (amount) VALUES (20)")
    for sql in uninstall_sql("sqlite", "ledger_entry"):
        scratch.execute(sql)
    scratch.execute("DELETE FROM ledger_entry")
    assert scratch.execute("SELECT count(*) FROM ledger_entry").fetchone() == (0,)


def test_install_is_idempotent(scratch: sqlite3.Connection) -> None:
    for sql in install_sql("sqlite", "ledger_entry"):
        scratch.execute(sql)
    names = {r[0] for r in scratch.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert names == set(trigger_names("sqlite", "ledger_entry"))


def test_postgres_statements_cover_row_and_truncate_triggers() -> None:
    sql = "\n".join(install_sql("postgresql", "ledger_entry"))
    assert 'BEFORE UPDATE OR DELETE ON "ledger_entry" FOR EACH ROW' in sql
    assert 'BEFORE TRUNCATE ON "ledger_entry" FOR EACH STATEMENT' in sql
    assert "ERRCODE = 'restrict_violation'" in sql


@pytest.mark.parametrize("bad", ["Ledger", "ledger; DROP TABLE x", "1abc", ""])
def test_table_names_are_checked_before_reaching_sql(bad: str) -> None:
    with pytest.raises(ValueError, match="not a plain table name"):
        append_only_operation(bad)


def test_unsupported_database_is_refused_not_left_unprotected() -> None:
    with pytest.raises(NotImplementedError):
        install_sql("mysql", "ledger_entry")
