"""Who may use the pit boss's and accounting's pages, and the one write they make of their own:
recording that an export was taken. Approving and rejecting corrections are
``tables.services.correction_approve`` / ``correction_reject``; asking for an audit verification
is ``audit.services.chain_verification_request``.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction

from audit.models import AuditEvent
from audit.services import audit_record
from tables.exports import ExportKind
from tables.models import Table
from tables.permissions import can_approve, reads_everything
from tables.review_selectors import Period

EXPORT_PERMISSION = "tables.export_coups"


def can_review_corrections(user: Any) -> bool:
    """The corrections queue and a coup's review page: pit bosses."""
    return can_approve(user)


def can_see_dashboard(user: Any) -> bool:
    """The dashboard: pit bosses, and accountants read-only."""
    return reads_everything(user)


def can_verify_audit(user: Any) -> bool:
    """Asking for an audit verification writes (a request event, a stored result): pit bosses."""
    return can_approve(user)


def can_export(user: Any) -> bool:
    """The exports: pit bosses and accountants (both hold tables.export_coups)."""
    return reads_everything(user) and user.has_perm(EXPORT_PERMISSION)


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
