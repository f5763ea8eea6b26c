from __future__ import annotations

import pytest
from django.conf import settings
from django.db import transaction

from audit.services import audit_record
from audit.tasks import audit_anchor_task, audit_chain_verify_task

pytestmark = pytest.mark.django_db


def test_verify_task_runs_in_process_and_reports() -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.event")
    result = audit_chain_verify_task.delay()  # eager in tests: runs here, now
    assert result.get() == {"ok": True, "checked": 1, "head_seq": 1, "heads": {"0": 1}}


def test_beat_schedules_the_nightly_verification() -> None:
    assert settings.CELERY_BEAT_SCHEDULE["audit-verify-chain"] == {
        "task": "audit.verify_chain",
        "schedule": 86400,
    }


def test_the_nightly_verification_checks_the_anchor_file_too(settings, tmp_path) -> None:
    from audit.models import ChainVerification

    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    with transaction.atomic():
        audit_record(actor=None, action="test.event")
    # no anchor written yet (a new install): nothing to check the chain against, and not a break
    result = audit_chain_verify_task.delay().get()
    assert result == {
        "ok": True,
        "checked": 1,
        "head_seq": 1,
        "heads": {"0": 1},
        "anchors_checked": 0,
        "anchors": f"no anchor written yet to {tmp_path / 'anchors.jsonl'}",
    }
    stored = ChainVerification.objects.get()
    assert (stored.ok, stored.first_broken_seq, stored.first_broken_reason) == (True, None, "")
    # the first anchor (seq 2: the verification's own event), and the file recorded (seq 3)
    audit_anchor_task.delay().get()
    result = audit_chain_verify_task.delay().get()
    assert result == {"ok": True, "checked": 3, "head_seq": 3, "heads": {"0": 3}, "anchors_checked": 1}
