"""Keyed audit hashes (docs/audit.md, "Keys"): every event names the HMAC key it was hashed with.

The cut-over: the events already in the table get an empty ``key_id`` (plain SHA-256, checked as
they always were); the first event written after this migration is keyed and links to the last
plain one. The column is added with its default, so no row is updated (the append-only triggers
refuse UPDATE); SQLite rebuilds the table for it, which drops its triggers: they are re-installed.
"""

from django.db import migrations, models

from audit.db_triggers import append_only_operation


def _on_sqlite_only(operation: migrations.RunPython) -> migrations.RunPython:
    # PostgreSQL keeps its triggers through ADD COLUMN (and its trigger functions are another
    # migration's business); only SQLite's table rebuild loses them.
    def forward(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "sqlite":
            operation.code(apps, schema_editor)

    return migrations.RunPython(forward, migrations.RunPython.noop)


class Migration(migrations.Migration):
    dependencies = [("audit", "0003_chainverification")]

    operations = [
        migrations.AddField(
            model_name="auditevent",
            name="key_id",
            field=models.CharField(blank=True, default="", max_length=32),
        ),
        _on_sqlite_only(append_only_operation("audit_auditevent")),
    ]
