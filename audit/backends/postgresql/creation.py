"""The test database's creation and removal (Django's), behind a transaction pooler too."""

from __future__ import annotations

from django.db.backends.postgresql import creation

from core.db_limits import pooled_per_transaction


class DatabaseCreation(creation.DatabaseCreation):
    def _destroy_test_db(self, test_database_name: str, verbosity: int) -> None:
        if not pooled_per_transaction(self.connection):
            super()._destroy_test_db(test_database_name, verbosity)  # type: ignore[misc]  # not in the stubs
            return
        # Behind a transaction pooler the pooler keeps its own server connections to the test
        # database open after every client has gone: a plain DROP DATABASE would be refused as
        # "being accessed by other users". FORCE ends those idle server connections (PostgreSQL 13+).
        with self.connection._nodb_cursor() as cursor:
            cursor.execute(f"DROP DATABASE {self.connection.ops.quote_name(test_database_name)} WITH (FORCE)")
