"""The cashier role: a ``cashier`` group with its initial permissions (tables.roles), among them
``ledger.operate_cage``, which the ledger's migration named below adds."""

from django.db import migrations

from tables.builtin import roles_ensure


def forwards(apps, schema_editor):
    roles_ensure(apps, schema_editor.connection.alias, roles=("cashier",))


def backwards(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="cashier").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0011_series_and_fee_hours_from_ledger"),
        ("ledger", "0005_transaction_operate_cage_permission"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
