"""An event's ``prev_hash`` and ``hash``, and a verification's ``head_hash``, kept as their 32 bytes
(``bytea``; a blob on SQLite) instead of 64 hex characters: half the bytes in the row and in the
two unique indexes on them (docs/audit.md, "Bytes"). The model reads and writes hex
(``audit.models.HashField``), so every hash is hashed, compared, shown and exported as before.

Every existing row is converted in place, and back when unapplied, without changing what any
hash says: the chain verifies before and after.

- PostgreSQL: ``ALTER COLUMN … TYPE bytea USING decode(…, 'hex')`` (and ``encode`` back). A type
  change rewrites the table without firing row triggers, so the append-only triggers stay as they
  are and refuse nothing; grants are the table's and are kept. ``audit_chain_head_locked`` (0007)
  gives the head's hash as hex again, so the appender reads what it read. The hex check goes
  before the change (a regular expression cannot read ``bytea``), the 32-byte check comes after.
- SQLite: the rows' values are rewritten (the triggers, which would refuse it, dropped for the
  while) and the table rebuilt with the new column type; the triggers are installed again at the
  end, both ways (the constraint changes rebuild the table too).
"""

from typing import Any

from django.db import migrations, models

from audit.db_triggers import install_sql, uninstall_sql
from audit.models import HashField

#: (table, model, hash columns)
_COLUMNS = (
    ("audit_auditevent", "auditevent", ("prev_hash", "hash")),
    ("audit_chainverification", "chainverification", ("head_hash",)),
)

_HEAD_FUNCTION = """
CREATE OR REPLACE FUNCTION {{s}}.audit_chain_head_locked(p_chain bigint)
RETURNS TABLE (head_seq bigint, head_hash varchar)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, {{s}}, pg_temp AS $$
BEGIN
    IF p_chain = 0 THEN
        PERFORM pg_advisory_xact_lock({key}::bigint);
    ELSE
        PERFORM pg_advisory_xact_lock({casino_class}, p_chain::integer);
    END IF;
    RETURN QUERY
        SELECT e.seq::bigint, {head}::varchar FROM {{s}}.audit_auditevent e
        WHERE e.chain = p_chain ORDER BY e.seq DESC LIMIT 1;
END
$$
"""
_KEY, _CASINO_CLASS = 0x6175646974, 0x61756474  # as in 0007 (audit.services' lock keys)
HEAD_AS_BYTES = _HEAD_FUNCTION.format(key=_KEY, casino_class=_CASINO_CLASS, head="encode(e.hash, 'hex')")
HEAD_AS_TEXT = _HEAD_FUNCTION.format(key=_KEY, casino_class=_CASINO_CLASS, head="e.hash")


def _schema(schema_editor: Any) -> str:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT current_schema()")
        return schema_editor.connection.ops.quote_name(cursor.fetchone()[0])


def _sqlite_values(schema_editor: Any, table: str, columns: tuple[str, ...], convert: Any) -> None:
    """Every row's ``columns`` rewritten by ``convert``, the table's triggers off meanwhile."""
    for sql in uninstall_sql("sqlite", table):
        schema_editor.execute(sql, params=None)
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f'SELECT id, {", ".join(columns)} FROM "{table}"')
        rows = cursor.fetchall()
        sets = ", ".join(f'"{c}" = %s' for c in columns)
        for pk, *values in rows:
            cursor.execute(f'UPDATE "{table}" SET {sets} WHERE id = %s', [*map(convert, values), pk])


def _field(field: models.Field, name: str, model: Any) -> models.Field:
    field.set_attributes_from_name(name)
    field.model = model
    return field


def _sqlite_rebuild(apps: Any, schema_editor: Any, *, to_bytes: bool) -> None:
    """Each table rebuilt once with all its hash columns of the other type (one rebuild a table:
    ``alter_field`` column by column would rebuild from the historical model, which still has the
    other columns' old type, and undo the first change)."""
    for _, model_name, columns in _COLUMNS:
        model = apps.get_model("audit", model_name)
        pairs = []
        for name in columns:
            text, blob = (
                _field(models.CharField(max_length=64), name, model),
                _field(HashField(), name, model),
            )
            pairs.append((model._meta.get_field(name), blob) if to_bytes else (blob, text))
        schema_editor._remake_table(model, alter_fields=pairs)


def _hex_to_bytes(value: Any) -> Any:
    return bytes.fromhex(value) if isinstance(value, str) else value


def _bytes_to_hex(value: Any) -> Any:
    return bytes(value).hex() if isinstance(value, bytes | memoryview) else value


def forward(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for table, _, columns in _COLUMNS:
            changes = ", ".join(
                f'ALTER COLUMN "{c}" TYPE bytea USING decode("{c}", \'hex\')' for c in columns
            )
            schema_editor.execute(f'ALTER TABLE "{table}" {changes}', params=None)
        schema_editor.execute(HEAD_AS_BYTES.replace("{s}", _schema(schema_editor)), params=None)
        return
    for table, _, columns in _COLUMNS:
        _sqlite_values(schema_editor, table, columns, _hex_to_bytes)
    _sqlite_rebuild(apps, schema_editor, to_bytes=True)


def backward(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(HEAD_AS_TEXT.replace("{s}", _schema(schema_editor)), params=None)
        for table, _, columns in _COLUMNS:
            changes = ", ".join(
                f'ALTER COLUMN "{c}" TYPE varchar(64) USING encode("{c}", \'hex\')' for c in columns
            )
            schema_editor.execute(f'ALTER TABLE "{table}" {changes}', params=None)
        return
    for table, _, columns in _COLUMNS:
        _sqlite_values(schema_editor, table, columns, _bytes_to_hex)
    _sqlite_rebuild(apps, schema_editor, to_bytes=False)


def triggers_again(apps: Any, schema_editor: Any) -> None:
    """SQLite: a table rebuilt loses its triggers; both tables get theirs again (idempotent)."""
    if schema_editor.connection.vendor != "sqlite":
        return
    for table, _, _ in _COLUMNS:
        for sql in install_sql("sqlite", table):
            schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("audit", "0010_hash_unique_without_like_index")]

    operations = [
        # undone last: the triggers back after every rebuild of the way back
        migrations.RunPython(migrations.RunPython.noop, triggers_again),
        migrations.RemoveConstraint(model_name="auditevent", name="audit_hashes_hex64"),
        migrations.RemoveConstraint(model_name="chainverification", name="chainverification_head_hash_hex64"),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(model_name="auditevent", name="hash", field=HashField()),
                migrations.AlterField(model_name="auditevent", name="prev_hash", field=HashField()),
                migrations.AlterField(model_name="chainverification", name="head_hash", field=HashField()),
            ],
            database_operations=[migrations.RunPython(forward, backward)],
        ),
        migrations.AddConstraint(
            model_name="auditevent",
            constraint=models.CheckConstraint(
                condition=models.Q(("hash__length", 32), ("prev_hash__length", 32)),
                name="audit_hashes_32_bytes",
                violation_error_message="Hashes are 32 bytes.",
            ),
        ),
        migrations.AddConstraint(
            model_name="chainverification",
            constraint=models.CheckConstraint(
                condition=models.Q(("head_hash__length", 32)),
                name="chainverification_head_hash_32_bytes",
                violation_error_message="Hashes are 32 bytes.",
            ),
        ),
        migrations.RunPython(triggers_again, migrations.RunPython.noop),
    ]
