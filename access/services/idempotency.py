"""Forgetting the stored answers to staff requests (core.services.idempotency keeps them): the
purge is audited, so it lives above the audit trail."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from audit.services import audit_record
from core.models import IdempotencyRecord


@transaction.atomic
def idempotency_records_purge(*, before: Any, actor: Any = None) -> int:
    """Forget the stored responses of requests older than ``before``: a client retries within
    minutes, not days, and the records are a cache of answers, not history (the coup steps and
    the audit trail are). The purge itself is audited."""
    stale = IdempotencyRecord.objects.filter(created_at__lt=before)
    count = stale.count()
    if count:
        stale.delete()
        audit_record(
            actor=actor,
            action="tables.idempotencyrecord.purge",  # the name it has always had in the audit trail
            after={"before": before.isoformat(), "deleted": count},
        )
    return count
