"""Attacks on the audit trail by a PostgreSQL superuser (who can switch the append-only triggers
off), each detected by ``verify_audit`` with the signed anchors kept outside the database, naming
where (issue 10): the newest events deleted, one event rewritten and every event after it
re-hashed, anchors deleted or never written."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import itertools
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone

from audit.anchors import anchor_append, anchor_make
from audit.canonical import canonical_json, event_content
from audit.models import AuditEvent
from audit.services import audit_record
from tables.models import Casino
from tests.factories import CasinoFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def events(count: int) -> list[AuditEvent]:
    with transaction.atomic():
        return [audit_record(actor=None, action="test.event", after={"n": n}) for n in range(1, count + 1)]


def as_superuser_without_triggers(sql: str, params: list) -> None:
    """What a database superuser can do: run SQL with the append-only triggers switched off."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def verify(anchors: Path | None = None, **options: object) -> tuple[int, str, str]:
    out = io.StringIO()
    if anchors is not None:
        options["anchors"] = str(anchors)
    try:
        # --full: these tests tamper behind earlier runs' heads (tests/audit/test_incremental.py
        # covers the default, incremental run)
        call_command("verify_audit", stdout=out, stderr=io.StringIO(), **{"full": True, **options})
    except CommandError as error:
        return error.returncode, out.getvalue(), str(error)
    return 0, out.getvalue(), ""


def anchor_now(path: Path) -> None:
    call_command("audit_anchor", out=str(path), stdout=io.StringIO())


def rehash_from(seq: int, *, after: dict, key_id: str | None = None) -> None:
    """Rewrite event ``seq``'s ``after`` and re-hash it and every event after it so that every link
    holds again — with plain SHA-256, all a forger without the key can compute. ``key_id``: also
    relabel the events (``""``: pass them off as written before the cut-over to keyed hashes)."""
    chain = list(AuditEvent.objects.filter(seq__gte=seq - 1).order_by("seq"))
    prev_hash = chain[0].prev_hash if chain[0].seq == seq else chain[0].hash
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for event in chain:
            if event.seq < seq:
                continue
            if event.seq == seq:
                event.after = after
            if key_id is not None:
                event.key_id = key_id
            event.prev_hash = prev_hash
            message = prev_hash.encode("ascii") + b"\n" + canonical_json(event_content(event))
            event.hash = prev_hash = hashlib.sha256(message).hexdigest()
            cursor.execute(
                'UPDATE audit_auditevent SET "after" = %s::jsonb, key_id = %s, prev_hash = %s, hash = %s '
                "WHERE id = %s",
                [
                    json.dumps(event.after),
                    event.key_id,
                    bytes.fromhex(event.prev_hash),
                    bytes.fromhex(event.hash),
                    event.pk,
                ],
            )
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


# ------------------------------------------------------------------------- a deleted tail


def test_the_newest_five_events_deleted_are_caught_by_the_anchor_naming_the_missing_tail(tmp_path) -> None:
    made = events(12)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)
    assert verify(anchors)[0] == 0

    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE seq > %s", [7])

    # what remains is a valid chain: without anchors nothing can tell
    code, out, _ = verify()
    assert (code, "audit chain OK" in out) == (0, True)
    # the anchor says the head was seq 12
    code, out, error = verify(anchors)
    assert code == 1
    expected = (
        f"tail deleted: anchor line 1 (at {json.loads(anchors.read_text())['at']}) says head seq 12 hash "
        f"{made[11].hash}, the database's head is seq 7 hash {made[6].hash}: events 8..12 are missing"
    )
    assert error == f"anchors: {expected}"
    assert "audit chain OK" in out and f"  {expected}" in out


def test_a_deleted_tail_followed_by_new_events_contradicts_the_anchor_at_its_seq(tmp_path) -> None:
    """The forger deletes 5 events and lets the application write 5 new ones: seq 12 is back, with
    another hash."""
    made = events(12)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)
    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE seq > %s", [7])
    again = events(5)
    assert again[-1].seq == 12

    code, out, error = verify(anchors)
    assert code == 1
    assert error.startswith(
        f"anchors: chain rewritten: anchor line 1 (at {json.loads(anchors.read_text())['at']}) says seq 12 "
        f"has hash {made[11].hash}, the database has hash {again[-1].hash}"
    )
    assert "audit chain OK" in out


# --------------------------------------------------------------------- a re-hashed chain


def test_one_event_rewritten_and_every_later_event_re_hashed_is_caught_at_the_first_bad_seq(tmp_path) -> None:
    made = events(40)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)

    rehash_from(7, after={"n": 700})
    assert AuditEvent.objects.get(seq=7).after == {"n": 700}  # the edit really happened
    # every link holds: an unkeyed chain would verify
    chain = list(AuditEvent.objects.order_by("seq"))
    assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(chain))

    code, out, error = verify()
    assert code == 1
    reason = "content does not match its hash"
    assert error == f"audit chain BROKEN: first broken event chain=0 seq=7 id={made[6].pk} ({reason})"
    assert "broken events: 34" in out  # 7..40: none of the forger's hashes is a valid HMAC
    assert f"  chain=0 seq=6 id={made[5].pk}" not in out

    code, out, error = verify(anchors)
    assert code == 1
    assert error.startswith("audit chain BROKEN: first broken event chain=0 seq=7 ")
    assert (
        f"  chain rewritten: anchor line 1 (at {json.loads(anchors.read_text())['at']}) says seq 40 has hash "
        f"{made[39].hash}, the database has hash {chain[39].hash}"
    ) in out


@pytest.mark.parametrize("plain_until", [0, None])
def test_a_rewrite_passed_off_as_written_before_the_keyed_cut_over_is_caught(plain_until) -> None:
    """The forger relabels the events he re-hashes as plain SHA-256 ones (``key_id`` empty)."""
    made = events(10)
    rehash_from(4, after={"n": 400}, key_id="")
    with override_settings(AUDIT_PLAIN_UNTIL_SEQ=plain_until):
        code, out, error = verify()
    assert code == 1
    reason = "plain SHA-256 hash after the cut-over to keyed hashes"
    assert error == f"audit chain BROKEN: first broken event chain=0 seq=4 id={made[3].pk} ({reason})"
    assert "broken events: 7" in out


def test_the_whole_chain_passed_off_as_plain_is_caught_by_the_cut_over_seq_or_the_anchor(tmp_path) -> None:
    made = events(6)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)
    rehash_from(1, after={"n": 100}, key_id="")

    # production: AUDIT_PLAIN_UNTIL_SEQ is the cut-over's seq (0 for a chain keyed from the start)
    code, _, error = verify()
    reason = "plain SHA-256 hash beyond AUDIT_PLAIN_UNTIL_SEQ=0"
    assert (code, error) == (
        1,
        f"audit chain BROKEN: first broken event chain=0 seq=1 id={made[0].pk} ({reason})",
    )
    # development's "any plain prefix": the anchor still tells
    with override_settings(AUDIT_PLAIN_UNTIL_SEQ=None):
        code, out, error = verify(anchors)
    assert code == 1 and "audit chain OK" in out
    assert error.startswith("anchors: chain rewritten: anchor line 1 ")
    assert f"says seq 6 has hash {made[5].hash}" in error


def test_a_rewrite_re_hashed_with_a_wrong_key_is_caught() -> None:
    """A guessed key (here: the development key of another installation) gives other HMACs."""
    made = events(5)
    with override_settings(AUDIT_HMAC_KEY="a-guess-at-the-key-0123456789abcdef"):
        forged = AuditEvent.objects.get(seq=3)
        forged.after = {"n": 300}
        from audit.canonical import event_hash

        as_superuser_without_triggers(
            """UPDATE audit_auditevent SET "after" = '{"n": 300}'::jsonb, hash = %s WHERE seq = 3""",
            [bytes.fromhex(event_hash(forged))],
        )
    code, _, error = verify()
    assert (code, error) == (
        1,
        f"audit chain BROKEN: first broken event chain=0 seq=3 id={made[2].pk} "
        "(content does not match its hash)",
    )


# ----------------------------------------------------------------------- anchors removed


def test_a_missing_anchor_file_is_reported(tmp_path) -> None:
    events(3)
    code, _, error = verify(tmp_path / "nowhere.jsonl")
    assert (code, error) == (1, f"anchors: anchor file {tmp_path / 'nowhere.jsonl'} is missing")


def test_an_emptied_anchor_file_is_reported(tmp_path) -> None:
    events(3)
    anchors = tmp_path / "anchors.jsonl"
    anchors.write_text("")
    code, _, error = verify(anchors)
    assert (code, error) == (1, f"anchors: anchor file {anchors} holds no valid anchor")


def test_anchors_deleted_since_the_tail_was_cut_leave_the_newest_anchor_too_old(tmp_path) -> None:
    """The forger deletes the tail and the anchors that show it: the newest remaining anchor is
    older than the allowed age (a day's anchor plus slack), so the cut is still reported."""
    events(5)
    anchors = tmp_path / "anchors.jsonl"
    now = timezone.now()
    anchor_append(anchor_make(at=now - dt.timedelta(hours=50)), anchors)
    events(5)
    anchor_append(anchor_make(at=now - dt.timedelta(hours=27)), anchors)
    events(5)
    anchor_append(anchor_make(at=now - dt.timedelta(hours=3)), anchors)  # head seq 15
    assert verify(anchors)[0] == 0

    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE seq > %s", [10])
    anchors.write_text("".join(anchors.read_text().splitlines(keepends=True)[:2]))  # the last removed
    code, out, error = verify(anchors)
    newest = json.loads(anchors.read_text().splitlines()[1])
    assert code == 1
    assert error == (
        f"anchors: the newest anchor (line 2, at {newest['at']}) is 27.0 h old, allowed 26.0 h "
        "(anchors missing or not written since)"
    )
    assert "anchor problems: 1" in out
    # and an anchor removed from the middle leaves a gap
    lines = anchors.read_text().splitlines(keepends=True)
    anchors.write_text(lines[0])
    anchor_append(anchor_make(), anchors)
    code, _, error = verify(anchors)
    assert code == 1
    assert error.startswith("anchors: no anchor between line 1 (")
    assert "50.0 h apart, allowed 26.0 h (anchors missing)" in error
    # the allowed age is a setting, and an option
    code, _, _ = verify(anchors, max_age_hours=60)
    assert code == 0


def test_an_anchor_edited_to_match_a_deleted_tail_has_a_bad_signature(tmp_path) -> None:
    made = events(8)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)
    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE seq > %s", [5])
    anchor = json.loads(anchors.read_text())
    anchor.update(seq=5, hash=made[4].hash)  # the forger cannot re-sign it without the key
    anchors.write_text(json.dumps(anchor) + "\n")
    code, out, error = verify(anchors)
    assert code == 1
    assert error == "anchors: anchor line 1: bad signature (altered or forged)"
    assert "anchors checked: 0" in out


# ----------------------------------------------------------------- a casino's chain (issue 13 §3)


def casino_events(casino: Casino, count: int) -> list[AuditEvent]:
    with transaction.atomic():
        return [
            audit_record(actor=None, action="test.casino", after={"n": n}, casino=casino)
            for n in range(1, count + 1)
        ]


@pytest.fixture
def two_casinos() -> tuple[Casino, Casino]:
    return CasinoFactory(), CasinoFactory()


def test_a_casinos_chain_rewritten_and_re_hashed_is_named_and_the_others_stay_ok(two_casinos) -> None:
    one, two = two_casinos
    events(3)
    casino_events(one, 6)
    made = casino_events(two, 6)
    # the forger rewrites casino two's seq 3 and re-hashes its chain after it (plain SHA-256)
    of_two = list(AuditEvent.objects.filter(chain=two.pk).order_by("seq"))
    prev_hash = of_two[1].hash
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for event in of_two[2:]:
            if event.seq == 3:
                event.after = {"n": 300}
            event.prev_hash = prev_hash
            message = prev_hash.encode("ascii") + b"\n" + canonical_json(event_content(event))
            event.hash = prev_hash = hashlib.sha256(message).hexdigest()
            cursor.execute(
                'UPDATE audit_auditevent SET "after" = %s::jsonb, prev_hash = %s, hash = %s WHERE id = %s',
                [
                    json.dumps(event.after),
                    bytes.fromhex(event.prev_hash),
                    bytes.fromhex(event.hash),
                    event.pk,
                ],
            )
    code, out, error = verify()
    assert code == 1
    assert error == (
        f"audit chain BROKEN: first broken event chain={two.pk} seq=3 id={made[2].pk} "
        "(content does not match its hash)"
    )
    assert f"chain {two.pk} (casino {two.pk}): broken events: 4" in out
    assert "global chain: broken" not in out and f"chain {one.pk} (casino {one.pk}): broken" not in out
    assert verify(chain=one.pk)[0] == 0 and verify(chain=0)[0] == 0
    assert verify(chain=two.pk)[0] == 1


def test_an_event_moved_to_another_chain_is_caught_on_both(two_casinos) -> None:
    """A casino's event hashes its chain id: moved to another casino's chain (or the global one),
    with its seq and links made to fit there, it no longer matches its HMAC, and its old chain has
    a gap."""
    one, two = two_casinos
    casino_events(one, 3)
    moved = casino_events(two, 3)[2]
    as_superuser_without_triggers(
        "UPDATE audit_auditevent SET chain = %s, seq = 4, prev_hash = %s WHERE id = %s",
        [one.pk, bytes.fromhex(AuditEvent.objects.get(chain=one.pk, seq=3).hash), moved.pk],
    )
    code, out, error = verify()
    assert code == 1
    assert error.startswith(f"audit chain BROKEN: first broken event chain={one.pk} seq=4 id={moved.pk} ")
    assert f"  chain={one.pk} seq=4 id={moved.pk}: content does not match its hash" in out
    # moved to the global chain: there its content would lack the chain id
    as_superuser_without_triggers(
        "UPDATE audit_auditevent SET chain = 0, seq = 1, prev_hash = %s WHERE id = %s", [bytes(32), moved.pk]
    )
    code, out, _ = verify()
    assert f"  chain=0 seq=1 id={moved.pk}: content does not match its hash" in out


def test_a_plain_event_on_a_casinos_chain_is_a_forgery(two_casinos) -> None:
    one, _ = two_casinos
    made = casino_events(one, 2)
    forged = AuditEvent.objects.get(pk=made[1].pk)
    forged.key_id = ""
    message = forged.prev_hash.encode("ascii") + b"\n" + canonical_json(event_content(forged))
    as_superuser_without_triggers(
        "UPDATE audit_auditevent SET key_id = '', hash = %s WHERE id = %s",
        [hashlib.sha256(message).digest(), forged.pk],
    )
    with override_settings(AUDIT_PLAIN_UNTIL_SEQ=None):  # even where plain events are welcome
        code, _, error = verify()
    assert (code, error) == (
        1,
        f"audit chain BROKEN: first broken event chain={one.pk} seq=2 id={forged.pk} "
        "(plain SHA-256 hash on a casino's chain (all its events are keyed))",
    )


def test_a_casinos_deleted_tail_is_caught_by_its_own_anchor(tmp_path, two_casinos) -> None:
    one, two = two_casinos
    events(2)
    casino_events(one, 4)
    made = casino_events(two, 9)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)
    lines = [json.loads(line) for line in anchors.read_text().splitlines()]
    assert [(a["scope"], a["seq"]) for a in lines] == [("global", 2), (f"casino:{one.pk}", 4),
                                                       (f"casino:{two.pk}", 9)]  # fmt: skip
    assert verify(anchors)[0] == 0

    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE chain = %s AND seq > %s", [two.pk, 6])
    code, out, error = verify()
    assert (code, "audit chain OK (3 chain(s))" in out) == (0, True)  # what remains is valid
    code, out, error = verify(anchors)
    assert code == 1
    assert error == (
        f"anchors: chain {two.pk} (casino {two.pk}): tail deleted: anchor line 3 (at {lines[2]['at']}) says "
        f"head seq 9 hash {made[8].hash}, the database's head is seq 6 hash {made[5].hash}: "
        "events 7..9 are missing"
    )
    assert "anchor problems: 1" in out  # the global chain and casino one are fine


def test_a_casinos_anchors_removed_from_the_file_are_reported(tmp_path, two_casinos) -> None:
    one, _ = two_casinos
    events(2)
    casino_events(one, 3)
    anchors = tmp_path / "anchors.jsonl"
    anchor_now(anchors)
    # the forger keeps the global chain's line and drops the casino's (then cuts its tail)
    anchors.write_text(anchors.read_text().splitlines(keepends=True)[0])
    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE chain = %s AND seq > 1", [one.pk])
    code, _, error = verify(anchors)
    assert code == 1
    assert error.startswith(
        f"anchors: chain {one.pk} (casino {one.pk}): no anchor at all, though it held events"
    )
