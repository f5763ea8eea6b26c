"""Celery tasks for the audit trail: thin wrappers around selectors/services."""

from __future__ import annotations

import logging

from celery import shared_task

from audit.selectors import audit_chain_verify

logger = logging.getLogger(__name__)


@shared_task(name="audit.verify_chain")
def audit_chain_verify_task() -> dict[str, object]:
    """Re-verify the whole chain (scheduled by beat); a break is logged at ERROR for alerting."""
    report = audit_chain_verify()
    first = report.first_broken
    if first is not None:
        logger.error("audit chain BROKEN at seq=%s id=%s: %s", first.seq, first.id, first.reason)
    return {"ok": report.ok, "checked": report.checked, "head_seq": report.head_seq}
