"""``audit_chain_head_locked(chain)`` (PostgreSQL): take a chain's advisory lock and read its head
in one round trip, where the appender made two (docs/audit.md, "Serialising writers").

A VOLATILE plpgsql function takes a new snapshot for each statement it runs (READ COMMITTED), so
the head is read after the lock is granted: it sees every event committed by the transaction that
held the lock before, exactly as the separate SELECT did. Pinned to a search path with the catalog
first and the temporary schema last, its table schema-qualified (issue 10). Nothing on SQLite,
whose appender reads the head under the database write lock it already holds.
"""

from django.db import migrations

_KEY = 0x6175646974  # audit.services._CHAIN_LOCK_KEY: the global chain's lock, as before the split
_CASINO_CLASS = 0x61756474  # audit.services._CASINO_LOCK_CLASS

INSTALL = f"""
CREATE OR REPLACE FUNCTION {{s}}.audit_chain_head_locked(p_chain bigint)
RETURNS TABLE (head_seq bigint, head_hash varchar)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, {{s}}, pg_temp AS $$
BEGIN
    IF p_chain = 0 THEN
        PERFORM pg_advisory_xact_lock({_KEY}::bigint);
    ELSE
        PERFORM pg_advisory_xact_lock({_CASINO_CLASS}, p_chain::integer);
    END IF;
    RETURN QUERY
        SELECT e.seq::bigint, e.hash::varchar FROM {{s}}.audit_auditevent e
        WHERE e.chain = p_chain ORDER BY e.seq DESC LIMIT 1;
END
$$
"""
UNINSTALL = "DROP FUNCTION IF EXISTS {s}.audit_chain_head_locked(bigint)"


def _run(sql: str):
    def run(apps, schema_editor) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_schema()")
            schema = connection.ops.quote_name(cursor.fetchone()[0])
        schema_editor.execute(sql.replace("{s}", schema), params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("audit", "0006_chains_per_casino")]

    operations = [migrations.RunPython(_run(INSTALL), _run(UNINSTALL))]
