"""The database checks every event's link to its predecessor (``audit.db_triggers``, "the chain's
links") instead of keeping UNIQUE(chain, prev_hash) and UNIQUE(hash): with UNIQUE(chain, seq) the
trigger refuses a fork as the first did, and also a gap or a link to the wrong event; the second
kept apart hashes whose content already names a distinct (chain, seq). The two indexes on random
32-byte keys were about a tenth of a played coup's bytes (docs/benchmarks.md).

No row is touched. Existing chains are linked already (``verify_audit`` checks it); the trigger
looks only at rows inserted from now on. SQLite rebuilds the table to drop a constraint written in
its CREATE TABLE, which drops its triggers with the old table: the append-only triggers and the
link trigger are installed after the rebuild, and the append-only ones again after the rebuilds of
the way back.
"""

from typing import Any

from django.db import migrations

from audit.db_triggers import (
    append_only_operation,
    chain_link_install_sql,
    chain_link_uninstall_sql,
    install_sql,
    on_sqlite_only,
)

TABLE = "audit_auditevent"


def _schema(schema_editor: Any) -> str:
    if schema_editor.connection.vendor != "postgresql":
        return "main"
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        return str(cursor.fetchone()[0])


def link_install(apps: Any, schema_editor: Any) -> None:
    for sql in chain_link_install_sql(schema_editor.connection.vendor, _schema(schema_editor)):
        schema_editor.execute(sql, params=None)  # params=None: plpgsql's '%' is not a placeholder


def link_uninstall(apps: Any, schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    for sql in chain_link_uninstall_sql(vendor, _schema(schema_editor)):
        schema_editor.execute(sql, params=None)


def append_only_again(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "sqlite":
        for sql in install_sql("sqlite", TABLE):
            schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0011_hashes_as_bytes")]

    operations = [
        # undone last: the append-only triggers back after the rebuilds of the way back (SQLite)
        migrations.RunPython(migrations.RunPython.noop, append_only_again),
        migrations.RemoveConstraint(model_name="auditevent", name="audit_hash_unique"),
        migrations.RemoveConstraint(model_name="auditevent", name="audit_chain_prev_hash_unique"),
        on_sqlite_only(append_only_operation(TABLE)),  # the rebuilt table's append-only triggers
        migrations.RunPython(link_install, link_uninstall),
    ]
