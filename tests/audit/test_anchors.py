"""Keyed hashes (keys from settings, rotation, the cut-over from plain SHA-256) and the signed
head anchors: ``audit_anchor``, the beat task, ``verify_audit --anchors`` on a clean chain."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import io
import json
import logging

import pytest
from django.conf import settings as django_settings
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction
from django.utils import timezone

from audit.anchors import SIGNATURE_LABEL, anchor_make, anchor_publish, anchors_verify
from audit.canonical import GENESIS_HASH, canonical_json, event_hash
from audit.models import AuditEvent
from audit.selectors import audit_chain_verify
from audit.services import audit_record
from audit.tasks import audit_anchor_task

pytestmark = pytest.mark.django_db

KEY_1 = "first-key-0123456789abcdef0123456789"
KEY_2 = "second-key-0123456789abcdef012345678"


def events(count: int) -> list[AuditEvent]:
    with transaction.atomic():
        return [audit_record(actor=None, action="test.event", after={"n": n}) for n in range(1, count + 1)]


def verify(**options: object) -> tuple[int, str, str]:
    out = io.StringIO()
    try:
        # --full: these tests tamper behind earlier runs' heads (tests/audit/test_incremental.py
        # covers the default, incremental run)
        call_command("verify_audit", stdout=out, stderr=io.StringIO(), **{"full": True, **options})
    except CommandError as error:
        return error.returncode, out.getvalue(), str(error)
    return 0, out.getvalue(), ""


def plain_events(count: int) -> list[AuditEvent]:
    """Events as the chain held them before keyed hashes: no key id, plain SHA-256."""
    made, prev = [], GENESIS_HASH
    for seq in range(1, count + 1):
        event = AuditEvent(
            seq=seq, occurred_at=timezone.now(), actor_label="system", action="legacy.event",
            after={"n": seq}, prev_hash=prev, key_id="",
        )  # fmt: skip
        event.hash = prev = event_hash(event)
        event.save()  # an INSERT: the append-only triggers allow it
        made.append(event)
    return made


# ---------------------------------------------------------------------------------- keys


def test_events_name_the_current_key_and_verify_after_a_rotation(settings) -> None:
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k1", KEY_1
    first = events(3)
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k2", KEY_2
    settings.AUDIT_HMAC_RETIRED_KEYS = {"k1": KEY_1}
    second = events(2)
    assert [e.key_id for e in first + second] == ["k1", "k1", "k1", "k2", "k2"]
    assert second[0].prev_hash == first[-1].hash  # the rotation does not break the links
    code, out, _ = verify()
    assert code == 0 and "keyed events by key id: k1=3, k2=2" in out

    # the retired key forgotten: what it signed can no longer be vouched for
    settings.AUDIT_HMAC_RETIRED_KEYS = {}
    code, out, error = verify()
    assert code == 1
    assert error == (
        f"audit chain BROKEN: first broken event chain=0 seq=1 id={first[0].pk} "
        "(hashed with key 'k1', which is not configured)"
    )
    assert "broken events: 3" in out


def test_the_same_chain_under_another_key_does_not_verify(settings) -> None:
    made = events(2)
    settings.AUDIT_HMAC_KEY = KEY_2  # same id, other secret: every HMAC differs
    report = audit_chain_verify()
    assert [(b.seq, b.id, b.reason) for b in report.broken] == [
        (1, made[0].pk, "content does not match its hash"),
        (2, made[1].pk, "content does not match its hash"),
    ]


# ------------------------------------------------------------------------------ cut-over


def test_the_first_keyed_event_links_to_the_last_plain_one(settings) -> None:
    legacy = plain_events(3)
    keyed = events(2)
    assert (keyed[0].seq, keyed[0].prev_hash, keyed[0].key_id) == (4, legacy[-1].hash, "dev")

    settings.AUDIT_PLAIN_UNTIL_SEQ = 3  # the documented cut-over: the last plain seq
    code, out, _ = verify()
    assert code == 0
    assert "plain SHA-256 events (before the keyed cut-over): 3, the last seq=3" in out
    assert "keyed events by key id: dev=2" in out
    settings.AUDIT_PLAIN_UNTIL_SEQ = None  # development: any plain prefix
    assert verify()[0] == 0
    settings.AUDIT_PLAIN_UNTIL_SEQ = 2  # a plain event past the declared cut-over is a forgery
    code, _, error = verify()
    assert (code, error) == (
        1,
        f"audit chain BROKEN: first broken event chain=0 seq=3 id={legacy[2].pk} "
        "(plain SHA-256 hash beyond AUDIT_PLAIN_UNTIL_SEQ=2)",
    )


# ------------------------------------------------------------------------------- anchors


def test_audit_anchor_appends_the_signed_head(tmp_path) -> None:
    path = tmp_path / "anchors.jsonl"
    made = events(3)
    out = io.StringIO()
    call_command("audit_anchor", out=str(path), stdout=out)
    events(1)
    call_command("audit_anchor", out=str(path), stdout=io.StringIO())
    first, second = (json.loads(line) for line in path.read_text().splitlines())
    head = (first["scope"], first["seq"], first["hash"], first["key_id"])
    assert head == ("global", 3, made[2].hash, "dev")
    assert out.getvalue() == f"anchored global seq=3 hash={made[2].hash} at {first['at']} to {path}\n"
    assert second["seq"] == 4
    at = dt.datetime.strptime(first["at"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.UTC)
    assert abs(timezone.now() - at) < dt.timedelta(minutes=1)
    signed = {k: first[k] for k in ("scope", "seq", "hash", "at", "key_id")}
    key = django_settings.AUDIT_HMAC_KEY.encode()
    assert first["sig"] == hmac.new(key, SIGNATURE_LABEL + canonical_json(signed), hashlib.sha256).hexdigest()
    assert SIGNATURE_LABEL == b"chemin-audit-anchor-v1\n"
    code, printed, _ = verify(anchors=str(path))
    assert code == 0
    assert f"anchors checked: 2 in {path}" in printed and "anchors OK" in printed
    assert f"newest anchor: seq=4 at {second['at']}" in printed


def test_audit_anchor_to_stdout_and_without_a_destination(settings) -> None:
    events(1)
    out = io.StringIO()
    call_command("audit_anchor", out="-", stdout=out)
    assert json.loads(out.getvalue())["seq"] == 1
    settings.AUDIT_ANCHOR_FILE = ""
    with pytest.raises(CommandError) as info:
        call_command("audit_anchor", stdout=io.StringIO())
    assert (info.value.returncode, str(info.value)) == (
        2,
        "no anchor file: pass --out FILE or set AUDIT_ANCHOR_FILE",
    )


def test_an_empty_chain_anchors_at_seq_zero(tmp_path) -> None:
    anchor = anchor_make()
    assert (anchor.seq, anchor.hash) == (0, GENESIS_HASH)
    path = tmp_path / "a.jsonl"
    path.write_text(anchor.line() + "\n")
    assert anchors_verify(path).ok


def test_an_anchor_signed_with_a_retired_key_verifies_and_an_unknown_key_does_not(settings, tmp_path) -> None:
    events(2)
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k1", KEY_1
    path = tmp_path / "a.jsonl"
    path.write_text(anchor_make().line() + "\n")
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k2", KEY_2
    settings.AUDIT_HMAC_RETIRED_KEYS = {"k1": KEY_1}
    assert anchors_verify(path).ok
    settings.AUDIT_HMAC_RETIRED_KEYS = {}
    report = anchors_verify(path)
    assert [p.reason for p in report.problems] == [
        "anchor line 1: signed with key 'k1', which is not configured",
        f"anchor file {path} holds no valid anchor",
    ]


def test_lines_that_are_not_anchors_are_reported_and_anchors_are_taken_in_time_order(tmp_path) -> None:
    events(2)
    now = timezone.now()
    path = tmp_path / "a.jsonl"
    # two writers may append in the other order than they signed: not a problem in itself
    later, earlier = anchor_make(at=now), anchor_make(at=now - dt.timedelta(hours=25))
    oldest = anchor_make(at=now - dt.timedelta(hours=52))
    path.write_text("\n".join(["{nope", '{"seq": 1}', later.line(), oldest.line(), earlier.line()]) + "\n")
    report = anchors_verify(path)
    assert [p.reason for p in report.problems] == [
        "anchor line 1: not JSON",
        "anchor line 2: not an anchor (its keys are wrong)",
        f"no anchor between line 4 ({oldest.at}) and line 5 ({earlier.at}): 27.0 h apart, allowed 26.0 h "
        "(anchors missing)",
    ]
    assert (report.checked, report.newest) == (3, later)


def test_beat_anchors_the_head_daily(settings, tmp_path) -> None:
    assert django_settings.CELERY_BEAT_SCHEDULE["audit-anchor-head"]["task"] == "audit.anchor_head"
    made = events(2)
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "beat.jsonl")
    result = audit_anchor_task.delay().get()
    line = json.loads((tmp_path / "beat.jsonl").read_text())
    assert result == {"seq": 2, "hash": made[1].hash, "at": line["at"], "heads": {"global": 2}}
    assert (line["seq"], line["hash"]) == (2, made[1].hash)


def test_an_anchor_that_cannot_be_written_is_logged_not_raised(settings, tmp_path, caplog) -> None:
    events(1)
    settings.AUDIT_ANCHOR_FILE = str(tmp_path)  # a directory: the append fails
    with caplog.at_level(logging.ERROR, logger="audit.anchors"):
        anchors = anchor_publish()
    assert [(a.scope, a.seq) for a in anchors] == [("global", 1)]
    assert f"could not append the audit anchors (global seq=1) to {tmp_path}" in caplog.text
    settings.AUDIT_ANCHOR_FILE = ""
    with caplog.at_level(logging.ERROR, logger="audit.tasks"):
        audit_anchor_task.delay().get()
    assert (
        "AUDIT_ANCHOR_FILE is not set: the audit chains' heads (global seq=1) were not anchored"
        in caplog.text
    )


# ---------------------------------------------------------------------------- checks


def test_system_checks_refuse_a_bad_key_id_and_warn_of_a_short_key_on_deploy(settings) -> None:
    settings.AUDIT_HMAC_KEY_ID = "has space"
    assert [m.id for m in run_checks() if m.id and m.id.startswith("audit.")] == ["audit.E001"]
    settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY = "k1", "short"
    found = [m.id for m in run_checks(include_deployment_checks=True) if m.id and m.id.startswith("audit.")]
    assert found == ["audit.W001"]
