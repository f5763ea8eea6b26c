"""The floor's rows bound to their events (docs/audit.md, "Rows bound to their events"): seats,
spectators, bank turns, the spectators' shares of a bank and shoes decide whose chips a coup
moves (a bet pays from its seat's player, the banker is his bank turn's, the bank's minimum is the
turn's, a coup's table and session are its shoe's), so they are bound like the coups since this
release. The rows written before it are bound once, as they stand at the upgrade, by
``audit.rows.baseline`` events on the global chain (one per table and 500 rows), as tables 0030
bound the others: the verifier finds every row of these tables with its event from now on.

A new installation has no rows yet and writes nothing here."""

from django.db import migrations

#: the tables bound since this migration (their models have AUDIT_BOUND), by app and model
BOUND = [
    ("tables", "BankShare"),
    ("tables", "BankTurn"),
    ("tables", "Seat"),
    ("tables", "Shoe"),
    ("tables", "Spectator"),
]
PER_EVENT = 500


def bind_existing(apps, schema_editor) -> None:
    from audit.services import audit_record

    for app_label, name in BOUND:
        model = apps.get_model(app_label, name)
        rows = model._base_manager.using(schema_editor.connection.alias).order_by("pk")
        pks = list(rows.values_list("pk", flat=True))
        for at in range(0, len(pks), PER_EVENT):
            chunk = pks[at : at + PER_EVENT]
            audit_record(
                actor=None,
                action="audit.rows.baseline",
                after={"table": model._meta.db_table, "first": chunk[0], "last": chunk[-1], "rows": len(chunk)},
                rows=[model(pk=pk) for pk in chunk],
            )


class Migration(migrations.Migration):
    dependencies = [
        ("tables", "0035_append_only_again_on_sqlite"),
        ("audit", "0012_chain_linked_in_the_database"),
    ]

    operations = [migrations.RunPython(bind_existing, migrations.RunPython.noop)]
