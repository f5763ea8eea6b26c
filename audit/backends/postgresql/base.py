"""Django's PostgreSQL backend, appending the audit chain last (audit/backends/__init__.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import psycopg
from django.db.backends.postgresql import base, features, operations
from psycopg import errors, pq

from audit.backends import AuditChainWrapper
from audit.backends.postgresql.creation import DatabaseCreation
from core.db_limits import TransactionLimitsWrapper
from core.errors import stale_prepared_plan

#: the most parameters one statement may carry when they are bound by the server (the protocol
#: counts them in 16 bits); bound by psycopg into the text, there is no such limit
SERVER_BOUND_PARAMS = 2**16 - 1


class DatabaseFeatures(features.DatabaseFeatures):
    @property
    def max_query_params(self) -> int | None:  # type: ignore[override]  # a class attribute in Django's
        """Django 5.2 leaves it None for PostgreSQL; with server-side binding (casino/settings,
        DATABASE_PREPARE_THRESHOLD) a statement of more parameters is refused by the server, so
        ``bulk_create`` and ``in_bulk`` must split their batches below it."""
        return SERVER_BOUND_PARAMS if self.uses_server_side_binding else None


class DatabaseOperations(operations.DatabaseOperations):
    def bulk_batch_size(self, fields: Any, objs: Any) -> int:
        """As many rows as fit in one statement's parameters when the server binds them (the
        rule Django's SQLite and Oracle backends follow for their own limits)."""
        limit = self.connection.features.max_query_params
        if limit is None or not fields:
            return len(objs)
        return max(1, limit // len(fields))


if TYPE_CHECKING:  # Django defines it only where psycopg 3 is installed, and its stubs do not know it
    _ServerBindingCursor = psycopg.Cursor[Any]
else:
    _ServerBindingCursor = base.ServerBindingCursor


class PlanRenewingCursor(_ServerBindingCursor):
    """Django's server-binding cursor, which runs once more a statement PostgreSQL refused because
    the connection prepared it before a migration changed what it returns (a column it reads
    altered or dropped while this process, started before the release, kept its connection;
    core.errors.stale_prepared_plan). Outside a transaction (a read in autocommit) nothing else
    would ever discard that prepared statement, and every later run of it would fail until the
    connection closed: so the connection's prepared statements are deallocated (psycopg forgets
    them on seeing that command) and the statement runs again, prepared anew later. Inside a
    transaction the error stands: the transaction is lost, its rollback discards them, and
    core.transient runs an idempotent request once more."""

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        try:
            return super().execute(query, params, **kwargs)
        except errors.FeatureNotSupported as error:
            in_transaction = self.connection.info.transaction_status != pq.TransactionStatus.IDLE
            if in_transaction or not stale_prepared_plan(error):
                raise
        self.connection.execute("DEALLOCATE ALL")
        return super().execute(query, params, **kwargs)


class DatabaseWrapper(AuditChainWrapper, TransactionLimitsWrapper, base.DatabaseWrapper):
    """Behind a transaction pooler, the web limits are set per transaction (core/db_limits.py).
    With statements prepared (DATABASE_PREPARE_THRESHOLD), one prepared before a migration is
    renewed (``PlanRenewingCursor``)."""

    creation_class = DatabaseCreation
    features_class = DatabaseFeatures
    ops_class = DatabaseOperations

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        if params.get("cursor_factory") is base.ServerBindingCursor:
            params["cursor_factory"] = PlanRenewingCursor
        return params
