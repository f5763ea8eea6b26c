"""Create the engine's four built-in rule profiles and the croupier / pit_boss / accountant groups."""

from django.db import migrations

from tables.builtin import builtin_profiles_ensure, roles_ensure


def forwards(apps, schema_editor):
    using = schema_editor.connection.alias
    builtin_profiles_ensure(apps, using)
    # the three roles of this point in the graph (the cashier's permissions come later: 0012)
    roles_ensure(apps, using, roles=("croupier", "pit_boss", "accountant"))


def backwards(apps, schema_editor):
    # Only the untouched built-ins go: derived profiles and tables PROTECT what they reference.
    apps.get_model("tables", "RuleProfile").objects.filter(
        casino__isnull=True, derived_profiles__isnull=True
    ).delete()
    apps.get_model("auth", "Group").objects.filter(name__in=["croupier", "pit_boss", "accountant"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0002_coupstep_append_only"),
        ("audit", "0002_auditevent_append_only"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
