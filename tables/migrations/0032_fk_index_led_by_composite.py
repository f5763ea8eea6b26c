"""Foreign keys that lead a composite index or unique constraint of their model lose their own
index (core.migration_ops: the index is dropped, the table and its triggers stay)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import fk_indexes_drop


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0031_rules_snapshots'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='bankshare',
                    name='turn',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='shares', to='tables.bankturn'),
                ),
                migrations.AlterField(
                    model_name='bet',
                    name='coup',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='bets', to='tables.coup'),
                ),
                migrations.AlterField(
                    model_name='casinostaff',
                    name='user',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='casino_posts', to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='coup',
                    name='shoe',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='coups', to='tables.shoe'),
                ),
                migrations.AlterField(
                    model_name='coupstep',
                    name='coup',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='steps', to='tables.coup'),
                ),
                migrations.AlterField(
                    model_name='croupierassignment',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='assignments', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='croupierassignment',
                    name='user',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='assignments', to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='croupierday',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.casino'),
                ),
                migrations.AlterField(
                    model_name='croupierday',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='feehour',
                    name='session',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='fee_hours', to='tables.tablesession'),
                ),
                migrations.AlterField(
                    model_name='feeposting',
                    name='session',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='fee_postings', to='tables.tablesession'),
                ),
                migrations.AlterField(
                    model_name='gamecoup',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='game_coups', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='gamestep',
                    name='coup',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='steps', to='tables.gamecoup'),
                ),
                migrations.AlterField(
                    model_name='importedrecord',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='seriesentrant',
                    name='series',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='entrants', to='tables.series'),
                ),
                migrations.AlterField(
                    model_name='shoe',
                    name='session',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='shoes', to='tables.tablesession'),
                ),
                migrations.AlterField(
                    model_name='table',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='tables.casino'),
                ),
                migrations.AlterField(
                    model_name='tableday',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='tables.casino'),
                ),
                migrations.AlterField(
                    model_name='tableday',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='days', to='tables.table'),
                ),
            ],
            database_operations=[
                fk_indexes_drop('tables', [('bankshare', 'turn'), ('bet', 'coup'), ('casinostaff', 'user'), ('coup', 'shoe'), ('coupstep', 'coup'), ('croupierassignment', 'table'), ('croupierassignment', 'user'), ('croupierday', 'casino'), ('croupierday', 'table'), ('feehour', 'session'), ('feeposting', 'session'), ('gamecoup', 'table'), ('gamestep', 'coup'), ('importedrecord', 'table'), ('seriesentrant', 'series'), ('shoe', 'session'), ('table', 'casino'), ('tableday', 'casino'), ('tableday', 'table')]),
            ],
        ),
    ]
