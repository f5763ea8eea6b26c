"""The built-in profiles' names lose the source numbers they used to carry ("Casino", not the old
name with its number in brackets). Only a built-in row still bearing its old name is renamed: a
name an administrator changed stays his."""

from django.db import migrations

# slug: (name as installed by earlier releases, name now)
RENAMES = {
    "casino": ("Casino (seed 000)", "Casino"),
    "classic": ("Classic (seed 001)", "Classic"),
    "club": ("Club (seed 002)", "Club"),
    "home": ("Home series (seed 003)", "Home series"),
}


def _rename(apps, schema_editor, *, forwards):
    RuleProfile = apps.get_model("tables", "RuleProfile")
    using = schema_editor.connection.alias
    for slug, (old, new) in RENAMES.items():
        before, after = (old, new) if forwards else (new, old)
        RuleProfile.objects.using(using).filter(casino__isnull=True, slug=slug, name=before).update(
            name=after
        )


def forwards(apps, schema_editor):
    _rename(apps, schema_editor, forwards=True)


def backwards(apps, schema_editor):
    _rename(apps, schema_editor, forwards=False)


class Migration(migrations.Migration):
    dependencies = [("tables", "0008_coup_voided")]

    operations = [migrations.RunPython(forwards, backwards)]
