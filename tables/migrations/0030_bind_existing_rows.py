"""Rows bound to their audit events (docs/audit.md, "Rows bound to their events"): the rows written
before this release are bound once, as they are at the upgrade, by ``audit.rows.baseline``
events on the global chain (one per table and 500 rows), so that the verifier finds every row of
a bound table with its event from now on. What was changed before the upgrade cannot be told
apart: the baseline vouches for the rows as they stand, and the chain for everything after.

A new installation has no rows yet and writes nothing here. The tables' columns are the
historical models' (this migration's), so a later migration that changes a bound table's columns
binds that table's rows again itself.
"""

from django.db import migrations

#: every table whose rows are bound (the models with AUDIT_BOUND), by app and model
BOUND = [
    ("ledger", "Entry"),
    ("ledger", "Transaction"),
    ("reports", "ReportRun"),
    ("tables", "BankTax"),
    ("tables", "Bet"),
    ("tables", "Coup"),
    ("tables", "CoupStep"),
    ("tables", "FeeHour"),
    ("tables", "GameCoup"),
    ("tables", "GameStep"),
    ("tables", "ShoeCard"),
]
PER_EVENT = 500


def bind_existing(apps, schema_editor) -> None:
    from audit.services import audit_record

    for app_label, name in BOUND:
        model = apps.get_model(app_label, name)
        rows = model._base_manager.using(schema_editor.connection.alias).order_by("pk")
        if name == "ReportRun":  # bound once finished or failed (reports.models.ReportRun)
            rows = rows.filter(status__in=["finished", "failed"])
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
        ("tables", "0029_void_requests"),
        ("ledger", "0011_booksverification_frozen_once_finished"),
        ("reports", "0003_reportrun_heartbeat"),
        # it writes audit events with today's audit_record, which stores hashes as bytes: the
        # audit tables must be at that shape first (on an upgrade with rows to bind)
        ("audit", "0011_hashes_as_bytes"),
    ]

    operations = [migrations.RunPython(bind_existing, migrations.RunPython.noop)]
