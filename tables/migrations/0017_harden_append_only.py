"""Database hardening of the game floor's money rows (issue 10, docs/audit.md "Append-only tables"):

- ``tables_banktax`` is append-only: a levy is written once, when its coup is settled for good
  (a restored coup's only at approval), and a coup is never settled twice;
- ``tables_bet`` is append-only but for one move: ``withdrawn`` false → true while its coup is
  open (a banco withdrawing the other bets, an amendment taking back the mistyped bet before
  writing its new row). Nothing else of a bet ever changes, and a bet is never deleted;
- a coup that is over (settled, void, withdrawn: final states, docs/table-workflow.md) is frozen:
  no column changes, and it is never deleted.

Trigger names contain ``append_only`` so that the test suite's flush passes them (tests/conftest.py).
The PostgreSQL functions are pinned to a fixed search_path and name their tables schema-qualified.
"""

from django.db import migrations

from audit.db_triggers import append_only_operation

FINAL_STATES = "('settled', 'void', 'withdrawn')"

PG_BET_GUARD = """
CREATE OR REPLACE FUNCTION {s}.tables_bet_guard() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, {s}, pg_temp AS $$
DECLARE
    probe {s}.tables_bet;
BEGIN
    IF TG_OP = 'UPDATE' AND NOT OLD.withdrawn AND NEW.withdrawn THEN
        probe := NEW;
        probe.withdrawn := OLD.withdrawn;
        IF probe IS NOT DISTINCT FROM OLD
           AND (SELECT c.state FROM {s}.tables_coup AS c WHERE c.id = OLD.coup_id) = 'open' THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused (a bet is only withdrawn, while its coup is open)',
        TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END;
$$
"""

PG_COUP_GUARD = """
CREATE OR REPLACE FUNCTION {s}.tables_coup_guard() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, {s}, pg_temp AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        RAISE EXCEPTION '% is append-only: TRUNCATE refused', TG_TABLE_NAME
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF OLD.state NOT IN FINAL_STATES THEN
        IF TG_OP = 'DELETE' THEN
            RETURN OLD;
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW IS NOT DISTINCT FROM OLD THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only once the coup is over: % of coup % (%) refused',
        TG_TABLE_NAME, TG_OP, OLD.id, OLD.state USING ERRCODE = 'restrict_violation';
END;
$$
""".replace("FINAL_STATES", FINAL_STATES)


def _pg_guard(table: str, function: str) -> list[str]:
    row, truncate = f"{table}_append_only_row", f"{table}_append_only_truncate"
    return [
        f"DROP TRIGGER IF EXISTS {row} ON {{s}}.{table}",
        f"CREATE TRIGGER {row} BEFORE UPDATE OR DELETE ON {{s}}.{table} "
        f"FOR EACH ROW EXECUTE FUNCTION {{s}}.{function}()",
        f"DROP TRIGGER IF EXISTS {truncate} ON {{s}}.{table}",
        f"CREATE TRIGGER {truncate} BEFORE TRUNCATE ON {{s}}.{table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {{s}}.{function}()",
    ]


PG_INSTALL = [
    PG_BET_GUARD,
    *_pg_guard("tables_bet", "tables_bet_guard"),
    PG_COUP_GUARD,
    *_pg_guard("tables_coup", "tables_coup_guard"),
]
PG_UNINSTALL = [
    "DROP TRIGGER IF EXISTS tables_bet_append_only_row ON {s}.tables_bet",
    "DROP TRIGGER IF EXISTS tables_bet_append_only_truncate ON {s}.tables_bet",
    "DROP FUNCTION IF EXISTS {s}.tables_bet_guard()",
    "DROP TRIGGER IF EXISTS tables_coup_append_only_row ON {s}.tables_coup",
    "DROP TRIGGER IF EXISTS tables_coup_append_only_truncate ON {s}.tables_coup",
    "DROP FUNCTION IF EXISTS {s}.tables_coup_guard()",
]

# SQLite has no row values to compare: the columns are listed (a column added later must be added
# to these triggers too; tests/security/test_db_attacks.py checks every column on PostgreSQL).
_BET_KEPT = (
    "id",
    "amount",
    "banco",
    "banco_suivi",
    "betting_order",
    "coup_id",
    "seat_id",
    "spectator_id",
    "replaces_id",
)
_COUP_COLUMNS = (
    "id",
    "number",
    "bank",
    "state",
    "rules",
    "first_coup_of_bank",
    "flagged",
    "alarm",
    "step_count",
    "created_at",
    "settled_at",
    "bank_turn_id",
    "banker_id",
    "shoe_id",
)
SQLITE_INSTALL = [
    "CREATE TRIGGER IF NOT EXISTS tables_bet_append_only_update BEFORE UPDATE ON tables_bet "
    "WHEN NOT (OLD.withdrawn = 0 AND NEW.withdrawn = 1 AND "
    + " AND ".join(f"NEW.{c} IS OLD.{c}" for c in _BET_KEPT)
    + " AND (SELECT c.state FROM tables_coup AS c WHERE c.id = OLD.coup_id) = 'open') "
    "BEGIN SELECT RAISE(ABORT, 'tables_bet is append-only: UPDATE refused "
    "(a bet is only withdrawn, while its coup is open)'); END",
    "CREATE TRIGGER IF NOT EXISTS tables_bet_append_only_delete BEFORE DELETE ON tables_bet "
    "BEGIN SELECT RAISE(ABORT, 'tables_bet is append-only: DELETE refused'); END",
    f"CREATE TRIGGER IF NOT EXISTS tables_coup_append_only_update BEFORE UPDATE ON tables_coup "
    f"WHEN OLD.state IN {FINAL_STATES} AND NOT ("
    + " AND ".join(f"NEW.{c} IS OLD.{c}" for c in _COUP_COLUMNS)
    + ") BEGIN SELECT RAISE(ABORT, 'tables_coup is append-only once the coup is over: UPDATE refused'); END",
    f"CREATE TRIGGER IF NOT EXISTS tables_coup_append_only_delete BEFORE DELETE ON tables_coup "
    f"WHEN OLD.state IN {FINAL_STATES} "
    "BEGIN SELECT RAISE(ABORT, 'tables_coup is append-only once the coup is over: DELETE refused'); END",
]
SQLITE_UNINSTALL = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "tables_bet_append_only_update",
        "tables_bet_append_only_delete",
        "tables_coup_append_only_update",
        "tables_coup_append_only_delete",
    )
]


def _run(statements_by_vendor):
    def run(apps, schema_editor) -> None:
        connection = schema_editor.connection
        if connection.vendor not in statements_by_vendor:
            raise NotImplementedError(f"the floor's money guards are not implemented for {connection.vendor}")
        schema = ""
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SELECT current_schema()")
                schema = connection.ops.quote_name(cursor.fetchone()[0])
        for sql in statements_by_vendor[connection.vendor]:
            # params=None: the SQL contains literal '%' (plpgsql RAISE) and must not be interpolated
            schema_editor.execute(sql.replace("{s}", schema), params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("tables", "0016_imported_record")]

    operations = [
        append_only_operation("tables_banktax"),
        migrations.RunPython(
            _run({"postgresql": PG_INSTALL, "sqlite": SQLITE_INSTALL}),
            _run({"postgresql": PG_UNINSTALL, "sqlite": SQLITE_UNINSTALL}),
        ),
    ]
