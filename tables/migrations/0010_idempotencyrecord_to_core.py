"""IdempotencyRecord now belongs to core (core 0001 took over its table and rows): drop it from
tables' state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0009_builtin_profile_names"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        ),
    ]
