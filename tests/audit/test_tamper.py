"""Append-only protection and tamper detection on PostgreSQL.

The triggers refuse UPDATE, DELETE and TRUNCATE on audit_auditevent and tables_coupstep. A superuser
can still bypass them (session_replication_role = replica): verify_audit must then name exactly the
event that was altered.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import ManagementUtility, call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction

from audit.db_triggers import triggers_present
from audit.models import AuditEvent
from audit.services import audit_record
from tables.models import CoupStep
from tests.factories import CoupStepFactory

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def five_events() -> list[AuditEvent]:
    with transaction.atomic():
        return [audit_record(actor=None, action="test.event", after={"n": n}) for n in range(1, 6)]


def snapshot(model, pk) -> dict:
    return model.objects.filter(pk=pk).values().get()


def refused(sql: str, params: list | None = None) -> str:
    with connection.cursor() as cursor:
        # Rows inserted by this test leave deferred foreign-key checks pending, and PostgreSQL will
        # not TRUNCATE/ALTER a table with pending trigger events: run those checks now.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with pytest.raises(IntegrityError) as info, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(info.value)


def as_superuser_without_triggers(sql: str, params: list) -> None:
    """What an attacker with superuser access could do: edit a row with triggers switched off."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def verify() -> tuple[int, str, str]:
    out = io.StringIO()
    try:
        call_command("verify_audit", stdout=out, stderr=io.StringIO())
    except CommandError as error:
        return error.returncode, out.getvalue(), str(error)
    return 0, out.getvalue(), ""


def test_triggers_are_installed_on_both_tables() -> None:
    assert triggers_present(connection, "audit_auditevent")
    assert triggers_present(connection, "tables_coupstep")


@pytest.mark.parametrize(
    "table,make",
    [
        ("audit_auditevent", lambda: five_events()[2]),
        ("tables_coupstep", lambda: CoupStepFactory()),
    ],
)
def test_update_delete_truncate_are_refused(table: str, make) -> None:
    row = make()
    model = type(row)
    before, count = snapshot(model, row.pk), model.objects.count()

    message = refused(f'UPDATE "{table}" SET "id" = "id" WHERE "id" = %s', [row.pk])
    assert f"{table} is append-only: UPDATE refused" in message
    assert f"{table} is append-only: DELETE refused" in refused(
        f'DELETE FROM "{table}" WHERE "id" = %s', [row.pk]
    )
    assert f"{table} is append-only: TRUNCATE refused" in refused(f'TRUNCATE "{table}" CASCADE')

    # Through the ORM too.
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.filter(pk=row.pk).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        model.objects.filter(pk=row.pk).update(
            **({"action": "x"} if model is AuditEvent else {"kind": "void"})
        )

    assert snapshot(model, row.pk) == before
    assert model.objects.count() == count


def test_coup_step_correction_is_a_new_row_not_an_edit() -> None:
    step = CoupStepFactory(index=1, payload={"amount": 50})
    CoupStepFactory(coup=step.coup, index=2, kind="correction", corrects=step, payload={"amount": 500})
    assert list(CoupStep.objects.filter(coup=step.coup).values_list("index", "kind", "payload")) == [
        (1, "bet", {"amount": 50}),
        (2, "correction", {"amount": 500}),
    ]


def test_clean_chain_exits_zero() -> None:
    five_events()
    code, out, _ = verify()
    assert code == 0 and "events checked: 5" in out and "audit chain OK" in out


def test_content_altered_with_triggers_disabled_is_reported_at_exactly_that_event() -> None:
    events = five_events()
    target = events[2]
    as_superuser_without_triggers(
        """UPDATE audit_auditevent SET "after" = '{"n": 300}'::jsonb WHERE id = %s""", [target.pk]
    )
    assert AuditEvent.objects.get(pk=target.pk).after == {"n": 300}  # the edit really happened

    code, out, error = verify()
    assert code == 1
    assert f"first broken event chain=0 seq=3 id={target.pk} (content does not match its hash)" in error
    assert "broken events: 1" in out
    assert f"  chain=0 seq=3 id={target.pk}: content does not match its hash" in out


def test_a_rehashed_forgery_breaks_the_next_link() -> None:
    from audit.canonical import event_hash

    events = five_events()
    forged = AuditEvent.objects.get(pk=events[1].pk)
    forged.after = {"n": 200}
    new_hash = event_hash(forged)
    as_superuser_without_triggers(
        """UPDATE audit_auditevent SET "after" = '{"n": 200}'::jsonb, hash = %s WHERE id = %s""",
        [bytes.fromhex(new_hash), forged.pk],
    )
    code, _, error = verify()
    assert code == 1
    assert f"first broken event chain=0 seq=3 id={events[2].pk} (prev_hash does not match" in error


def test_a_deleted_event_is_reported_at_the_gap() -> None:
    events = five_events()
    as_superuser_without_triggers("DELETE FROM audit_auditevent WHERE id = %s", [events[3].pk])
    code, _, error = verify()
    assert code == 1
    assert f"first broken event chain=0 seq=5 id={events[4].pk} (seq 5 where 4 was expected" in error


def test_manage_py_exit_status_is_one_on_a_broken_chain(capsys) -> None:
    events = five_events()
    as_superuser_without_triggers(
        """UPDATE audit_auditevent SET action = 'x' WHERE id = %s""", [events[0].pk]
    )
    with pytest.raises(SystemExit) as info:
        ManagementUtility(["manage.py", "verify_audit"]).execute()
    assert info.value.code == 1
    assert f"first broken event chain=0 seq=1 id={events[0].pk}" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("trigger", "warning", "not_warned"),
    [
        (
            "audit_auditevent_append_only_row",
            "append-only triggers are missing or disabled on audit_auditevent",
            "the chain's link trigger is missing",
        ),
        (
            "audit_auditevent_chain_link",
            "the chain's link trigger is missing or disabled on audit_auditevent",
            "append-only triggers are missing",
        ),
    ],
)
def test_verify_audit_warns_when_a_trigger_is_disabled(trigger: str, warning: str, not_warned: str) -> None:
    five_events()
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(f'ALTER TABLE audit_auditevent DISABLE TRIGGER "{trigger}"')
    err = io.StringIO()
    call_command("verify_audit", stdout=io.StringIO(), stderr=err)
    assert warning in err.getvalue()
    assert not_warned not in err.getvalue()
