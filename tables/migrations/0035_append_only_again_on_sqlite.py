"""The append-only triggers of ``tables_coupstep``, installed again on SQLite.

0002 made the coup steps append-only; on SQLite, 0008, 0013 and 0014 then altered the table, which
SQLite does by building a new table and dropping the old one, with its triggers: since then a step
could be rewritten or deleted on the README's default (PostgreSQL keeps its triggers through ALTER
TABLE and always had them). Every plain append-only table of this app is named here: the install
is idempotent (``CREATE TRIGGER IF NOT EXISTS``), so the tables that kept their triggers are left
as they are. Reversed: nothing (the triggers belong to the migrations that made the tables
append-only). A migration that rebuilds a guarded table on SQLite installs its triggers again with
it (audit.db_triggers.on_sqlite_only); ``verify_audit`` warns about any that is missing.
"""

from django.db import migrations

from audit.db_triggers import append_only_operation, on_sqlite_only

#: the tables of this app that nobody updates or deletes from (core.db_roles.APPEND_ONLY_TABLES as
#: this migration was written: a migration never follows a list that may change after it)
APPEND_ONLY = (
    "tables_banktax",
    "tables_coupstep",
    "tables_feehour",
    "tables_feeposting",
    "tables_gamestep",
    "tables_importedrecord",
    "tables_rulessnapshot",
    "tables_shoecard",
)


class Migration(migrations.Migration):
    dependencies = [("tables", "0034_replaced_once_where_set")]

    operations = [on_sqlite_only(append_only_operation(table)) for table in APPEND_ONLY]
