"""Admin: every page renders, bad input gets the constraint's message (not a 500), changes are audited,
and history (audit events, coup steps) is read-only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib import admin
from django.db import models
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from tables import models as m
from tests import factories as f

pytestmark = pytest.mark.django_db


def form_data(instance: models.Model) -> dict[str, Any]:
    """POST data for an admin add form, from an unsaved instance."""
    data: dict[str, Any] = {}
    for field in instance._meta.concrete_fields:
        if not field.editable or field.primary_key:
            continue
        value = field.value_from_object(instance)
        if isinstance(field, models.DateTimeField):
            local = timezone.localtime(value) if value else None
            data[f"{field.name}_0"] = local.strftime("%Y-%m-%d") if local else ""
            data[f"{field.name}_1"] = local.strftime("%H:%M:%S") if local else ""
        elif isinstance(field, models.BooleanField):
            if value:
                data[field.name] = "on"
        elif isinstance(field, models.JSONField):
            data[field.name] = json.dumps(value)
        else:
            data[field.name] = "" if value is None else value
    return data


def add_url(model: type[models.Model]) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")


def post_add(client, instance: models.Model, **overrides: Any):
    return client.post(add_url(type(instance)), {**form_data(instance), **overrides})


@pytest.mark.parametrize(
    "model", [m for m in admin.site._registry if m._meta.app_label in ("tables", "audit")]
)
def test_every_changelist_renders_with_search_and_filters(admin_client, model) -> None:
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    model_admin = admin.site._registry[model]
    assert model_admin.list_display != ("__str__",) and model_admin.search_fields and model_admin.list_filter
    assert admin_client.get(url, {"q": "x"}).status_code == 200


def test_valid_add_creates_the_row_and_an_audit_event(admin_client, admin_user) -> None:
    casino = f.CasinoFactory.build(name="Le Touquet")
    response = post_add(admin_client, casino)
    assert response.status_code == 302
    created = m.Casino.objects.get(name="Le Touquet")
    event = AuditEvent.objects.get(action="admin.tables.casino.create")
    assert (event.actor, event.object_type, event.object_id) == (admin_user, "tables.casino", str(created.pk))
    assert event.after["name"] == "Le Touquet" and event.before is None


def test_change_and_delete_are_audited_with_before_and_after(admin_client) -> None:
    player = f.PlayerFactory(display_name="Old name")
    url = reverse("admin:tables_player_change", args=[player.pk])
    response = admin_client.post(
        url, {"casino": player.casino_id, "display_name": "New name", "membership_number": ""}
    )
    assert response.status_code == 302
    change = AuditEvent.objects.get(action="admin.tables.player.change")
    assert (change.before["display_name"], change.after["display_name"]) == ("Old name", "New name")

    response = admin_client.post(reverse("admin:tables_player_delete", args=[player.pk]), {"post": "yes"})
    assert response.status_code == 302
    deletion = AuditEvent.objects.get(action="admin.tables.player.delete")
    assert (deletion.object_id, deletion.before["display_name"], deletion.after) == (
        str(player.pk),
        "New name",
        None,
    )
    assert not m.Player.objects.filter(pk=player.pk).exists()


def test_admin_user_edits_are_audited_without_the_password_hash(admin_client) -> None:
    user = f.UserFactory(username="dealer7")
    url = reverse("admin:auth_user_change", args=[user.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    data = {
        "username": "dealer7",
        "first_name": "Jean",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "groups": [m_.pk for m_ in user.groups.model.objects.filter(name="croupier")],
        "date_joined_0": timezone.localtime(user.date_joined).strftime("%Y-%m-%d"),
        "date_joined_1": timezone.localtime(user.date_joined).strftime("%H:%M:%S"),
        "last_login_0": "",
        "last_login_1": "",
    }
    assert admin_client.post(url, data).status_code == 302
    event = AuditEvent.objects.get(action="admin.auth.user.change")
    assert "password" not in event.after and "password" not in event.before
    assert (event.before["groups"], len(event.after["groups"]), event.after["first_name"]) == ([], 1, "Jean")


@pytest.mark.parametrize(
    "build,overrides,message",
    [
        pytest.param(lambda: f.CoupFactory.build(shoe=f.ShoeFactory()), {"bank": 0},
                     "The bank must be at least one chip.", id="coup-bank-zero"),
        pytest.param(lambda: f.TableFactory.build(casino=f.CasinoFactory()), {"seat_count": 10},
                     "A table has 9 or 12 seats.", id="table-seat-count"),
        pytest.param(lambda: f.CasinoFactory.build(), {"levy_mode": "percentage", "levy_rate_bp": 0},
                     "A percentage levy needs a rate above zero.", id="casino-percentage-without-rate"),
        pytest.param(lambda: f.ShoeCardFactory.build(shoe=f.ShoeFactory()), {"card": "1S"},
                     "Not a card code (e.g. AS, TD, 9H).", id="bad-card-code"),
        pytest.param(lambda: f.BankTaxFactory.build(coup=f.CoupFactory()), {"basis": 100, "amount": 101},
                     "A tax cannot exceed its basis.", id="tax-above-basis"),
    ],
)  # fmt: skip
def test_admin_add_shows_the_check_constraint_message(admin_client, build, overrides, message) -> None:
    instance = build()
    model = type(instance)
    before = model.objects.count()
    response = post_add(admin_client, instance, **overrides)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert model.objects.count() == before


def test_admin_add_duplicate_coup_number_shows_the_unique_message(admin_client) -> None:
    coup = f.CoupFactory(number=3)
    response = post_add(admin_client, f.CoupFactory.build(shoe=coup.shoe, banker=coup.banker, number=3))
    assert response.status_code == 200
    assert "This shoe already has a coup with this number." in response.content.decode()
    assert m.Coup.objects.filter(shoe=coup.shoe).count() == 1


def test_admin_add_second_open_shoe_shows_the_partial_unique_message(admin_client) -> None:
    shoe = f.ShoeFactory()
    response = post_add(admin_client, f.ShoeFactory.build(session=shoe.session, table=shoe.table, number=2))
    assert response.status_code == 200
    assert "This table already has an open shoe." in response.content.decode()
    assert m.Shoe.objects.filter(table=shoe.table).count() == 1


def test_admin_add_occupied_seat_shows_the_message(admin_client) -> None:
    seat = f.SeatFactory(number=5)
    other = f.PlayerFactory(casino=seat.session.table.casino)
    response = post_add(admin_client, f.SeatFactory.build(session=seat.session, player=other, number=5))
    assert response.status_code == 200
    assert "This seat is already occupied." in response.content.decode()
    assert m.Seat.objects.filter(session=seat.session).count() == 1


def test_admin_add_bet_with_seat_and_spectator_shows_the_message(admin_client) -> None:
    coup = f.CoupFactory()
    seat = f.SeatFactory(session=coup.shoe.session)
    spectator = f.SpectatorFactory(session=coup.shoe.session)
    response = post_add(
        admin_client, f.BetFactory.build(coup=coup, seat=seat, spectator=spectator, betting_order=1)
    )
    assert response.status_code == 200
    assert (
        "A bet is made either from a seat or by a spectator, not both and not neither."
        in response.content.decode()
    )
    assert m.Bet.objects.count() == 0


def test_admin_add_second_open_session_shows_the_message(admin_client) -> None:
    session = f.TableSessionFactory()
    response = post_add(
        admin_client, f.TableSessionFactory.build(table=session.table, opened_by=session.opened_by)
    )
    assert response.status_code == 200
    assert "This table already has an open session." in response.content.decode()
    assert m.TableSession.objects.filter(table=session.table).count() == 1


def test_audit_events_are_read_only_in_the_admin(admin_client) -> None:
    f.PlayerFactory()
    from django.db import transaction

    from audit.services import audit_record

    with transaction.atomic():
        event = audit_record(actor=None, action="test.read_only")
    assert admin_client.get(reverse("admin:audit_auditevent_add")).status_code == 403
    assert (
        admin_client.post(
            reverse("admin:audit_auditevent_delete", args=[event.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    change_page = admin_client.get(reverse("admin:audit_auditevent_change", args=[event.pk]))
    assert change_page.status_code == 200 and 'name="_save"' not in change_page.content.decode()
    assert AuditEvent.objects.get(pk=event.pk).action == "test.read_only"


def test_coup_steps_are_read_only_in_the_admin(admin_client) -> None:
    step = f.CoupStepFactory()
    assert admin_client.get(reverse("admin:tables_coupstep_add")).status_code == 403
    change_page = admin_client.get(reverse("admin:tables_coupstep_change", args=[step.pk]))
    assert change_page.status_code == 200 and 'name="_save"' not in change_page.content.decode()


def test_staff_without_admin_rights_cannot_reach_the_admin(client, croupier) -> None:
    client.force_login(croupier)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
