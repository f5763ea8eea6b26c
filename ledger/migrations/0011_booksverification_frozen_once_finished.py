"""A books verification is frozen once it has its result (ok, differences, abandoned), and never
deleted (issue 20, item 8): the app's database role could turn "differences" into "ok" or delete
the record the dashboard shows (docs/audit.md)."""

from django.db import migrations

from audit.db_triggers import frozen_once_final_operation


class Migration(migrations.Migration):
    dependencies = [("ledger", "0010_fund_return")]

    operations = [
        frozen_once_final_operation("ledger_booksverification", "status", ("ok", "differences", "abandoned"))
    ]
