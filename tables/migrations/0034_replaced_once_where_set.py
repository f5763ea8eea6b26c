"""An amended step, bet or card is superseded or replaced once, checked where set only: the three
``OneToOneField``s become foreign keys with a partial unique constraint (core.model_kit.
set_once_unique). Their unique indexes held every row, most of them empty. The database keeps its
tables and triggers: PostgreSQL drops the old constraint (core.migration_ops.own_unique_drop);
SQLite keeps the column's UNIQUE beside the new index rather than rebuild the tables."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import own_unique_drop


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0033_fk_indexed_where_set'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='bet',
                    name='replaces',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='replaced_by', to='tables.bet'),
                ),
                migrations.AlterField(
                    model_name='coupstep',
                    name='supersedes',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='superseded_by', to='tables.coupstep'),
                ),
                migrations.AlterField(
                    model_name='shoecard',
                    name='replaces',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='replaced_by', to='tables.shoecard'),
                ),
            ],
            database_operations=[
                own_unique_drop('tables', [('bet', 'replaces'), ('coupstep', 'supersedes'), ('shoecard', 'replaces')]),
            ],
        ),
        migrations.AddConstraint(
            model_name='bet',
            constraint=models.UniqueConstraint(condition=models.Q(('replaces__isnull', False)), fields=('replaces',), name='bet_replaced_once', violation_error_message='This bet is already amended.'),
        ),
        migrations.AddConstraint(
            model_name='coupstep',
            constraint=models.UniqueConstraint(condition=models.Q(('supersedes__isnull', False)), fields=('supersedes',), name='coupstep_superseded_once', violation_error_message='This step is already amended.'),
        ),
        migrations.AddConstraint(
            model_name='shoecard',
            constraint=models.UniqueConstraint(condition=models.Q(('replaces__isnull', False)), fields=('replaces',), name='shoecard_replaced_once', violation_error_message='This card is already amended.'),
        ),
    ]
