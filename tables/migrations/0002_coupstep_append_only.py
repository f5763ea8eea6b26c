"""Recorded coup steps are history: UPDATE, DELETE and TRUNCATE are refused by the database."""

from django.db import migrations

from audit.db_triggers import append_only_operation


class Migration(migrations.Migration):
    dependencies = [("tables", "0001_initial"), ("audit", "0002_auditevent_append_only")]

    operations = [append_only_operation("tables_coupstep")]
