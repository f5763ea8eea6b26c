"""The ``operate_cage`` permission (posting buy-ins and cash-outs), given to the cashier role."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_series_and_fee_hours_to_tables")]

    operations = [
        migrations.AlterModelOptions(
            name="transaction",
            options={
                "ordering": ["id"],
                "permissions": [("operate_cage", "Can post buy-ins and cash-outs at the cage")],
            },
        ),
    ]
