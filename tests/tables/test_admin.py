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
    "model", [m for m in admin.site._registry if m._meta.app_label in ("tables", "audit", "core")]
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
    assert event.after is not None
    assert event.after["name"] == "Le Touquet" and event.before is None


def test_change_and_delete_are_audited_with_before_and_after(admin_client) -> None:
    player = f.PlayerFactory(display_name="Old name")
    url = reverse("admin:tables_player_change", args=[player.pk])
    response = admin_client.post(
        url, {"casino": player.casino_id, "display_name": "New name", "membership_number": ""}
    )
    assert response.status_code == 302
    change = AuditEvent.objects.get(action="admin.tables.player.change")
    assert change.before is not None and change.after is not None
    assert (change.before["display_name"], change.after["display_name"]) == ("Old name", "New name")

    response = admin_client.post(reverse("admin:tables_player_delete", args=[player.pk]), {"post": "yes"})
    assert response.status_code == 302
    deletion = AuditEvent.objects.get(action="admin.tables.player.delete")
    assert deletion.before is not None
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
    assert event.after is not None and event.before is not None
    assert "password" not in event.after and "password" not in event.before
    assert (event.before["groups"], len(event.after["groups"]), event.after["first_name"]) == ([], 1, "Jean")


@pytest.mark.parametrize(
    "build,overrides,message",
    [
        pytest.param(lambda: f.TableFactory.build(casino=f.CasinoFactory()), {"seat_count": 10},
                     "A table has 9 or 12 seats.", id="table-seat-count"),
        pytest.param(lambda: f.CasinoFactory.build(), {"levy_mode": "percentage", "levy_rate_bp": 0},
                     "A percentage levy needs a rate above zero.", id="casino-percentage-without-rate"),
        pytest.param(lambda: f.CasinoFactory.build(), {"chip_unit": 0},
                     "The chip unit must be positive.", id="casino-chip-unit-zero"),
        pytest.param(lambda: f.TableFactory.build(casino=f.CasinoFactory(hourly_fee_amount=0)),
                     {"levy_mode": "hourly_fee"}, "sets no hourly fee: an hourly-fee table needs one.",
                     id="table-hourly-fee-without-a-fee"),
        pytest.param(lambda: f.PlayerFactory.build(casino=f.CasinoFactory()), {"display_name": ""},
                     "This field is required.", id="player-without-name"),
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


def test_admin_add_duplicate_membership_number_shows_the_unique_message(admin_client) -> None:
    player = f.PlayerFactory(membership_number="M-7")
    response = post_add(admin_client, f.PlayerFactory.build(casino=player.casino, membership_number="M-7"))
    assert response.status_code == 200
    assert "This membership number is already used in this casino." in response.content.decode()
    assert m.Player.objects.filter(casino=player.casino).count() == 1


HISTORY = [
    pytest.param(lambda: f.TableSessionFactory(), id="session"),
    pytest.param(lambda: f.SeatFactory(), id="seat"),
    pytest.param(lambda: f.ShoeFactory(), id="shoe"),
    pytest.param(lambda: f.ShoeCardFactory(), id="shoecard"),
    pytest.param(lambda: f.CoupFactory(), id="coup"),
    pytest.param(lambda: f.BetFactory(), id="bet"),
    pytest.param(lambda: f.BankTaxFactory(), id="banktax"),
    pytest.param(lambda: f.BankTurnFactory(), id="bankturn"),
]


@pytest.mark.parametrize("make", HISTORY)
def test_what_happens_at_a_table_cannot_be_written_in_the_admin(admin_client, make) -> None:
    """No back door around the services: add, change and delete are refused, nothing moves."""
    row = make()
    model = type(row)
    meta = model._meta
    before = list(model.objects.values())
    events = AuditEvent.objects.count()
    assert admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add")).status_code == 403
    change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk])
    page = admin_client.get(change)
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert admin_client.post(change, form_data(row)).status_code == 403
    delete = reverse(f"admin:{meta.app_label}_{meta.model_name}_delete", args=[row.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert list(model.objects.values()) == before
    assert AuditEvent.objects.count() == events


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


def test_a_step_event_in_the_admin_shows_the_step_it_binds(admin_client, croupier, table) -> None:
    """The event names the step (index and kind); its page shows the step's content from the
    coupstep row the event binds, and that the row is as the event bound it."""
    from html import escape

    from tables import services
    from tests.tables.play import K, open_floor, step

    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    step(floor, coup, K.BET, seat=2, amount=100)
    event = AuditEvent.objects.filter(action="tables.coup.step").latest("seq")
    row = m.CoupStep.objects.get(coup=coup, index=2)
    page = admin_client.get(reverse("admin:audit_auditevent_change", args=[event.pk])).content.decode()
    assert f"tables_coupstep {row.pk}: as this event bound it" in page
    assert escape('"payload":{"amount":100,"order":11,"punter":"seat-2","spectator":false}') in page
    assert f"tables_coup {coup.pk}: as this event bound it" in page


def test_coup_steps_are_read_only_in_the_admin(admin_client) -> None:
    step = f.CoupStepFactory()
    assert admin_client.get(reverse("admin:tables_coupstep_add")).status_code == 403
    change_page = admin_client.get(reverse("admin:tables_coupstep_change", args=[step.pk]))
    assert change_page.status_code == 200 and 'name="_save"' not in change_page.content.decode()


def test_staff_without_admin_rights_cannot_reach_the_admin(client, croupier) -> None:
    client.force_login(croupier)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
