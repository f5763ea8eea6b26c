"""Foreign keys that lead a composite index or unique constraint of their model lose their own
index (core.migration_ops: the index is dropped, the table and its triggers stay)."""

import django.db.models.deletion
from django.db import migrations, models

from core.migration_ops import fk_indexes_drop


class Migration(migrations.Migration):

    dependencies = [
        ('compliance', '0002_records_guarded_and_role'),
        ('tables', '0032_fk_index_led_by_composite'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='cashlogentry',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.casino'),
                ),
                migrations.AlterField(
                    model_name='cashreport',
                    name='player',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='cash_reports', to='tables.player'),
                ),
            ],
            database_operations=[
                fk_indexes_drop('compliance', [('cashlogentry', 'casino'), ('cashreport', 'player')]),
            ],
        ),
    ]
