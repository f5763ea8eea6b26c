"""Django's PostgreSQL backend, appending the audit chain last (audit/backends/__init__.py)."""

from __future__ import annotations

from django.db.backends.postgresql import base

from audit.backends import AuditChainWrapper
from audit.backends.postgresql.creation import DatabaseCreation
from core.db_limits import TransactionLimitsWrapper


class DatabaseWrapper(AuditChainWrapper, TransactionLimitsWrapper, base.DatabaseWrapper):
    """Behind a transaction pooler, the web limits are set per transaction (core/db_limits.py)."""

    creation_class = DatabaseCreation
