"""The home series (Series, SeriesEntrant) and the fee-billing markers (FeeHour) move from the
ledger app to tables: they are game facts, not accounting. The rows stay; the tables are renamed
ledger_series -> tables_series, ledger_seriesentrant -> tables_seriesentrant and ledger_feehour ->
tables_feehour, and the append-only triggers of the fee markers are reinstalled under the new name
(their names carry the table's). ledger 0004 then drops the models from the ledger's state.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from audit.db_triggers import append_only_operation, install_sql, uninstall_sql


def _triggers(statements, table):
    def run(apps, schema_editor) -> None:
        for sql in statements(schema_editor.connection.vendor, table):
            schema_editor.execute(sql, params=None)

    return run


SERIES_END_REASONS = [
    ("completed", "all coups played"),
    ("no_bank", "nobody can open a bank"),
    ("no_bets", "nobody bets against the bank"),
    ("abandoned", "abandoned"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0010_idempotencyrecord_to_core"),
        ("ledger", "0003_bank_share"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # the models as the ledger left them, on the ledger's tables (no database change)
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="FeeHour",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("hour_start", models.DateTimeField()),
                        ("billed_at", models.DateTimeField()),
                        ("total", models.BigIntegerField(help_text="chips charged for this hour")),
                        (
                            "session",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="fee_hours",
                                to="tables.tablesession",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "ledger_feehour",
                        "ordering": ["session", "hour_start"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("session", "hour_start"),
                                name="feehour_once_per_session_hour",
                                violation_error_message="This hour is already billed.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("total__gte", 0)),
                                name="feehour_total_not_negative",
                                violation_error_message="A fee cannot be negative.",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="Series",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("coups_planned", models.PositiveIntegerField(default=12)),
                        ("start_chips", models.PositiveIntegerField(default=100)),
                        ("min_bank", models.PositiveIntegerField(default=2)),
                        ("min_bet", models.PositiveIntegerField(default=1)),
                        ("started_at", models.DateTimeField()),
                        ("ended_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "end_reason",
                            models.CharField(
                                blank=True, choices=SERIES_END_REASONS, default="", max_length=12
                            ),
                        ),
                        (
                            "session",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="series",
                                to="tables.tablesession",
                            ),
                        ),
                        (
                            "started_by",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "ledger_series",
                        "verbose_name_plural": "series",
                        "ordering": ["-started_at"],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(("coups_planned__gte", 1)),
                                name="series_coups_positive",
                                violation_error_message="A series has at least one coup.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("start_chips__gte", 1)),
                                name="series_chips_positive",
                                violation_error_message="A series starts with at least one chip.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("min_bank__gte", 1), ("min_bet__gte", 1)),
                                name="series_minimums_positive",
                                violation_error_message="Minimum bank and bet are at least one chip.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("end_reason", ""), ("ended_at__isnull", True)),
                                    models.Q(
                                        ("ended_at__isnull", False),
                                        ("end_reason__in", ["completed", "no_bank", "no_bets", "abandoned"]),
                                    ),
                                    _connector="OR",
                                ),
                                name="series_end_consistent",
                                violation_error_message="An ended series has an end reason, a running one has none.",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("ended_at__isnull", True),
                                    ("ended_at__gte", models.F("started_at")),
                                    _connector="OR",
                                ),
                                name="series_ends_after_start",
                                violation_error_message="A series ends after it starts.",
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(("ended_at__isnull", True)),
                                fields=("session",),
                                name="series_one_running_per_session",
                                violation_error_message="This session already has a series running.",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="SeriesEntrant",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "chips_before",
                            models.BigIntegerField(help_text="player + reserve balance before the buy-in"),
                        ),
                        ("joined_at", models.DateTimeField()),
                        (
                            "player",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="series_entries",
                                to="tables.player",
                            ),
                        ),
                        (
                            "series",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="entrants",
                                to="tables.series",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "ledger_seriesentrant",
                        "ordering": ["series", "joined_at", "id"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("series", "player"),
                                name="seriesentrant_once_per_series",
                                violation_error_message="This player is already in the series.",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        # the fee markers' append-only triggers are named after their table: off before the rename,
        # back on under the new name after it
        migrations.RunPython(
            _triggers(uninstall_sql, "ledger_feehour"), _triggers(install_sql, "ledger_feehour")
        ),
        migrations.AlterModelTable(name="feehour", table=None),
        migrations.AlterModelTable(name="series", table=None),
        migrations.AlterModelTable(name="seriesentrant", table=None),
        append_only_operation("tables_feehour"),
    ]
