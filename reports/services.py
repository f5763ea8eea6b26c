"""Who may take accounting's exports, and the one write the exports make: recording that an export
was taken (audited before the first byte is streamed)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction

from audit.models import AuditEvent
from audit.services import audit_record
from reports.exports import ExportKind
from review.period import Period
from tables.models import Table
from tables.permissions import reads_everything
from tables.perms import EXPORT_COUPS


def can_export(user: Any) -> bool:
    """The exports: pit bosses and accountants (both hold tables.export_coups)."""
    return reads_everything(user) and user.has_perm(EXPORT_COUPS)


@transaction.atomic
def export_record(*, actor: Any, export: ExportKind, period: Period, table: Table | None) -> AuditEvent:
    """Audit an export before it is streamed: who took which export, for which days and table."""
    if not can_export(actor):
        raise PermissionDenied("Only a pit boss or an accountant may export.")
    return audit_record(
        actor=actor,
        action=export.action,
        after={
            "export": export.slug,
            "from": period.start,
            "to": period.end,
            "table": table.pk if table is not None and export.by_table else None,
            "filename": export.filename(period, table),
        },
    )
