from __future__ import annotations

import pytest
from django.conf import settings
from django.db import transaction

from audit.services import audit_record
from audit.tasks import audit_chain_verify_task

pytestmark = pytest.mark.django_db


def test_verify_task_runs_in_process_and_reports() -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.event")
    result = audit_chain_verify_task.delay()  # eager in tests: runs here, now
    assert result.get() == {"ok": True, "checked": 1, "head_seq": 1}


def test_beat_schedules_the_nightly_verification() -> None:
    assert settings.CELERY_BEAT_SCHEDULE["audit-verify-chain"] == {
        "task": "audit.verify_chain",
        "schedule": 86400,
    }
