"""The import guard is append-only (issue 20, item 8): deleting its rows let a second import of
the same history duplicate its coups. A record id imported once stays imported."""

from django.db import migrations

from audit.db_triggers import append_only_operation


class Migration(migrations.Migration):
    dependencies = [("tables", "0026_table_levy_mode")]

    operations = [append_only_operation("tables_importedrecord")]
