"""One audited change of one row: the fields changed as they were, the change saved, those fields
as they are, in one audit event (audit.services.audit_record) of the caller's transaction; or a
row created, whole. A row of a bound table (audit.rows: a seat, a bank turn…) is bound to that
event, and a changed one carries its state as the caller loaded it (``rows_loaded``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from django.db.models import Model

from audit.rows import RowWritten, is_bound, rows_loaded
from audit.services import audit_record
from audit.snapshot import fields_snapshot, model_snapshot
from core.types import Staff

_Row = TypeVar("_Row", bound=Model)


def row_update_audited(*, actor: Staff | None, action: str, row: _Row, changes: Mapping[str, Any]) -> _Row:
    """Set ``changes`` (field name → value) on ``row``, save those fields alone and record
    ``action`` with those fields before and after (the rest of the row is as its earlier events
    describe it: copying it into every change would only double the bytes). The caller holds the
    row's lock, loaded in this transaction and not changed since (a bound row's state as loaded
    goes into its binding: audit.rows.rows_loaded)."""
    bound = is_bound(type(row))
    if bound:
        rows_loaded(row)
    before = fields_snapshot(row, changes)
    for name, value in changes.items():
        setattr(row, name, value)
    row.save(update_fields=list(changes))
    audit_record(
        actor=actor,
        action=action,
        target=row,
        before=before,
        after=fields_snapshot(row, changes),
        # every change the service made to it, on this instance: bound by its values, not read back
        rows=[RowWritten(row)] if bound else (),
    )
    return row


def row_create_audited(*, actor: Staff | None, action: str, row: _Row) -> _Row:
    """Check the new ``row`` (its model's ``full_clean``: a refusal is a ValidationError fit for
    the screen, nothing written), save it and record ``action`` with the row as created."""
    row.full_clean()
    row.save()
    bound = [row] if is_bound(type(row)) else []
    audit_record(actor=actor, action=action, target=row, after=model_snapshot(row), rows=bound)
    return row
