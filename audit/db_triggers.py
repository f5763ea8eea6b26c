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

from audit.canonical import GENESIS_HASH

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
    return _all_present(connection, table, trigger_names(connection.vendor, table))


#: the tables guarded by a trigger pair named as the append-only ones (``trigger_names``) besides
#: core.db_roles' two lists: a bet is only withdrawn, while its coup is open, and a coup is frozen
#: once it is over (their own guard functions, tables 0017 and the migrations after it)
ROW_GUARDED_TABLES: tuple[str, ...] = ("tables_bet", "tables_coup")


def guarded_tables() -> tuple[str, ...]:
    """Every table the database keeps from UPDATE and DELETE (or from changing a row once it is
    final) by a trigger pair named as the append-only ones: the append-only tables, the ones
    frozen once finished (core.db_roles) and the bets and coups. Sorted."""
    from core.db_roles import APPEND_ONLY_TABLES, FROZEN_ONCE_FINISHED_TABLES

    return tuple(sorted({*APPEND_ONLY_TABLES, *FROZEN_ONCE_FINISHED_TABLES, *ROW_GUARDED_TABLES}))


def tables_unguarded(connection: BaseDatabaseWrapper, tables: tuple[str, ...] | None = None) -> list[str]:
    """The tables of ``tables`` (default: every guarded table) whose append-only triggers are not
    all there (or, on PostgreSQL, are disabled), in their order: one query for all of them. On
    SQLite a migration that rebuilds a table (any ALTER beyond ADD COLUMN) drops its triggers with
    the old table, and nothing says so (tables 0035, ledger 0014)."""
    tables = guarded_tables() if tables is None else tables
    wanted = {name: table for table in tables for name in trigger_names(connection.vendor, table)}
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE t.tgname = ANY(%s) AND t.tgenabled <> 'D'",
                [list(wanted)],
            )
        else:
            marks = ", ".join(["%s"] * len(wanted))
            cursor.execute(
                f"SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger' AND name IN ({marks})",
                list(wanted),
            )
        present = {(str(table), str(name)) for table, name in cursor.fetchall()}
    return [
        table
        for table in tables
        if any((table, name) not in present for name in trigger_names(connection.vendor, table))
    ]


def _all_present(connection: BaseDatabaseWrapper, table: str, names: list[str]) -> bool:
    """Whether every trigger of ``names`` exists on ``table`` (and, on PostgreSQL, is enabled)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE c.relname = %s AND t.tgname = ANY(%s) AND t.tgenabled <> 'D'",
                [table, names],
            )
        else:
            marks = ", ".join(["%s"] * len(names))
            cursor.execute(
                "SELECT count(*) FROM sqlite_master "
                f"WHERE type = 'trigger' AND tbl_name = %s AND name IN ({marks})",
                [table, *names],
            )
        return bool(cursor.fetchone()[0] == len(names))


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


# ------------------------------------------------------------------ the chain's links
# Every event names its predecessor: ``prev_hash`` is the hash of the event one ``seq`` before it
# on its chain, or the genesis (audit.canonical.GENESIS_HASH) for a chain's first event. The
# appender links events so (audit.services._link, under the chain's lock); the database refuses an
# INSERT that does not, so a gap, a fork (two events naming one predecessor) or an event linked to
# the wrong one never reaches the table, whoever writes it. This replaced UNIQUE(chain, prev_hash)
# and UNIQUE(hash) (audit 0012): with UNIQUE(chain, seq) it refuses everything they refused, and
# more, without two indexes on random 32-byte keys (a tenth of a played coup's bytes). The HMAC
# itself is the verifier's to check: the key never reaches the database.

CHAIN_LINK_TRIGGER = "audit_auditevent_chain_link"
CHAIN_LINK_FUNCTION = "audit_chain_link_check"
_EVENTS = "audit_auditevent"


def chain_link_install_sql(vendor: str, schema: str = "public") -> list[str]:
    """The statements that make the database check every inserted event's link (idempotent).

    PostgreSQL: one AFTER INSERT statement trigger over the statement's new rows (a transition
    table), so a step's single event and an import's COPY of thousands are checked by one join on
    UNIQUE(chain, seq)'s index; the rows the statement inserted before a row are its predecessors'
    candidates too. SQLite: a BEFORE INSERT row trigger (SQLite has no statement triggers); each
    row sees the rows its statement inserted before it."""
    if vendor == "postgresql":
        schema = _checked(schema)
        return [
            f"""
CREATE OR REPLACE FUNCTION {schema}.{CHAIN_LINK_FUNCTION}() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, {schema}, pg_temp AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.chain, n.seq INTO bad
    FROM chain_link_added n
    LEFT JOIN {schema}.{_EVENTS} p ON p.chain = n.chain AND p.seq = n.seq - 1
    WHERE CASE WHEN n.seq = 1 THEN n.prev_hash <> '\\x{GENESIS_HASH}'::bytea
               ELSE p.hash IS DISTINCT FROM n.prev_hash END
    ORDER BY n.chain, n.seq
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '% refused: event chain=% seq=% does not follow its predecessor '
            '(its prev_hash is not the hash of seq %)', TG_TABLE_NAME, bad.chain, bad.seq, bad.seq - 1
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$
""",
            f'DROP TRIGGER IF EXISTS "{CHAIN_LINK_TRIGGER}" ON {schema}.{_EVENTS}',
            f'CREATE TRIGGER "{CHAIN_LINK_TRIGGER}" AFTER INSERT ON {schema}.{_EVENTS} '
            f"REFERENCING NEW TABLE AS chain_link_added "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {schema}.{CHAIN_LINK_FUNCTION}()",
        ]
    if vendor == "sqlite":
        return [
            f'CREATE TRIGGER IF NOT EXISTS "{CHAIN_LINK_TRIGGER}" BEFORE INSERT ON "{_EVENTS}" '
            f"WHEN NOT (CASE WHEN NEW.seq = 1 THEN NEW.prev_hash IS X'{GENESIS_HASH}' "
            f'ELSE NEW.prev_hash IS (SELECT p.hash FROM "{_EVENTS}" p '
            f"WHERE p.chain = NEW.chain AND p.seq = NEW.seq - 1) END) "
            f"BEGIN SELECT RAISE(ABORT, '{_EVENTS} refused: an event does not follow its predecessor "
            f"(its prev_hash is not the hash of the seq before it)'); END"
        ]
    raise NotImplementedError(f"the chain's link trigger is not implemented for {vendor}")


def chain_link_uninstall_sql(vendor: str, schema: str = "public") -> list[str]:
    if vendor == "postgresql":
        schema = _checked(schema)
        return [
            f'DROP TRIGGER IF EXISTS "{CHAIN_LINK_TRIGGER}" ON {schema}.{_EVENTS}',
            f"DROP FUNCTION IF EXISTS {schema}.{CHAIN_LINK_FUNCTION}()",
        ]
    return [f'DROP TRIGGER IF EXISTS "{CHAIN_LINK_TRIGGER}"']


def chain_link_present(connection: BaseDatabaseWrapper) -> bool:
    """Whether the chain's link trigger exists on the events' table (and, on PostgreSQL, is enabled)."""
    return _all_present(connection, _EVENTS, [CHAIN_LINK_TRIGGER])
