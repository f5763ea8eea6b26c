"""Table services: one atomic, audited change each; refused preconditions change nothing."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from audit.models import AuditEvent
from tables import services
from tables.models import Table, TableSession
from tables.selectors import assignments_current, table_open_session, user_roles
from tests import factories as f

pytestmark = pytest.mark.django_db


def test_session_open_and_close_are_audited(croupier, table) -> None:
    session = services.table_session_open(actor=croupier, table=table)
    table.refresh_from_db()
    assert (table.state, table_open_session(table=table)) == ("open", session)
    opened = AuditEvent.objects.get(action="tables.tablesession.open")
    assert (opened.actor, opened.object_id) == (croupier, str(session.pk))
    assert opened.before is not None and opened.after is not None
    assert (opened.before["table"]["state"], opened.after["table"]["state"]) == ("closed", "open")

    services.table_session_close(actor=croupier, session=session, reason="end of night")
    session.refresh_from_db()
    table.refresh_from_db()
    assert (table.state, session.closed_by, session.close_reason) == ("closed", croupier, "end of night")
    closed = AuditEvent.objects.get(action="tables.tablesession.close")
    assert closed.before is not None and closed.after is not None
    assert (closed.before["closed_at"], closed.after["close_reason"]) == (None, "end of night")


def test_opening_an_open_table_is_refused_and_changes_nothing(croupier, table) -> None:
    services.table_session_open(actor=croupier, table=table)
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError, match="already has an open session"):
        services.table_session_open(actor=croupier, table=table)
    assert (TableSession.objects.filter(table=table).count(), AuditEvent.objects.count()) == (1, events)


def test_closing_twice_is_refused(croupier, table) -> None:
    session = services.table_session_open(actor=croupier, table=table)
    services.table_session_close(actor=croupier, session=session)
    with pytest.raises(ValidationError, match="already closed"):
        services.table_session_close(actor=croupier, session=session)
    assert AuditEvent.objects.filter(action="tables.tablesession.close").count() == 1


def test_table_with_another_casinos_profile_is_refused(pit_boss) -> None:
    casino, other = f.CasinoFactory(), f.CasinoFactory()
    foreign = f.builtin_profile("casino")
    foreign.pk, foreign.slug, foreign.casino = None, "foreign", other
    foreign.save()
    with pytest.raises(ValidationError, match="belongs to another casino"):
        services.table_create(actor=pit_boss, casino=casino, name="T1", profile=foreign)
    assert not Table.objects.filter(casino=casino).exists()


def test_table_create_validates_seat_count(pit_boss) -> None:
    casino = f.CasinoFactory()
    with pytest.raises(ValidationError, match="9 or 12 seats"):
        services.table_create(
            actor=pit_boss, casino=casino, name="T1", profile=f.builtin_profile(), seat_count=7
        )
    assert not AuditEvent.objects.exists()


def test_only_croupiers_are_assigned(pit_boss, accountant, table) -> None:
    now = timezone.now()
    with pytest.raises(ValidationError, match="accountant is not a croupier"):
        services.croupier_assignment_create(
            actor=pit_boss,
            user=accountant,
            table=table,
            shift_start=now,
            shift_end=now + dt.timedelta(hours=8),
        )
    assert not assignments_current(user=accountant).exists()


def test_player_create_strips_and_audits(pit_boss) -> None:
    casino = f.CasinoFactory()
    services.casino_staff_grant(actor=None, user=pit_boss, casino=casino)
    player = services.player_create(
        actor=pit_boss, casino=casino, display_name="  Mme Leroy ", membership_number=" M-9 "
    )
    assert (player.display_name, player.membership_number) == ("Mme Leroy", "M-9")
    event = AuditEvent.objects.get(action="tables.player.create")
    assert event.after == {
        "id": player.pk,
        "casino_id": casino.pk,
        "display_name": "Mme Leroy",
        "membership_number": "M-9",
        "house": False,
    }


def test_duplicate_membership_is_explained(pit_boss) -> None:
    casino = f.CasinoFactory()
    services.casino_staff_grant(actor=None, user=pit_boss, casino=casino)
    services.player_create(actor=pit_boss, casino=casino, display_name="A", membership_number="M-1")
    with pytest.raises(ValidationError, match="already used in this casino"):
        services.player_create(actor=pit_boss, casino=casino, display_name="B", membership_number="M-1")


def test_staff_member_create_sets_roles_and_never_logs_the_password() -> None:
    user = services.staff_member_create(
        actor=None, username="marie", password="s3cret-Passw0rd", roles=["pit_boss"]
    )
    assert user_roles(user=user) == ["pit_boss"] and user.check_password("s3cret-Passw0rd")
    event = AuditEvent.objects.get(action="auth.user.create")
    assert event.after is not None
    assert "password" not in event.after and "s3cret" not in str(event.after)
    assert event.after["groups"] == [user.groups.get().pk]


def test_unknown_role_is_refused() -> None:
    with pytest.raises(ValidationError, match="Unknown role"):
        services.staff_member_create(actor=None, username="x", password="s3cret-Passw0rd", roles=["dealer"])
