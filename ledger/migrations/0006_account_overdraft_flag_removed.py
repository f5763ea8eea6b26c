"""A player account no longer carries an overdraft flag fixed when it was opened: whether a player
may borrow is decided per posting, from the rules the coup is played under (docs/ledger.md,
"Markers"). The database still refuses a negative balance on every account but the cage and a
player's (his marker).

The account guard trigger named the dropped column, so it is rewritten without it first; SQLite
rebuilds the table to drop a column (dropping its triggers), so they are put back afterwards.
"""

from django.db import migrations, models

PG_ACCOUNT_GUARD = """
CREATE OR REPLACE FUNCTION ledger_account_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF (NEW.id, NEW.casino_id, NEW.kind, NEW.player_id, NEW.table_id, NEW.name, NEW.opened_at)
           IS NOT DISTINCT FROM
           (OLD.id, OLD.casino_id, OLD.kind, OLD.player_id, OLD.table_id, OLD.name, OLD.opened_at) THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'ledger_account: only the balance may change' USING ERRCODE = 'restrict_violation';
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END;
$$
"""

PG_ACCOUNT_GUARD_WITH_FLAG = """
CREATE OR REPLACE FUNCTION ledger_account_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF (NEW.id, NEW.casino_id, NEW.kind, NEW.player_id, NEW.table_id, NEW.name,
            NEW.overdraft_allowed, NEW.opened_at)
           IS NOT DISTINCT FROM
           (OLD.id, OLD.casino_id, OLD.kind, OLD.player_id, OLD.table_id, OLD.name,
            OLD.overdraft_allowed, OLD.opened_at) THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'ledger_account: only the balance may change' USING ERRCODE = 'restrict_violation';
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END;
$$
"""

SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS ledger_account_guard_update",
    "DROP TRIGGER IF EXISTS ledger_account_append_only_delete",
]
SQLITE_DELETE_GUARD = (
    "CREATE TRIGGER IF NOT EXISTS ledger_account_append_only_delete BEFORE DELETE ON ledger_account "
    "BEGIN SELECT RAISE(ABORT, 'ledger_account is append-only: DELETE refused'); END"
)
SQLITE_INSTALL = [
    "CREATE TRIGGER IF NOT EXISTS ledger_account_guard_update BEFORE UPDATE OF "
    "id, casino_id, kind, player_id, table_id, name, opened_at ON ledger_account "
    "BEGIN SELECT RAISE(ABORT, 'ledger_account: only the balance may change'); END",
    SQLITE_DELETE_GUARD,
]
SQLITE_INSTALL_WITH_FLAG = [
    "CREATE TRIGGER IF NOT EXISTS ledger_account_guard_update BEFORE UPDATE OF "
    "id, casino_id, kind, player_id, table_id, name, overdraft_allowed, opened_at ON ledger_account "
    "BEGIN SELECT RAISE(ABORT, 'ledger_account: only the balance may change'); END",
    SQLITE_DELETE_GUARD,
]


def _run(statements_by_vendor):
    def run(apps, schema_editor) -> None:
        for sql in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0005_transaction_operate_cage_permission"),
        ("tables", "0012_cashier_role"),
    ]

    operations = [
        migrations.RunPython(
            _run({"postgresql": [PG_ACCOUNT_GUARD], "sqlite": SQLITE_DROP}),
            _run({"postgresql": [PG_ACCOUNT_GUARD_WITH_FLAG], "sqlite": SQLITE_INSTALL_WITH_FLAG}),
        ),
        migrations.RemoveConstraint(model_name="account", name="account_overdraft_only_player"),
        migrations.RemoveConstraint(model_name="account", name="account_balance_not_negative"),
        migrations.RemoveField(model_name="account", name="overdraft_allowed"),
        migrations.AddConstraint(
            model_name="account",
            constraint=models.CheckConstraint(
                condition=models.Q(("balance__gte", 0), ("kind__in", ("cage", "player")), _connector="OR"),
                name="account_balance_not_negative",
                violation_error_message="This account cannot hold fewer than zero chips.",
            ),
        ),
        migrations.RunPython(
            _run({"sqlite": SQLITE_INSTALL}),
            _run({"sqlite": SQLITE_DROP}),
        ),
    ]
