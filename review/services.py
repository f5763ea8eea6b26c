"""Who may use the pit boss's pages. The review pages make no write of their own: approving and
rejecting corrections are ``tables.services.correction_approve`` / ``correction_reject``, voiding a
coup ``tables.services.coup_void``; asking for an audit verification is
``audit.services.chain_verification_request``. Who may export is ``reports.services.can_export``.
"""

from __future__ import annotations

from typing import Any

from tables.permissions import can_approve, reads_everything


def can_review_corrections(user: Any) -> bool:
    """The corrections queue and a coup's review page: pit bosses."""
    return can_approve(user)


def can_see_dashboard(user: Any) -> bool:
    """The dashboard: pit bosses, and accountants read-only."""
    return reads_everything(user)


def can_verify_audit(user: Any) -> bool:
    """Asking for an audit verification writes (a request event, a stored result): pit bosses."""
    return can_approve(user)
