"""An event's hash stays unique, by a named constraint instead of the field's ``unique=True``: on
PostgreSQL the field's uniqueness came with Django's second index on the column, a
``varchar_pattern_ops`` one (``…_like``) for LIKE 'prefix%' lookups that nothing makes on a hash.
The unique index itself is kept (built again under the constraint's name); no row is touched, so
the triggers have nothing to refuse. SQLite rebuilds the table to drop a column's uniqueness, which
drops its triggers with the old table: they are installed again (idempotent), as 0009 does.
"""

from django.db import migrations, models

from audit.db_triggers import append_only_operation, on_sqlite_only


class Migration(migrations.Migration):
    dependencies = [("audit", "0009_event_rows")]

    operations = [
        migrations.AlterField(
            model_name="auditevent",
            name="hash",
            field=models.CharField(max_length=64),
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.UniqueConstraint(
                fields=("hash",),
                name="audit_hash_unique",
                violation_error_message="Two events cannot have the same hash.",
            ),
        ),
        on_sqlite_only(append_only_operation("audit_auditevent")),
    ]
