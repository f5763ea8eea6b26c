"""The anchor file, recorded in the database (docs/audit.md, "Anchors"): a new install before its
first anchor is not a broken chain ("no anchor written yet", no alert), while a file anchors were
written to and that is gone, emptied or started again is a finding that names the file, at the
event that recorded it, never at a seq past the head."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from audit import anchors as anchors_module
from audit.anchors import (
    ANCHOR_FILE_ACTION,
    anchor_append,
    anchor_file_recorded,
    anchor_make,
    anchor_publish,
    anchors_make,
    anchors_verify,
)
from audit.models import AuditEvent, ChainVerification
from audit.services import audit_record
from audit.tasks import audit_anchor_task, audit_chain_verify_task
from review.models import Alert, AlertKind
from review.services import alerts_raise

pytestmark = pytest.mark.django_db


@pytest.fixture
def anchor_file(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The anchor file of a new install (not written yet), and a process that has recorded none."""
    monkeypatch.setattr(anchors_module, "_NOTED", set())
    path = tmp_path / "db.anchors.jsonl"
    settings.AUDIT_ANCHOR_FILE = str(path)
    return path


def events(count: int) -> None:
    with transaction.atomic():
        for n in range(count):
            audit_record(actor=None, action="test.event", after={"n": n})


def recorded_events() -> list[tuple[int, Any]]:
    return list(
        AuditEvent.objects.filter(action=ANCHOR_FILE_ACTION).order_by("seq").values_list("seq", "after")
    )


def verify_anchors(path: Path) -> tuple[int, str, str]:
    out = io.StringIO()
    try:
        call_command("verify_audit", anchors=str(path), stdout=out, stderr=io.StringIO())
    except CommandError as error:
        return error.returncode, out.getvalue(), str(error)
    return 0, out.getvalue(), ""


# ------------------------------------------------------------------- a new install: nothing written
def test_verify_now_before_any_anchor_says_so_and_raises_no_alert(anchor_file: Path) -> None:
    events(8)

    result = audit_chain_verify_task.delay().get()  # the dashboard's "Verify the chain now"

    assert result == {
        "ok": True,
        "checked": 8,
        "head_seq": 8,
        "heads": {"0": 8},
        "anchors_checked": 0,
        "anchors": f"no anchor written yet to {anchor_file}",
    }
    stored = ChainVerification.objects.get()
    assert (stored.ok, stored.broken_count, stored.first_broken_seq, stored.first_broken_reason) == (
        True,
        0,
        None,
        "",
    )
    assert alerts_raise(now=timezone.now()) == []
    assert not Alert.objects.filter(kind=AlertKind.AUDIT_BREAK).exists()


def test_an_empty_file_made_ahead_of_the_first_anchor_is_a_new_install_too(anchor_file: Path) -> None:
    events(2)
    anchor_file.touch()  # created by the deployment, to be made append-only (chattr +a)

    report = anchors_verify(anchor_file)

    assert [(p.reason, p.unwritten) for p in report.problems] == [
        (f"anchor file {anchor_file} holds no valid anchor", True)
    ]
    assert audit_chain_verify_task.delay().get()["ok"] is True


def test_verify_audit_asked_about_a_file_never_written_still_fails_and_says_why(anchor_file: Path) -> None:
    events(2)

    code, out, error = verify_anchors(anchor_file)

    assert (code, error) == (1, f"anchors: anchor file {anchor_file} is missing")
    assert (
        "  (no anchor was ever written to it, as far as the database records: a new install before "
        "its first anchor, or not the anchor file)"
    ) in out.splitlines()


# --------------------------------------------------------------------------- the file, recorded
def test_the_first_anchor_records_the_file_once(anchor_file: Path) -> None:
    events(3)

    audit_anchor_task.delay().get()

    first = json.loads(anchor_file.read_text().splitlines()[0])
    assert recorded_events() == [(4, {"path": str(anchor_file), "since": first["at"]})]
    audit_anchor_task.delay().get()
    anchor_publish()  # a report's
    assert len(anchor_file.read_text().splitlines()) == 3
    assert recorded_events() == [(4, {"path": str(anchor_file), "since": first["at"]})]
    record = anchor_file_recorded(anchor_file)
    assert record is not None and (record.seq, record.since) == (4, first["at"])


def test_a_file_written_before_the_record_existed_is_recorded_from_its_oldest_anchor(
    anchor_file: Path,
) -> None:
    events(2)
    anchor_append(anchors_make(), anchor_file)  # written by a version that recorded nothing
    call_command("audit_anchor", stdout=io.StringIO())  # the command writes nothing in the database
    oldest = json.loads(anchor_file.read_text().splitlines()[0])["at"]
    assert recorded_events() == []

    audit_anchor_task.delay().get()  # the first append since: recorded, from the file's oldest anchor

    assert recorded_events() == [(3, {"path": str(anchor_file), "since": oldest})]
    anchors_module._NOTED.clear()  # another process: it finds the record, and records nothing more
    audit_anchor_task.delay().get()
    assert len(recorded_events()) == 1


def test_a_recorded_anchor_file_deleted_is_a_finding_naming_the_file(anchor_file: Path) -> None:
    events(5)
    audit_anchor_task.delay().get()  # the record: seq 6 of the global chain
    since = json.loads(anchor_file.read_text().splitlines()[0])["at"]
    anchor_file.unlink()

    result = audit_chain_verify_task.delay().get()

    reason = (
        f"anchor file {anchor_file} is missing; anchors were written to it from {since} "
        "(event seq 6 of the global chain)"
    )
    assert (result["ok"], result["head_seq"], result["anchors_checked"]) == (False, 6, 0)
    stored = ChainVerification.objects.get()
    assert (stored.ok, stored.broken_count, stored.first_broken_seq, stored.first_broken_reason) == (
        False,
        1,
        6,  # the event that recorded the file: it is there, it is not "past the head"
        f"anchors: {reason}",
    )
    assert verify_anchors(anchor_file)[0::2] == (1, f"anchors: {reason}")

    [alert] = alerts_raise(now=timezone.now())
    finding = hashlib.sha256(f"anchors: {reason}".encode()).hexdigest()[:12]
    assert (alert.kind, alert.subject_key, alert.casino_id) == (
        AlertKind.AUDIT_BREAK,
        f"anchors:seq:6:{finding}",
        None,
    )
    assert alert.summary == f"The audit anchor file is at fault: {reason}"
    assert "broken at seq" not in alert.summary
    audit_chain_verify_task.delay().get()
    assert alerts_raise(now=timezone.now()) == []  # found again: the same alert, not a second one


def test_a_recorded_anchor_file_started_again_is_a_finding(anchor_file: Path) -> None:
    events(2)
    audit_anchor_task.delay().get()  # the record: seq 3
    since = json.loads(anchor_file.read_text().splitlines()[0])["at"]
    anchor_file.unlink()
    audit_anchor_task.delay().get()  # beat's next anchor makes a new file: the old anchors are gone
    restarted = json.loads(anchor_file.read_text().splitlines()[0])["at"]

    result = audit_chain_verify_task.delay().get()

    assert result["ok"] is False
    stored = ChainVerification.objects.get()
    assert (stored.first_broken_seq, stored.first_broken_reason) == (
        3,
        f"anchors: anchor file {anchor_file} was started again at {restarted}; anchors were written "
        f"to it from {since} (event seq 3 of the global chain)",
    )
    assert len(recorded_events()) == 1  # recorded once: the record keeps what the file held first


def test_a_recorded_anchor_file_emptied_is_a_finding_at_its_record(anchor_file: Path) -> None:
    events(2)
    audit_anchor_task.delay().get()  # the record: seq 3
    anchor_file.write_text("")

    report = anchors_verify(anchor_file)

    assert [(p.reason, p.seq, p.unwritten) for p in report.problems] == [
        (f"anchor file {anchor_file} holds no valid anchor", 3, False)
    ]


def test_anchors_missing_between_two_are_the_files_finding_one_alert_however_many_runs(
    anchor_file: Path,
) -> None:
    """A gap between two anchors (anchors removed, or none written: under make run, a server stopped
    for more than a day) is no position of the chain: filed at the file's record, one alert."""
    events(2)
    audit_anchor_task.delay().get()  # the record: seq 3
    first = anchor_file.read_text().splitlines()[0]
    later = anchor_make(at=timezone.now() + dt.timedelta(hours=30))
    anchor_append(later, anchor_file)

    audit_chain_verify_task.delay().get()

    stored = ChainVerification.objects.get()
    gap = (
        f"anchor file {anchor_file}: no anchor between line 1 ({json.loads(first)['at']}) and line 2 "
        f"({later.at}): 30.0 h apart, allowed 26.0 h (anchors missing)"
    )
    assert (stored.first_broken_seq, stored.first_broken_reason) == (3, f"anchors: {gap}")
    [alert] = alerts_raise(now=timezone.now())
    assert alert.summary == f"The audit anchor file is at fault: {gap}"
    audit_chain_verify_task.delay().get()
    assert alerts_raise(now=timezone.now()) == []
