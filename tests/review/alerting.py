"""Helpers for the alert tests: a stored chain verification with a break, the alerts by kind."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from django.utils import timezone

from audit.models import ChainVerification
from review.models import Alert


def broken_verification(*, seq: int, at: dt.datetime | None = None, chain: int = 0) -> ChainVerification:
    at = at or timezone.now()
    return ChainVerification.objects.create(
        chain=chain,
        started_at=at,
        finished_at=at,
        checked=10,
        head_seq=10,
        head_hash="a" * 64,
        ok=False,
        broken_count=1,
        first_broken_seq=seq,
        first_broken_reason="prev_hash does not match the previous event's hash",
    )


def kinds() -> Counter[str]:
    return Counter(Alert.objects.values_list("kind", flat=True))
