"""The chain walked fast (audit/chain_walk.py) and incrementally (issue 13 §2): the fast walk's
hashes equal the definition's on any payload, an incremental run starts past the last verified
head and confirms that head first, and ``--full`` still walks everything."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.chain_walk import chain_walk, chain_walk_orm
from audit.keys import audit_keys
from audit.models import AuditEvent, ChainVerification
from audit.selectors import ChainPoint, audit_chain_verify, audit_chain_vouched
from audit.services import audit_record
from audit.tasks import audit_anchor_task, audit_chain_verify_task

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def events(count: int, **after: object) -> list[AuditEvent]:
    with transaction.atomic():
        return [audit_record(actor=None, action="test.event", after={"n": n, **after}) for n in range(count)]


def superuser_sql(sql: str, params: list) -> None:
    """What only a database superuser can do: write with the append-only triggers switched off."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def verify(**options: object) -> tuple[int, str, str]:
    out = io.StringIO()
    try:
        call_command("verify_audit", stdout=out, stderr=io.StringIO(), **options)
    except CommandError as error:
        return error.returncode, out.getvalue(), str(error)
    return 0, out.getvalue(), ""


# JSON as the writers store it: no floats (chips are integers), strings with every awkward
# character the canonical encoder must treat exactly as json.dumps does
# (no NUL: PostgreSQL cannot store it in jsonb, and the writers refuse it before that)
_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payload=st.dictionaries(_text, _json, max_size=5), label=_text)
def test_the_fast_walk_recomputes_exactly_the_definitions_hashes(payload, label) -> None:
    with transaction.atomic():
        audit_record(actor=None, action="test.payload", after=payload, before={"label": label})
    keys = audit_keys()
    fast = list(chain_walk(from_seq=1, keys=keys))
    reference = list(chain_walk_orm(from_seq=1, keys=keys))
    assert fast == reference
    assert [e.computed for e in fast] == [e.hash for e in fast]


def test_the_fast_walk_finds_a_rewritten_event() -> None:
    made = events(4)
    superuser_sql("UPDATE audit_auditevent SET after = %s WHERE id = %s", ['{"n": 99}', made[2].pk])
    walked = {e.seq: e for e in chain_walk(from_seq=1, keys=audit_keys())}
    assert [seq for seq, e in walked.items() if e.computed != e.hash] == [3]


def test_without_an_earlier_verification_the_whole_chain_is_walked() -> None:
    events(5)
    code, out, _ = verify()
    assert code == 0
    assert "events checked: 5 (the whole chain)" in out


@pytest.fixture
def anchored(settings, tmp_path) -> Callable[[], None]:
    """An anchor file outside the database (tmp): ``anchored()`` is beat's anchoring run."""
    settings.AUDIT_ANCHOR_FILE = str(tmp_path / "anchors.jsonl")
    return lambda: audit_anchor_task.delay().get()


def test_an_incremental_run_walks_only_what_was_appended_after_the_newest_anchor(anchored) -> None:
    events(5)
    anchored()  # beat: the five events verified, seq 5 anchored (signed, outside the database)
    events(3)  # seq 7..9: seq 6 records the anchor file (audit.anchorfile.record)
    assert audit_chain_vouched() == ChainPoint(seq=5, hash=AuditEvent.objects.get(seq=5).hash)
    code, out, _ = verify()
    assert code == 0
    assert (
        "events checked: 4 (from seq 6; seq 5 and before are vouched for by the newest signed anchor" in out
    )
    assert f"chain head: seq=9 hash={AuditEvent.objects.get(seq=9).hash}" in out
    code, out, _ = verify(full=True)
    assert (code, "events checked: 9 (the whole chain)" in out) == (0, True)


def test_a_verification_row_the_app_could_insert_vouches_for_nothing(anchored) -> None:
    """Issue 20: the application's database login inserted a "chain verified" row up to a forged
    event; the incremental run then reported OK over it. The starting point is the anchor now."""
    made = events(3)
    anchored()
    events(2)
    head = AuditEvent.objects.order_by("-seq").first()
    assert head is not None
    superuser_sql("UPDATE audit_auditevent SET after = %s WHERE id = %s", ['{"n": 99}', head.pk])
    ChainVerification.objects.create(
        chain=0,
        ok=True,
        from_seq=1,
        checked=head.seq,
        head_seq=head.seq,
        head_hash=head.hash,
        started_at=head.occurred_at,
        finished_at=head.occurred_at,
    )
    assert audit_chain_vouched() == ChainPoint(seq=3, hash=made[2].hash)
    code, _out, error = verify()
    assert code == 1
    assert (
        f"first broken event chain=0 seq={head.seq} id={head.pk} (content does not match its hash)" in error
    )


def test_a_broken_chain_is_not_anchored(anchored, caplog) -> None:
    """An anchor vouches for a verified head only: a forged event appended since the newest anchor
    stops the chain being anchored again, and the ERROR says where."""
    import logging

    events(2)
    anchored()
    forged = events(1)[0]
    superuser_sql("UPDATE audit_auditevent SET after = %s WHERE id = %s", ['{"n": 5}', forged.pk])
    with caplog.at_level(logging.ERROR, logger="audit.anchors"):
        assert audit_anchor_task.delay().get()["heads"] == {}
    assert f"audit chain 0 not anchored: BROKEN at seq={forged.seq} id={forged.pk}" in caplog.text
    assert audit_chain_vouched() == ChainPoint(seq=2, hash=AuditEvent.objects.get(seq=2).hash)


def test_the_anchored_head_rewritten_is_caught_by_the_incremental_run(anchored) -> None:
    events(4)
    anchored()
    head = AuditEvent.objects.get(seq=4)
    superuser_sql("UPDATE audit_auditevent SET hash = %s WHERE id = %s", [bytes.fromhex("f" * 64), head.pk])
    code, _out, error = verify()
    assert code == 1
    assert error == (
        f"audit chain BROKEN: first broken event chain=0 seq=4 id={head.pk} "
        "(the event an earlier verification vouched for is gone or its hash changed)"
    )


def test_a_rewrite_behind_the_anchored_head_needs_the_full_walk(anchored) -> None:
    """The documented limit of an incremental run (docs/audit.md): an event rewritten *behind* the
    newest anchor, its hash left alone, is not walked again; --full (the nightly run) finds it."""
    made = events(4)
    anchored()
    superuser_sql("UPDATE audit_auditevent SET after = %s WHERE id = %s", ['{"n": 42}', made[1].pk])
    assert verify()[0] == 0
    code, _out, error = verify(full=True)
    assert code == 1
    assert f"first broken event chain=0 seq=2 id={made[1].pk} (content does not match its hash)" in error


def test_without_an_anchor_the_default_run_is_the_whole_chain() -> None:
    made = events(3)
    superuser_sql("UPDATE audit_auditevent SET after = %s WHERE id = %s", ['{"n": 7}', made[0].pk])
    audit_chain_verify_task()
    assert ChainVerification.objects.get().ok is False
    assert audit_chain_vouched() is None
    assert verify()[0] == 1  # the whole chain is walked and the rewrite found


def test_the_selector_defaults_to_the_whole_chain() -> None:
    events(2)
    audit_chain_verify_task()
    events(1)
    report = audit_chain_verify()
    assert (report.from_seq, report.checked, report.ok) == (1, 4, True)
