"""Django's PostgreSQL backend, appending the audit chain last (audit/backends/__init__.py)."""

from __future__ import annotations

from django.db.backends.postgresql import base

from audit.backends import AuditChainWrapper


class DatabaseWrapper(AuditChainWrapper, base.DatabaseWrapper):
    pass
