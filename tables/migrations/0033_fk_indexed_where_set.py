"""Foreign keys that most rows leave empty are indexed where set only: their full index is
dropped (core.migration_ops: the table and its triggers stay) and a partial one made."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import fk_indexes_drop


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0032_fk_index_led_by_composite'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='bet',
                    name='spectator',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='bets', to='tables.spectator'),
                ),
                migrations.AlterField(
                    model_name='coupstep',
                    name='corrects',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='corrections', to='tables.coupstep'),
                ),
            ],
            database_operations=[
                fk_indexes_drop('tables', [('bet', 'spectator'), ('coupstep', 'corrects')]),
            ],
        ),
        migrations.AddIndex(
            model_name='bet',
            index=models.Index(condition=models.Q(('spectator__isnull', False)), fields=['spectator'], name='bet_spectator_set_idx'),
        ),
        migrations.AddIndex(
            model_name='coupstep',
            index=models.Index(condition=models.Q(('corrects__isnull', False)), fields=['corrects'], name='coupstep_corrects_set_idx'),
        ),
    ]
