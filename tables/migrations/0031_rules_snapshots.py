"""A coup references the rules it is played under instead of copying them (issue 22 §3): the
snapshot is kept once in ``tables_rulessnapshot``, keyed by the SHA-256 of its canonical JSON
(content-addressed, append-only), and ``tables_coup.rules`` (about 1 KB a coup) becomes
``rules_snapshot_id``. Every coup's snapshot moves to the new table (one row per distinct
snapshot), so the coups bound to audit events before keep their digests: the digest reads the
referenced content under the name ``rules`` (``Coup.AUDIT_ROW_READS``).

A coup that is over is frozen by its triggers (0017): they stand aside while the rows move
(PostgreSQL: disabled for this transaction's UPDATE; SQLite: dropped, then installed again with the
new column, since SQLite also rebuilds the table and loses them; a bet's guard, which reads its
coup, goes and comes back with them: SQLite refuses to rebuild a table a trigger names).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from importlib import import_module
from typing import Any

import django.db.models.deletion
from django.db import migrations, models

from audit.db_triggers import append_only_operation

FINAL_STATES = "('settled', 'void', 'withdrawn')"
CHUNK = 1000


def _digest(content: Any) -> str:
    """tables.models.rules_digest, as of this migration."""
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _coup_triggers_sql(columns: tuple[str, ...]) -> list[str]:
    """SQLite's guards of a coup that is over (0017's), over ``columns``."""
    return [
        "CREATE TRIGGER IF NOT EXISTS tables_coup_append_only_update BEFORE UPDATE ON tables_coup "
        f"WHEN OLD.state IN {FINAL_STATES} AND NOT ("
        + " AND ".join(f"NEW.{c} IS OLD.{c}" for c in columns)
        + ") BEGIN SELECT RAISE(ABORT, 'tables_coup is append-only once the coup is over: UPDATE refused'); END",
        "CREATE TRIGGER IF NOT EXISTS tables_coup_append_only_delete BEFORE DELETE ON tables_coup "
        f"WHEN OLD.state IN {FINAL_STATES} "
        "BEGIN SELECT RAISE(ABORT, 'tables_coup is append-only once the coup is over: DELETE refused'); END",
    ]


_COLUMNS = (
    "id", "number", "bank", "state", "first_coup_of_bank", "flagged", "alarm", "step_count",
    "created_at", "settled_at", "bank_turn_id", "banker_id", "shoe_id",
)  # fmt: skip
#: a bet's guard reads its coup's state: SQLite refuses to rebuild tables_coup under it
_BET_GUARD = next(
    sql
    for sql in import_module("tables.migrations.0017_harden_append_only").SQLITE_INSTALL
    if sql.startswith("CREATE TRIGGER IF NOT EXISTS tables_bet_append_only_update ")
)
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS tables_bet_append_only_update",
    "DROP TRIGGER IF EXISTS tables_coup_append_only_update",
    "DROP TRIGGER IF EXISTS tables_coup_append_only_delete",
]


def _sqlite(statements: list[str]) -> Any:
    def run(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor == "sqlite":
            for sql in statements:
                schema_editor.execute(sql, params=None)

    return run


def _moving(schema_editor: Any, work: Any) -> None:
    """``work()`` with PostgreSQL's coup guard off (and the new reference checked at once, so that
    no deferred check holds the table against the ALTERs that follow)."""
    postgres = schema_editor.connection.vendor == "postgresql"
    if postgres:
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        schema_editor.execute("ALTER TABLE tables_coup DISABLE TRIGGER tables_coup_append_only_row")
    work()
    if postgres:
        schema_editor.execute("ALTER TABLE tables_coup ENABLE TRIGGER tables_coup_append_only_row")
        schema_editor.execute("SET CONSTRAINTS ALL DEFERRED")


def snapshots_out(apps: Any, schema_editor: Any) -> None:
    coups = apps.get_model("tables", "Coup")
    snapshots = apps.get_model("tables", "RulesSnapshot")

    def work() -> None:
        by_digest: dict[str, list[int]] = defaultdict(list)
        contents: dict[str, Any] = {}
        for pk, rules in coups.objects.order_by("pk").values_list("pk", "rules").iterator(chunk_size=CHUNK):
            digest = _digest(rules)
            contents.setdefault(digest, rules)
            by_digest[digest].append(pk)
        snapshots.objects.bulk_create(
            [snapshots(digest=d, content=c) for d, c in contents.items()], ignore_conflicts=True
        )
        for digest, pks in by_digest.items():
            for at in range(0, len(pks), CHUNK):
                coups.objects.filter(pk__in=pks[at : at + CHUNK]).update(rules_snapshot_id=digest)

    _moving(schema_editor, work)


def snapshots_in(apps: Any, schema_editor: Any) -> None:
    coups = apps.get_model("tables", "Coup")
    snapshots = apps.get_model("tables", "RulesSnapshot")

    def work() -> None:
        for digest, content in snapshots.objects.values_list("digest", "content"):
            coups.objects.filter(rules_snapshot_id=digest).update(rules=content)

    _moving(schema_editor, work)


class Migration(migrations.Migration):
    dependencies = [("tables", "0030_bind_existing_rows")]

    operations = [
        migrations.RunPython(
            _sqlite(SQLITE_DROP), _sqlite([_BET_GUARD, *_coup_triggers_sql(("rules", *_COLUMNS))])
        ),
        migrations.CreateModel(
            name="RulesSnapshot",
            fields=[
                (
                    "digest",
                    models.CharField(
                        help_text="SHA-256 of the canonical JSON, hex",
                        max_length=64,
                        primary_key=True,
                        serialize=False,
                    ),
                ),
                ("content", models.JSONField()),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("digest__regex", "^[0-9a-f]{64}$")),
                        name="rulessnapshot_digest_hex",
                        violation_error_message="A digest is 64 hex digits.",
                    )
                ],
            },
        ),
        append_only_operation("tables_rulessnapshot"),
        migrations.AddField(
            model_name="coup",
            name="rules_snapshot",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="tables.rulessnapshot",
            ),
        ),
        migrations.AlterField(model_name="coup", name="rules", field=models.JSONField(null=True)),
        migrations.RunPython(snapshots_out, snapshots_in),
        migrations.RemoveField(model_name="coup", name="rules"),
        migrations.AlterField(
            model_name="coup",
            name="rules_snapshot",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="tables.rulessnapshot",
            ),
        ),
        migrations.RunPython(
            _sqlite([_BET_GUARD, *_coup_triggers_sql(("rules_snapshot_id", *_COLUMNS))]), _sqlite(SQLITE_DROP)
        ),
    ]
