"""Series, SeriesEntrant and FeeHour now belong to tables (tables 0009 renamed their database
tables and took them into its state): here they leave the ledger's state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("ledger", "0003_bank_share"),
        ("tables", "0011_series_and_fee_hours_from_ledger"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="SeriesEntrant"),
                migrations.DeleteModel(name="Series"),
                migrations.DeleteModel(name="FeeHour"),
            ],
            database_operations=[],
        ),
    ]
