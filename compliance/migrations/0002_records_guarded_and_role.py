"""The records are history: an identification and a log entry are append-only, a report frozen
once filed; and the compliance role, now that its permissions exist."""

from django.db import migrations

from audit.db_triggers import append_only_operation, frozen_once_final_operation
from tables.builtin import roles_ensure


def forwards(apps, schema_editor):
    roles_ensure(apps, schema_editor.connection.alias, roles=("compliance",))


def backwards(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="compliance").delete()


class Migration(migrations.Migration):
    dependencies = [("compliance", "0001_cash_compliance")]

    operations = [
        append_only_operation("compliance_playeridentification"),
        append_only_operation("compliance_cashlogentry"),
        frozen_once_final_operation("compliance_cashreport", "status", ("filed",)),
        migrations.RunPython(forwards, backwards),
    ]
