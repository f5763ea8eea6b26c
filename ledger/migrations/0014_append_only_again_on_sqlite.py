"""The append-only triggers of ``ledger_transaction``, installed again on SQLite.

0002 made the ledger's transactions and entries append-only; on SQLite, 0003 then altered
``ledger_transaction``, which SQLite does by building a new table and dropping the old one, with
its triggers: since then a posted transaction could be rewritten or deleted on the README's default
(PostgreSQL keeps its triggers through ALTER TABLE and always had them). Both tables are named: the
install is idempotent (``CREATE TRIGGER IF NOT EXISTS``), so ``ledger_entry``, which kept its
triggers, is left as it is. Reversed: nothing (the triggers belong to 0002).
"""

from django.db import migrations

from audit.db_triggers import append_only_operation, on_sqlite_only


class Migration(migrations.Migration):
    dependencies = [("ledger", "0013_fk_indexed_where_set")]

    operations = [
        on_sqlite_only(append_only_operation("ledger_transaction")),
        on_sqlite_only(append_only_operation("ledger_entry")),
    ]
