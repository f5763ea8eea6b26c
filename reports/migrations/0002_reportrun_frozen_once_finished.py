"""A report run is frozen once finished or failed, and never deleted (issue 20, item 8): the app's
database role could rewrite a finished report's sha256 or delete its row. While it is queued or
running the worker moves its progress, file and digest; then nothing changes (docs/audit.md)."""

from django.db import migrations

from audit.db_triggers import frozen_once_final_operation


class Migration(migrations.Migration):
    dependencies = [("reports", "0001_report_run")]

    operations = [frozen_once_final_operation("reports_reportrun", "status", ("finished", "failed"))]
