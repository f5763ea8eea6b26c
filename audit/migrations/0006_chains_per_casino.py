"""One audit chain per casino, plus the global chain (docs/audit.md, "Chains").

Every event already in the table becomes the global chain (``chain`` 0) exactly as it is: the
column is added with its default, so no row is updated (the append-only triggers refuse UPDATE)
and no hash changes. A global event's hashed content has no ``chain`` key, so the existing events
verify as they did; a casino's events hash their chain id too. ``seq`` and ``prev_hash`` become
unique per chain (the new constraints are created before the old ones are dropped). SQLite
rebuilds both tables for this, which drops their triggers: they are re-installed.
"""

from django.db import migrations, models

from audit.db_triggers import append_only_operation


def _on_sqlite_only(operation: migrations.RunPython) -> migrations.RunPython:
    # PostgreSQL keeps its triggers through ADD COLUMN and ALTER; only SQLite's rebuild loses them.
    def forward(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "sqlite":
            operation.code(apps, schema_editor)

    return migrations.RunPython(forward, migrations.RunPython.noop)


class Migration(migrations.Migration):
    dependencies = [("audit", "0005_verification_from_seq")]

    operations = [
        migrations.AddField(
            model_name="auditevent",
            name="chain",
            field=models.PositiveBigIntegerField(default=0, help_text="0: global, else a casino id"),
        ),
        migrations.AddField(
            model_name="chainverification",
            name="chain",
            field=models.PositiveBigIntegerField(default=0, help_text="0: global, else a casino id"),
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.CheckConstraint(
                condition=models.Q(("chain__gte", 0)),
                name="audit_chain_nonnegative",
                violation_error_message="A chain is 0 (global) or a casino's id.",
            ),
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.UniqueConstraint(
                fields=("chain", "seq"),
                name="audit_chain_seq_unique",
                violation_error_message="This chain already has an event with this seq.",
            ),
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.UniqueConstraint(
                fields=("chain", "prev_hash"),
                name="audit_chain_prev_hash_unique",
                violation_error_message="Two events of a chain cannot follow the same event.",
            ),
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="prev_hash",
            field=models.CharField(max_length=64),
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="seq",
            field=models.PositiveBigIntegerField(help_text="1, 2, 3, … without gaps, per chain"),
        ),
        migrations.AlterModelOptions(name="auditevent", options={"ordering": ["chain", "seq"]}),
        _on_sqlite_only(append_only_operation("audit_auditevent")),
        _on_sqlite_only(append_only_operation("audit_chainverification")),
    ]
