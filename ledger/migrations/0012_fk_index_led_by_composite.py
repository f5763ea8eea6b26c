"""Foreign keys that lead a composite index or unique constraint of their model lose their own
index (core.migration_ops: the index is dropped, the table and its triggers stay)."""

import django.db.models.deletion
from django.db import migrations, models

from core.migration_ops import fk_indexes_drop


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0011_booksverification_frozen_once_finished'),
        ('tables', '0032_fk_index_led_by_composite'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='entry',
                    name='account',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='ledger.account'),
                ),
                migrations.AlterField(
                    model_name='entry',
                    name='transaction',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='ledger.transaction'),
                ),
                migrations.AlterField(
                    model_name='transaction',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_transactions', to='tables.casino'),
                ),
            ],
            database_operations=[
                fk_indexes_drop('ledger', [('entry', 'account'), ('entry', 'transaction'), ('transaction', 'casino')]),
            ],
        ),
    ]
