"""IdempotencyRecord moves from tables to core, its rows kept.

The model's state moves here (tables 0009 drops it from tables' state); the database table, first
taken over as it is, is then renamed ``core_idempotencyrecord``. Its constraints keep their names
and no trigger or raw SQL names the table. The content type (and so the admin's permissions and
log entries) follows the model.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _content_type_move(from_label: str, to_label: str):
    def move(apps, schema_editor) -> None:
        ContentType = apps.get_model("contenttypes", "ContentType")
        types = ContentType.objects.using(schema_editor.connection.alias)
        if not types.filter(app_label=to_label, model="idempotencyrecord").exists():
            types.filter(app_label=from_label, model="idempotencyrecord").update(app_label=to_label)

    return move


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("tables", "0008_coup_voided"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("key", models.CharField(max_length=128)),
                        (
                            "fingerprint",
                            models.CharField(help_text="SHA-256 of method, path and body", max_length=64),
                        ),
                        ("status_code", models.PositiveSmallIntegerField(default=0)),
                        ("response", models.JSONField(default=dict)),
                        ("created_at", models.DateTimeField()),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tables_idempotencyrecord",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "key"),
                                name="idempotency_key_unique_per_user",
                                violation_error_message="This idempotency key was already used.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("key", ""), _negated=True),
                                name="idempotency_key_set",
                                violation_error_message="An idempotency key cannot be empty.",
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="idempotencyrecord", table=None),
        migrations.RunPython(
            _content_type_move("tables", "core"), _content_type_move("core", "tables"), elidable=True
        ),
    ]
