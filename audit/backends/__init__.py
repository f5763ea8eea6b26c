"""Database backends that append the audit chain last: Django's PostgreSQL and SQLite backends,
with :class:`AuditChainWrapper` mixed in (settings map ``DATABASE_URL``'s engine to these).

Django has no hook "just before COMMIT"; a transaction's end is seen here, in the connection
wrapper, where COMMIT, savepoint releases and rollbacks all pass. The events a transaction
recorded (``audit.services.audit_record``) are appended to the chain at the release of its
outermost atomic block, and dropped with any rollback that covers them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import DatabaseError

if TYPE_CHECKING:
    # a mixin of a DatabaseWrapper: typed as one so its super() calls are checked
    from django.db.backends.base.base import BaseDatabaseWrapper as _Wrapper
else:
    _Wrapper = object


class AuditChainWrapper(_Wrapper):
    """Mixin for a DatabaseWrapper: keeps the audit events of the open transaction and appends
    them when it commits (docs/audit.md, "Serialising writers")."""

    #: audit_record may keep events until the end of the transaction on this connection
    audit_deferred = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (savepoint ids the event was recorded under, event), in the order recorded
        self.audit_pending: list[tuple[frozenset[str], Any]] = []
        # where the pending events are appended: "" at COMMIT, else a savepoint id (tests)
        self.audit_flush_at: str | None = None
        # the bound rows the open transaction loaded before changing them: (table, id) -> (where
        # its events are appended, the state as loaded) (audit.rows.rows_loaded), for their binding
        self.audit_rows_before: dict[tuple[str, int], Any] = {}

    def commit(self) -> None:
        if self.audit_pending:
            from audit.services import audit_pending_flush

            try:
                audit_pending_flush(self)
            except DatabaseError:
                raise  # Atomic rolls the transaction back
            except BaseException:
                self._rollback_quietly()
                raise
        self.audit_rows_before = {}
        super().commit()

    def _rollback_quietly(self) -> None:
        try:
            self.rollback()
        except DatabaseError:
            self.close()

    def savepoint_commit(self, sid: str) -> None:
        if self.audit_pending and sid == self.audit_flush_at:
            from audit.services import audit_pending_flush

            try:
                audit_pending_flush(self)
            except DatabaseError:
                raise  # Atomic rolls back to the savepoint
            except BaseException:
                self.savepoint_rollback(sid)
                raise
        super().savepoint_commit(sid)

    def savepoint_rollback(self, sid: str) -> None:
        super().savepoint_rollback(sid)
        if self.audit_pending:
            from audit.services import audit_pending_discard

            audit_pending_discard(self, sid)

    def rollback(self) -> None:
        self.audit_pending, self.audit_flush_at, self.audit_rows_before = [], None, {}
        super().rollback()

    def close(self) -> None:
        # the transaction, if any, is gone
        self.audit_pending, self.audit_flush_at, self.audit_rows_before = [], None, {}
        super().close()
