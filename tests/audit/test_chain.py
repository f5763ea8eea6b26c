"""audit_record writes a gapless, hash-linked chain; verify_audit rechecks it."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import io
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test import override_settings
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.canonical import GENESIS_HASH, _sorted_json, canonical_json, event_hash, to_jsonable
from audit.models import AuditEvent
from audit.selectors import audit_chain_verify, audit_events_for
from audit.services import AuditOutsideTransaction, audit_record
from tests.factories import PlayerFactory, UserFactory

pytestmark = pytest.mark.django_db


def record(**kwargs) -> AuditEvent:
    with transaction.atomic():
        return audit_record(**{"actor": None, "action": "test.event", **kwargs})


def test_first_event_links_to_genesis_and_each_next_to_its_predecessor() -> None:
    first, second, third = (record(after={"n": n}) for n in (1, 2, 3))
    assert [e.seq for e in (first, second, third)] == [1, 2, 3]
    assert first.prev_hash == GENESIS_HASH == "0" * 64
    assert (second.prev_hash, third.prev_hash) == (first.hash, second.hash)


@override_settings(AUDIT_HMAC_KEY_ID="k7", AUDIT_HMAC_KEY="the-audit-key-0123456789abcdef0123")
def test_hash_is_hmac_sha256_of_prev_hash_newline_canonical_content_with_the_key_id() -> None:
    user = UserFactory(username="alice")
    player = PlayerFactory(display_name="Zoë")
    event = record(
        actor=user, action="tables.player.create", target=player, before=None, after={"b": 2, "a": "é"}
    )
    event.refresh_from_db()
    # a player's event is on its casino's chain, and a casino's event hashes its chain id too
    assert (event.key_id, event.chain, event.seq) == ("k7", player.casino_id, 1)
    when = event.occurred_at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    content = (
        f'{{"action":"tables.player.create","actor_id":{user.pk},"actor_label":"alice","after":{{"a":"é","b":2}},'
        f'"before":null,"chain":{player.casino_id},"key_id":"k7","object_id":"{player.pk}",'
        f'"object_type":"tables.player","occurred_at":"{when}","seq":1}}'
    )
    message = ("0" * 64 + "\n").encode() + content.encode("utf-8")
    expected = hmac.new(b"the-audit-key-0123456789abcdef0123", message, hashlib.sha256).hexdigest()
    assert event.hash == expected == event_hash(event)
    # the same event hashed by someone without the key: not the stored hash
    assert hashlib.sha256(message).hexdigest() != event.hash


def test_a_plain_event_from_before_the_cut_over_hashes_as_it_always_did() -> None:
    """An event without key id (written before keyed hashes): SHA-256, no key_id in the content."""
    event = AuditEvent(
        seq=1, occurred_at=dt.datetime(2026, 11, 30, 1, 21, 9, 123456, tzinfo=dt.UTC), actor_id=None,
        actor_label="system", action="test.event", object_type="", object_id="", before=None,
        after={"n": 1}, prev_hash=GENESIS_HASH, key_id="",
    )  # fmt: skip
    content = (
        '{"action":"test.event","actor_id":null,"actor_label":"system","after":{"n":1},"before":null,'
        '"object_id":"","object_type":"","occurred_at":"2026-11-30T01:21:09.123456Z","seq":1}'
    )
    assert event_hash(event) == hashlib.sha256(("0" * 64 + "\n" + content).encode()).hexdigest()


def test_actor_labels() -> None:
    user = UserFactory(username="bob")
    assert record(actor=user).actor_label == "bob"
    assert (record(actor=None).actor_label, record(actor=None).actor_id) == ("system", None)
    assert record(actor=AnonymousUser()).actor_label == "anonymous"


def test_audit_record_refuses_to_run_outside_a_transaction() -> None:
    # pytest-django wraps each test in a transaction; leave it for this check.
    from django.db import connection

    atomic, connection.in_atomic_block = connection.in_atomic_block, False
    try:
        with pytest.raises(AuditOutsideTransaction):
            audit_record(actor=None, action="test.outside")
    finally:
        connection.in_atomic_block = atomic
    assert AuditEvent.objects.count() == 0


def test_event_rolls_back_with_the_change_it_describes() -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(actor=None, action="test.doomed")
        raise RuntimeError("the business change failed")
    assert AuditEvent.objects.count() == 0
    assert record().seq == 1  # the chain continues without a gap


def test_canonical_json_rules() -> None:
    moment = dt.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert canonical_json({"b": [1, (2, 3)], "a": moment, "c": Decimal("1.50"), "d": "ü"}) == (
        '{"a":"2026-01-02T02:04:05.000006Z","b":[1,[2,3]],"c":"1.50","d":"ü"}'.encode()
    )
    assert to_jsonable({"cutoff": dt.time(6, 0)}) == {"cutoff": "06:00:00"}  # a casino's gaming day
    for bad, error in [
        (1.5, TypeError),
        ({1: "x"}, TypeError),
        (dt.datetime(2026, 1, 1), ValueError),
        (object(), TypeError),
    ]:
        with pytest.raises(error):
            to_jsonable(bad)


@settings(max_examples=300, deadline=None)
@given(
    st.datetimes(
        min_value=dt.datetime(1, 1, 2),
        max_value=dt.datetime(9999, 12, 30),
        timezones=st.sampled_from(
            [dt.UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(-dt.timedelta(hours=8))]
        ),
    )
)
def test_an_instant_is_written_as_its_utc_strftime_whichever_way_it_is_made(at: dt.datetime) -> None:
    """An event's instant (``to_jsonable``, through ``instant_text``) is the ``%Y-%m-%dT%H:%M:%S.%fZ``
    form events have always been hashed with, in any zone, before the year 1000 too."""
    assert to_jsonable(at) == at.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


#: what an event's content holds once in JSON form (``to_jsonable``'s output, the bindings): any
#: text (control characters, quotes, backslashes, accents, beyond the BMP; not a lone surrogate,
#: which neither the database nor UTF-8 keeps), integers of any size, nesting
_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-(2**70), 2**70) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(content=st.dictionaries(_TEXT, _JSON, max_size=6))
def test_the_writer_hashes_the_bytes_the_verifier_hashes(content: dict) -> None:
    """The writer's encoding of an event's content (orjson, sorted) is ``canonical_json``'s, byte
    for byte, whatever the text and the integers: the verifier recomputes the hash from those."""
    assert _sorted_json(content) == canonical_json(content)


def test_floats_are_refused_and_nothing_is_written() -> None:
    with pytest.raises(TypeError), transaction.atomic():
        audit_record(actor=None, action="test.float", after={"amount": 2.5})
    assert AuditEvent.objects.count() == 0


def test_events_for_an_object() -> None:
    player = PlayerFactory()
    record(target=player, action="a")
    record(action="unrelated")
    record(target=player, action="b")
    assert list(
        audit_events_for(object_type="tables.player", object_id=str(player.pk)).values_list(
            "action", flat=True
        )
    ) == [
        "a",
        "b",
    ]


def test_verify_audit_passes_on_a_clean_chain() -> None:
    for n in range(5):
        record(after={"n": n})
    out = io.StringIO()
    call_command("verify_audit", stdout=out)
    text = out.getvalue()
    assert "events checked: 5" in text and "audit chain OK" in text
    assert f"chain head: seq=5 hash={AuditEvent.objects.get(seq=5).hash}" in text


def test_verify_audit_on_an_empty_chain() -> None:
    report = audit_chain_verify()
    assert (report.ok, report.checked, report.head_seq, report.head_hash) == (True, 0, None, GENESIS_HASH)


@pytest.mark.postgres
def test_verify_audit_exit_code_is_one_when_broken() -> None:
    record()
    broken = record(after={"n": 2})
    record()
    # what only a superuser can do: rewrite an event's content with the append-only triggers off
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE audit_auditevent SET after = %s WHERE id = %s", ['{"n": 3}', broken.pk])
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")
    with pytest.raises(CommandError) as info:
        call_command("verify_audit", stdout=io.StringIO())
    assert info.value.returncode == 1
    assert f"first broken event chain=0 seq=2 id={broken.pk} (content does not match its hash)" in str(
        info.value
    )
