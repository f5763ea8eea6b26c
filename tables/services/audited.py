"""One audited change of one row: the fields changed as they were, the change saved, those fields
as they are, in one audit event (audit.services.audit_record) of the caller's transaction; or a
row created, whole."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from django.db.models import Model

from audit.services import audit_record
from audit.snapshot import fields_snapshot, model_snapshot
from core.types import Staff

_Row = TypeVar("_Row", bound=Model)


def row_update_audited(*, actor: Staff | None, action: str, row: _Row, changes: Mapping[str, Any]) -> _Row:
    """Set ``changes`` (field name → value) on ``row``, save those fields alone and record
    ``action`` with those fields before and after (the rest of the row is as its earlier events
    describe it: copying it into every change would only double the bytes). The caller holds the
    row's lock."""
    before = fields_snapshot(row, changes)
    for name, value in changes.items():
        setattr(row, name, value)
    row.save(update_fields=list(changes))
    audit_record(actor=actor, action=action, target=row, before=before, after=fields_snapshot(row, changes))
    return row


def row_create_audited(*, actor: Staff | None, action: str, row: _Row) -> _Row:
    """Check the new ``row`` (its model's ``full_clean``: a refusal is a ValidationError fit for
    the screen, nothing written), save it and record ``action`` with the row as created."""
    row.full_clean()
    row.save()
    audit_record(actor=actor, action=action, target=row, after=model_snapshot(row))
    return row
