"""Django's PostgreSQL backend, appending the audit chain last (audit/backends/__init__.py)."""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base, features, operations

from audit.backends import AuditChainWrapper
from audit.backends.postgresql.creation import DatabaseCreation
from core.db_limits import TransactionLimitsWrapper

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


class DatabaseWrapper(AuditChainWrapper, TransactionLimitsWrapper, base.DatabaseWrapper):
    """Behind a transaction pooler, the web limits are set per transaction (core/db_limits.py)."""

    creation_class = DatabaseCreation
    features_class = DatabaseFeatures
    ops_class = DatabaseOperations
