"""Make audit_auditevent append-only at the database level (docs/audit.md)."""

from django.db import migrations

from audit.db_triggers import append_only_operation


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]

    operations = [append_only_operation("audit_auditevent")]
