"""A report follows the day's total while it is open, and the day's cash after a filed report opens
a supplementary one (docs/compliance.md): one *open* report per player, gaming day and direction
instead of one in all; a plain index keeps the player's reports found by player (his PROTECT).

On SQLite, dropping the plain unique constraint rebuilds the table (and so does adding it back), and
a rebuilt table has lost its triggers: the frozen-once-filed guard is installed again after each."""

from django.db import migrations, models

from audit.db_triggers import frozen_once_final_operation

_GUARD = frozen_once_final_operation("compliance_cashreport", "status", ("filed",))


def _guard_on_sqlite(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        _GUARD.code(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("compliance", "0003_fk_index_led_by_composite")]

    operations = [
        # reversed last: after the plain constraint is back (a rebuilt table on SQLite)
        migrations.RunPython(migrations.RunPython.noop, _guard_on_sqlite),
        migrations.RemoveConstraint(model_name="cashreport", name="cashreport_once_a_day_and_direction"),
        migrations.AlterField(
            model_name="cashreport",
            name="total",
            field=models.PositiveBigIntegerField(
                help_text="chips: the day's total in this direction, up to the last move before it was filed"
            ),
        ),
        migrations.AddIndex(
            model_name="cashreport",
            index=models.Index(fields=["player", "gaming_day", "direction"], name="cashreport_player_day_idx"),
        ),
        migrations.AddConstraint(
            model_name="cashreport",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "open")),
                fields=("player", "gaming_day", "direction"),
                name="cashreport_one_open_a_day_and_direction",
                violation_error_message="A player has one report to file a gaming day for each direction.",
            ),
        ),
        migrations.RunPython(_guard_on_sqlite, migrations.RunPython.noop),
    ]
