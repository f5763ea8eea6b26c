"""What the database enforces about the ledger beyond column constraints (docs/ledger.md):

- transactions, entries and fee-hour markers are append-only (audit.db_triggers);
- an account is never deleted and only its ``balance`` ever changes;
- PostgreSQL: at COMMIT (a DEFERRABLE INITIALLY DEFERRED constraint trigger) every transaction
  that received entries sums to zero, touches only its own casino's accounts, and received them in
  the database transaction that created it (``posted_at`` is set by the database while that
  transaction runs, so it is never earlier than its start), so nobody can add entries to a posted
  transaction later.

SQLite (``make run``) gets the append-only and account guards only; the application checks the
rest there (ledger.services._aggregate).
"""

from django.db import migrations

from audit.db_triggers import append_only_operation

PG_ENTRY_CHECK = """
CREATE OR REPLACE FUNCTION ledger_entry_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    txn_casino bigint;
    txn_posted timestamptz;
    account_casino bigint;
    total numeric;
BEGIN
    SELECT t.casino_id, t.posted_at INTO txn_casino, txn_posted
        FROM ledger_transaction t WHERE t.id = NEW.transaction_id;
    SELECT a.casino_id INTO account_casino FROM ledger_account a WHERE a.id = NEW.account_id;
    IF txn_casino IS DISTINCT FROM account_casino THEN
        RAISE EXCEPTION 'ledger transaction %: account % belongs to another casino',
            NEW.transaction_id, NEW.account_id USING ERRCODE = 'check_violation';
    END IF;
    IF txn_posted IS NULL OR txn_posted < transaction_timestamp() THEN
        RAISE EXCEPTION 'ledger transaction %: entries are added only with their transaction',
            NEW.transaction_id USING ERRCODE = 'check_violation';
    END IF;
    SELECT COALESCE(SUM(e.amount), 0) INTO total FROM ledger_entry e WHERE e.transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: its entries sum to %',
            NEW.transaction_id, total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$
"""

PG_ACCOUNT_GUARD = """
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

PG_INSTALL = [
    PG_ENTRY_CHECK,
    "DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry",
    "CREATE CONSTRAINT TRIGGER ledger_entry_balanced AFTER INSERT ON ledger_entry "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entry_check()",
    PG_ACCOUNT_GUARD,
    "DROP TRIGGER IF EXISTS ledger_account_guard_row ON ledger_account",
    "CREATE TRIGGER ledger_account_guard_row BEFORE UPDATE OR DELETE ON ledger_account "
    "FOR EACH ROW EXECUTE FUNCTION ledger_account_guard()",
    "DROP TRIGGER IF EXISTS ledger_account_guard_truncate ON ledger_account",
    "CREATE TRIGGER ledger_account_guard_truncate BEFORE TRUNCATE ON ledger_account "
    "FOR EACH STATEMENT EXECUTE FUNCTION ledger_account_guard()",
]
PG_UNINSTALL = [
    "DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry",
    "DROP TRIGGER IF EXISTS ledger_account_guard_row ON ledger_account",
    "DROP TRIGGER IF EXISTS ledger_account_guard_truncate ON ledger_account",
    "DROP FUNCTION IF EXISTS ledger_entry_check()",
    "DROP FUNCTION IF EXISTS ledger_account_guard()",
]
# SQLite: "append_only" in the delete trigger's name lets the test suite's flush bypass it like
# the others (tests/conftest.py).
SQLITE_INSTALL = [
    "CREATE TRIGGER IF NOT EXISTS ledger_account_guard_update BEFORE UPDATE OF "
    "id, casino_id, kind, player_id, table_id, name, overdraft_allowed, opened_at ON ledger_account "
    "BEGIN SELECT RAISE(ABORT, 'ledger_account: only the balance may change'); END",
    "CREATE TRIGGER IF NOT EXISTS ledger_account_append_only_delete BEFORE DELETE ON ledger_account "
    "BEGIN SELECT RAISE(ABORT, 'ledger_account is append-only: DELETE refused'); END",
]
SQLITE_UNINSTALL = [
    "DROP TRIGGER IF EXISTS ledger_account_guard_update",
    "DROP TRIGGER IF EXISTS ledger_account_append_only_delete",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor) -> None:
        vendor = schema_editor.connection.vendor
        if vendor not in statements_by_vendor:
            raise NotImplementedError(f"the ledger's triggers are not implemented for {vendor}")
        for sql in statements_by_vendor[vendor]:
            schema_editor.execute(sql, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial"), ("audit", "0002_auditevent_append_only")]

    operations = [
        append_only_operation("ledger_transaction"),
        append_only_operation("ledger_entry"),
        append_only_operation("ledger_feehour"),
        migrations.RunPython(
            _run({"postgresql": PG_INSTALL, "sqlite": SQLITE_INSTALL}),
            _run({"postgresql": PG_UNINSTALL, "sqlite": SQLITE_UNINSTALL}),
        ),
    ]
