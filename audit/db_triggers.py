"""Database triggers that make a table append-only, installable from any migration.

Usage in a migration::

    from audit.db_triggers import append_only_operation
    operations = [append_only_operation("ledger_entry")]

PostgreSQL: BEFORE UPDATE OR DELETE row trigger + BEFORE TRUNCATE statement trigger, both raising
SQLSTATE 23001 (restrict_violation, surfaced by Django as IntegrityError). SQLite: BEFORE UPDATE
and BEFORE DELETE triggers with RAISE(ABORT). Other databases are refused rather than left
unprotected. A PostgreSQL *superuser* can always bypass triggers (e.g. session_replication_role):
the application's role must not be one (docs/deployment.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.db import migrations
from django.db.backends.base.base import BaseDatabaseWrapper

GUARD_FUNCTION = "append_only_guard"
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")

#: the search_path of the guard function (docs/audit.md, "Append-only in the database"): the system
#: catalog first and the session's temporary schema last, so that nothing of the caller's TEMP schema
#: shadows a name it uses (the functions that read tables also list their schema and qualify names)
PG_SEARCH_PATH = "pg_catalog, pg_temp"

_PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {GUARD_FUNCTION}() RETURNS trigger LANGUAGE plpgsql
SET search_path = {PG_SEARCH_PATH} AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$
"""


def _checked(table: str) -> str:
    # Table names are interpolated into DDL; accept only plain lowercase identifiers.
    if not _IDENTIFIER.match(table):
        raise ValueError(f"not a plain table name: {table!r}")
    return table


def trigger_names(vendor: str, table: str) -> list[str]:
    table = _checked(table)
    if vendor == "postgresql":
        return [f"{table}_append_only_row", f"{table}_append_only_truncate"]
    if vendor == "sqlite":
        return [f"{table}_append_only_update", f"{table}_append_only_delete"]
    raise NotImplementedError(f"append-only triggers are not implemented for {vendor}")


def install_sql(vendor: str, table: str) -> list[str]:
    """The statements that make ``table`` append-only (idempotent)."""
    row, second = trigger_names(vendor, table)
    if vendor == "postgresql":
        return [
            _PG_FUNCTION,
            f'DROP TRIGGER IF EXISTS "{row}" ON "{table}"',
            f'CREATE TRIGGER "{row}" BEFORE UPDATE OR DELETE ON "{table}" '
            f"FOR EACH ROW EXECUTE FUNCTION {GUARD_FUNCTION}()",
            f'DROP TRIGGER IF EXISTS "{second}" ON "{table}"',
            f'CREATE TRIGGER "{second}" BEFORE TRUNCATE ON "{table}" '
            f"FOR EACH STATEMENT EXECUTE FUNCTION {GUARD_FUNCTION}()",
        ]
    return [
        f'CREATE TRIGGER IF NOT EXISTS "{name}" BEFORE {op} ON "{table}" '
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END"
        for name, op in ((row, "UPDATE"), (second, "DELETE"))
    ]


def uninstall_sql(vendor: str, table: str) -> list[str]:
    # The shared PostgreSQL guard function is left in place: other tables may use it.
    if vendor == "postgresql":
        return [f'DROP TRIGGER IF EXISTS "{name}" ON "{table}"' for name in trigger_names(vendor, table)]
    return [f'DROP TRIGGER IF EXISTS "{name}"' for name in trigger_names(vendor, table)]


def triggers_present(connection: BaseDatabaseWrapper, table: str) -> bool:
    """Whether both append-only triggers exist on ``table`` (and, on PostgreSQL, are enabled)."""
    names = trigger_names(connection.vendor, table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE c.relname = %s AND t.tgname = ANY(%s) AND t.tgenabled <> 'D'",
                [table, names],
            )
        else:
            cursor.execute(
                "SELECT count(*) FROM sqlite_master "
                "WHERE type = 'trigger' AND tbl_name = %s AND name IN (%s, %s)",
                [table, *names],
            )
        return cursor.fetchone()[0] == len(names)


def _runner(statements: Callable[[str, str], list[str]], table: str) -> Callable:
    def run(apps, schema_editor) -> None:
        for sql in statements(schema_editor.connection.vendor, table):
            # params=None: the SQL contains literal '%' (plpgsql RAISE) and must not be interpolated.
            schema_editor.execute(sql, params=None)

    return run


def append_only_operation(table: str) -> migrations.RunPython:
    """A migration operation installing (and, reversed, removing) the append-only triggers."""
    _checked(table)
    return migrations.RunPython(_runner(install_sql, table), _runner(uninstall_sql, table))


# ------------------------------------------------------------------ frozen once finished
# A row the application writes in steps (a report run: queued, running, then finished with its
# file's sha256; a books verification: running, then its result) and never touches again: while
# it is in progress its columns move; once its ``column`` holds one of ``finals`` no column
# changes; it is never deleted (issue 20: the app role could rewrite a finished report's digest or
# a verification's result, or delete either). Trigger names contain ``append_only`` so that the test
# suite's flush passes them (tests/conftest.py).


def frozen_function(table: str) -> str:
    return f"{_checked(table)}_frozen_guard"


def _finals_sql(finals: tuple[str, ...]) -> str:
    for value in finals:
        if not _IDENTIFIER.match(value):
            raise ValueError(f"not a plain status word: {value!r}")
    return "(" + ", ".join(f"'{value}'" for value in finals) + ")"


def frozen_install_sql(vendor: str, table: str, column: str, finals: tuple[str, ...]) -> list[str]:
    """The statements freezing ``table``'s rows once ``column`` is one of ``finals`` (idempotent)."""
    row, second = trigger_names(vendor, table)
    column, states = _checked(column), _finals_sql(finals)
    if vendor == "postgresql":
        function = frozen_function(table)
        return [
            f"""
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql
SET search_path = {PG_SEARCH_PATH} AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' OR TG_OP = 'DELETE' THEN
        RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF OLD.{column} IN {states} THEN
        RAISE EXCEPTION '% is append-only once finished: UPDATE of row % (%) refused',
            TG_TABLE_NAME, OLD.id, OLD.{column} USING ERRCODE = 'restrict_violation';
    END IF;
    RETURN NEW;
END;
$$
""",
            f'DROP TRIGGER IF EXISTS "{row}" ON "{table}"',
            f'CREATE TRIGGER "{row}" BEFORE UPDATE OR DELETE ON "{table}" '
            f"FOR EACH ROW EXECUTE FUNCTION {function}()",
            f'DROP TRIGGER IF EXISTS "{second}" ON "{table}"',
            f'CREATE TRIGGER "{second}" BEFORE TRUNCATE ON "{table}" '
            f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
        ]
    return [
        f'CREATE TRIGGER IF NOT EXISTS "{row}" BEFORE UPDATE ON "{table}" WHEN OLD.{column} IN {states} '
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only once finished: UPDATE refused'); END",
        f'CREATE TRIGGER IF NOT EXISTS "{second}" BEFORE DELETE ON "{table}" '
        f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: DELETE refused'); END",
    ]


def frozen_uninstall_sql(vendor: str, table: str) -> list[str]:
    statements = uninstall_sql(vendor, table)
    if vendor == "postgresql":
        statements.append(f"DROP FUNCTION IF EXISTS {frozen_function(table)}()")
    return statements


def frozen_once_final_operation(table: str, column: str, finals: tuple[str, ...]) -> migrations.RunPython:
    """A migration operation freezing ``table``'s finished rows (and, reversed, thawing them)."""
    frozen_install_sql("sqlite", table, column, finals)  # the names checked now, not at migrate

    def install(vendor: str, name: str) -> list[str]:
        return frozen_install_sql(vendor, name, column, finals)

    return migrations.RunPython(_runner(install, table), _runner(frozen_uninstall_sql, table))


def on_sqlite_only(operation: migrations.RunPython) -> migrations.RunPython:
    """``operation`` run on SQLite only: a migration that adds a column to a protected table on
    SQLite, where Django may rebuild the table and lose its triggers, installs them again with it;
    PostgreSQL keeps its triggers through ADD COLUMN."""

    def forward(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor == "sqlite":
            operation.code(apps, schema_editor)

    return migrations.RunPython(forward, migrations.RunPython.noop)
