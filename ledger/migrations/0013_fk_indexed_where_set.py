"""Foreign keys that most rows leave empty are indexed where set only: their full index is
dropped (core.migration_ops: the table and its triggers stay) and a partial one made."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import fk_indexes_drop


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0012_fk_index_led_by_composite'),
        ('tables', '0033_fk_indexed_where_set'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='transaction',
                    name='coup_step',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_transactions', to='tables.coupstep'),
                ),
                migrations.AlterField(
                    model_name='transaction',
                    name='game_coup',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_transactions', to='tables.gamecoup'),
                ),
                migrations.AlterField(
                    model_name='transaction',
                    name='reverses',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='reversals', to='ledger.transaction'),
                ),
            ],
            database_operations=[
                fk_indexes_drop('ledger', [('transaction', 'coup_step'), ('transaction', 'game_coup'), ('transaction', 'reverses')]),
            ],
        ),
        migrations.AddIndex(
            model_name='transaction',
            index=models.Index(condition=models.Q(('coup_step__isnull', False)), fields=['coup_step'], name='txn_coup_step_set_idx'),
        ),
        migrations.AddIndex(
            model_name='transaction',
            index=models.Index(condition=models.Q(('game_coup__isnull', False)), fields=['game_coup'], name='txn_game_coup_set_idx'),
        ),
    ]
