"""Rows bound to their audit events (docs/audit.md, "Rows bound to their events"): an event names
the rows it wrote with their digests, in a column its hash covers when it is set.

Every event already in the table keeps ``rows`` NULL, so its hashed content is what it was (no
row is updated: the triggers would refuse it). A nullable column with no default is an ALTER TABLE
ADD COLUMN on both databases; the SQLite triggers are installed again all the same (idempotent),
should a later Django rebuild the table for it.
"""

from django.db import migrations, models

from audit.db_triggers import append_only_operation, on_sqlite_only


class Migration(migrations.Migration):
    dependencies = [("audit", "0008_verify_request_index")]

    operations = [
        migrations.AddField(
            model_name="auditevent",
            name="rows",
            field=models.JSONField(blank=True, null=True),
        ),
        on_sqlite_only(append_only_operation("audit_auditevent")),
    ]
