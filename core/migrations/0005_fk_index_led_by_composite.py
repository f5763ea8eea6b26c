"""Foreign keys that lead a composite index or unique constraint of their model lose their own
index (core.migration_ops: the index is dropped, the table and its triggers stay)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import fk_indexes_drop


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0004_idempotency_answers_packed'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='apitoken',
                    name='user',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='idempotencyrecord',
                    name='user',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
                ),
            ],
            database_operations=[
                fk_indexes_drop('core', [('apitoken', 'user'), ('idempotencyrecord', 'user')]),
            ],
        ),
    ]
