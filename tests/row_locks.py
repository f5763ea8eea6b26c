"""Whether a row is locked by this test's connection, asked from another (PostgreSQL)."""

from __future__ import annotations

from django.db import OperationalError, connections


def row_free(table: str, pk: int) -> bool:
    """Whether another connection can lock that row now, without waiting."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("BEGIN")
            try:
                cursor.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE NOWAIT", [pk])
            except OperationalError:
                return False
            finally:
                cursor.execute("ROLLBACK")
        return True
    finally:
        other.close()
