"""Celery tasks for the audit trail: thin wrappers around selectors/services."""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from audit.anchors import anchor_publish, anchors_verify
from audit.selectors import BrokenEvent, audit_chain_verify, audit_chain_vouched
from audit.services import chain_verification_record

logger = logging.getLogger(__name__)


@shared_task(name="audit.verify_chain")
def audit_chain_verify_task(requested_by_id: int | None = None, full: bool = True) -> dict[str, object]:
    """Re-verify the whole chain (scheduled by beat, or asked for on the dashboard; ``full=False``:
    only what was appended since the last successful verification), and its head
    against the anchor file (``AUDIT_ANCHOR_FILE``, when set), and store the result
    (``ChainVerification``); a break is logged at ERROR for alerting."""
    started_at = timezone.now()
    report = audit_chain_verify(after=None if full else audit_chain_vouched())
    anchors = anchors_verify(settings.AUDIT_ANCHOR_FILE) if settings.AUDIT_ANCHOR_FILE else None
    if anchors is not None:
        # stored with the chain's breaks, so the dashboard's "broken at seq K" covers them: at the
        # anchored seq, or (a missing or stale anchor file) just past the head, the tail the
        # anchors should vouch for
        past_head = (report.head_seq or 0) + 1
        report.broken.extend(
            BrokenEvent(seq=p.seq if p.seq is not None else past_head, id=0, reason=f"anchors: {p.reason}")
            for p in anchors.problems
        )
    first = report.first_broken
    if first is not None:
        logger.error("audit chain BROKEN at seq=%s id=%s: %s", first.seq, first.id, first.reason)
    requested_by = (
        get_user_model().objects.filter(pk=requested_by_id).first() if requested_by_id is not None else None
    )
    chain_verification_record(report=report, started_at=started_at, requested_by=requested_by)
    result: dict[str, object] = {"ok": report.ok, "checked": report.checked, "head_seq": report.head_seq}
    if anchors is not None:
        result["anchors_checked"] = anchors.checked
    return result


@shared_task(name="audit.anchor_head")
def audit_anchor_task() -> dict[str, object]:
    """Append the signed chain head to ``AUDIT_ANCHOR_FILE`` (beat, daily). Idempotent enough: a
    second anchor of the same head is a harmless extra line."""
    anchor = anchor_publish()
    if not settings.AUDIT_ANCHOR_FILE:
        logger.error(
            "AUDIT_ANCHOR_FILE is not set: the audit chain's head (seq=%s) was not anchored", anchor.seq
        )
    return {"seq": anchor.seq, "hash": anchor.hash, "at": anchor.at}
