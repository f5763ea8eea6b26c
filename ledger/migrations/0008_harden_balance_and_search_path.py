"""Database hardening of the ledger (issue 10, docs/ledger.md "What the database enforces"):

- every trigger function is pinned to ``search_path = pg_catalog, <schema>, pg_temp`` and names
  its tables schema-qualified. Before, ``ledger_entry_check`` read ``ledger_transaction`` and
  ``ledger_entry`` unqualified, and PostgreSQL searches the session's temporary schema first: a
  role that could create TEMP tables of those names answered the COMMIT check itself and appended
  entries to a posted transaction;
- an account's balance is moved by the database, from the entries: a statement trigger on
  ``ledger_entry`` adds each account's net of the inserted rows (one UPDATE, as the service's own
  did), and the account guard refuses any other change of ``balance`` (an UPDATE not issued by a
  trigger, ``pg_trigger_depth() < 2``) and an account opened with chips. Entries being append-only
  and checked at COMMIT, ``balance`` is always the sum of the account's entries.

SQLite (``make run``) keeps the service moving the balances (ledger.sql.entries_post): it has
no statement triggers, and a row trigger would meet the balance CHECK between a reversal and its
replacement.
"""

from django.db import migrations

from audit.db_triggers import GUARD_FUNCTION, PG_SEARCH_PATH

ENTRY_CHECK = """
CREATE OR REPLACE FUNCTION {s}.ledger_entry_check() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, {s}, pg_temp AS $$
DECLARE
    txn_casino bigint;
    txn_posted timestamptz;
    account_casino bigint;
    total numeric;
BEGIN
    SELECT t.casino_id, t.posted_at INTO txn_casino, txn_posted
        FROM {s}.ledger_transaction t WHERE t.id = NEW.transaction_id;
    SELECT a.casino_id INTO account_casino FROM {s}.ledger_account a WHERE a.id = NEW.account_id;
    IF txn_casino IS DISTINCT FROM account_casino THEN
        RAISE EXCEPTION 'ledger transaction %: account % belongs to another casino',
            NEW.transaction_id, NEW.account_id USING ERRCODE = 'check_violation';
    END IF;
    IF txn_posted IS NULL OR txn_posted < pg_catalog.transaction_timestamp() THEN
        RAISE EXCEPTION 'ledger transaction %: entries are added only with their transaction',
            NEW.transaction_id USING ERRCODE = 'check_violation';
    END IF;
    SELECT COALESCE(SUM(e.amount), 0) INTO total FROM {s}.ledger_entry e
        WHERE e.transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: its entries sum to %',
            NEW.transaction_id, total USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$
"""

ACCOUNT_GUARD = """
CREATE OR REPLACE FUNCTION {s}.ledger_account_guard() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, {s}, pg_temp AS $$
DECLARE
    probe {s}.ledger_account;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.balance <> 0 THEN
            RAISE EXCEPTION 'ledger_account: an account opens with no chips; entries bring them'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' THEN
        probe := NEW;
        probe.balance := OLD.balance;
        IF probe IS DISTINCT FROM OLD THEN
            RAISE EXCEPTION 'ledger_account: only the balance may change' USING ERRCODE = 'restrict_violation';
        END IF;
        -- Depth 1 is a statement from a client; the entries' trigger below runs its UPDATE at
        -- depth 2. The application's role cannot add a trigger of its own (it owns no table and
        -- may create no TEMP table: docs/deployment.md), so depth 2 is that trigger.
        IF NEW.balance IS DISTINCT FROM OLD.balance AND pg_catalog.pg_trigger_depth() < 2 THEN
            RAISE EXCEPTION 'ledger_account: the balance moves only with ledger entries'
                USING ERRCODE = 'restrict_violation';
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END;
$$
"""

BALANCE_MOVE = """
CREATE OR REPLACE FUNCTION {s}.ledger_entry_balance_move() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, {s}, pg_temp AS $$
BEGIN
    -- one UPDATE for the whole INSERT: each account moves once, by its net, so a reversal and its
    -- replacement posted together never take an account below zero in between
    UPDATE {s}.ledger_account AS a SET balance = a.balance + moved.total
        FROM (SELECT n.account_id, SUM(n.amount)::bigint AS total FROM added AS n
              GROUP BY n.account_id) AS moved
        WHERE a.id = moved.account_id AND moved.total <> 0;
    RETURN NULL;
END;
$$
"""

INSTALL = [
    ENTRY_CHECK,
    ACCOUNT_GUARD,
    BALANCE_MOVE,
    "DROP TRIGGER IF EXISTS ledger_account_guard_insert ON {s}.ledger_account",
    "CREATE TRIGGER ledger_account_guard_insert BEFORE INSERT ON {s}.ledger_account "
    "FOR EACH ROW EXECUTE FUNCTION {s}.ledger_account_guard()",
    "DROP TRIGGER IF EXISTS ledger_entry_balance_move ON {s}.ledger_entry",
    "CREATE TRIGGER ledger_entry_balance_move AFTER INSERT ON {s}.ledger_entry "
    "REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION {s}.ledger_entry_balance_move()",
    f"ALTER FUNCTION {{s}}.{GUARD_FUNCTION}() SET search_path = {PG_SEARCH_PATH}",
]

# ------------------------------------------------------------------------- reverse: as 0006 left it
OLD_ENTRY_CHECK = """
CREATE OR REPLACE FUNCTION {s}.ledger_entry_check() RETURNS trigger LANGUAGE plpgsql AS $$
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

OLD_ACCOUNT_GUARD = """
CREATE OR REPLACE FUNCTION {s}.ledger_account_guard() RETURNS trigger LANGUAGE plpgsql AS $$
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

UNINSTALL = [
    "DROP TRIGGER IF EXISTS ledger_entry_balance_move ON {s}.ledger_entry",
    "DROP FUNCTION IF EXISTS {s}.ledger_entry_balance_move()",
    "DROP TRIGGER IF EXISTS ledger_account_guard_insert ON {s}.ledger_account",
    OLD_ACCOUNT_GUARD,
    OLD_ENTRY_CHECK,
    f"ALTER FUNCTION {{s}}.{GUARD_FUNCTION}() RESET search_path",
]


def _run(statements):
    def run(apps, schema_editor) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return  # SQLite: nothing to pin, and the service moves the balances (see above)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_schema()")
            schema = connection.ops.quote_name(cursor.fetchone()[0])
        for sql in statements:
            # params=None: the SQL contains literal '%' (plpgsql RAISE) and must not be interpolated
            schema_editor.execute(sql.replace("{s}", schema), params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("ledger", "0007_books_verification")]

    operations = [migrations.RunPython(_run(INSTALL), _run(UNINSTALL))]
