"""The chip ledger (coming next): double-entry, append-only.

Its entry table will be protected exactly like the audit trail, with
``audit.db_triggers.append_only_operation("ledger_entry")`` in its migration.
"""
