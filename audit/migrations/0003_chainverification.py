"""Stored results of audit chain verifications (the dashboard's "verified up to seq N"), append-only."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from audit.db_triggers import append_only_operation


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0002_auditevent_append_only"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ChainVerification",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("started_at", models.DateTimeField()),
                ("finished_at", models.DateTimeField()),
                ("checked", models.PositiveBigIntegerField(help_text="events walked")),
                (
                    "head_seq",
                    models.PositiveBigIntegerField(blank=True, help_text="the last event checked", null=True),
                ),
                ("head_hash", models.CharField(max_length=64)),
                ("ok", models.BooleanField()),
                ("broken_count", models.PositiveIntegerField(default=0)),
                ("first_broken_seq", models.PositiveBigIntegerField(blank=True, null=True)),
                ("first_broken_reason", models.CharField(blank=True, default="", max_length=300)),
                (
                    "requested_by",
                    models.ForeignKey(
                        blank=True,
                        help_text="empty: the nightly run",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-finished_at", "-id"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("broken_count", 0), ("first_broken_seq__isnull", True), ("ok", True)),
                            models.Q(
                                ("broken_count__gt", 0), ("first_broken_seq__isnull", False), ("ok", False)
                            ),
                            _connector="OR",
                        ),
                        name="chainverification_ok_consistent",
                        violation_error_message="A verification is OK exactly when nothing was broken.",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("finished_at__gte", models.F("started_at"))),
                        name="chainverification_finishes_after_start",
                        violation_error_message="A verification finishes after it starts.",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("head_hash__regex", "^[0-9a-f]{64}$")),
                        name="chainverification_head_hash_hex64",
                        violation_error_message="Hashes are 64 lowercase hex digits.",
                    ),
                ],
            },
        ),
        append_only_operation("audit_chainverification"),
    ]
