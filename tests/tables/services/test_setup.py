"""tables/services/setup.py: a table takes its own levy mode (percentage tax or hourly fee; empty:
the casino's), refused where the casino's settings do not give it what it needs; the admin too."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from audit.models import AuditEvent
from tables import services
from tables.models import Casino, Table
from tests.factories import builtin_profile

pytestmark = pytest.mark.django_db


@pytest.fixture
def casino() -> Casino:
    return Casino.objects.create(
        name="Deauville", levy_mode="percentage", levy_rate_bp=500, hourly_fee_amount=25
    )


def test_a_table_takes_its_own_levy_mode_or_the_casinos(casino) -> None:
    club = services.table_create(
        actor=None, casino=casino, name="Club table", profile=builtin_profile("club"), seat_count=9,
        levy_mode="hourly_fee",
    )  # fmt: skip
    plain = services.table_create(actor=None, casino=casino, name="Casino table", profile=builtin_profile())
    assert (club.levy_mode, club.effective_levy_mode) == ("hourly_fee", "hourly_fee")
    assert (plain.levy_mode, plain.effective_levy_mode) == ("", "percentage")
    event = AuditEvent.objects.get(action="tables.table.create", object_id=str(club.pk))
    assert event.after is not None and event.after["levy_mode"] == "hourly_fee"


@pytest.mark.parametrize(
    ("settings", "mode", "message"),
    [
        (
            {"hourly_fee_amount": 0},
            "hourly_fee",
            "Deauville sets no hourly fee: an hourly-fee table needs one.",
        ),
        (
            {"levy_mode": "hourly_fee", "levy_rate_bp": 0},
            "percentage",
            "Deauville sets no levy rate: a percentage levy needs one.",
        ),
        ({}, "tithe", "Value 'tithe' is not a valid choice."),
    ],
)
def test_a_mode_the_casino_cannot_charge_is_refused(casino, settings, mode, message) -> None:
    Casino.objects.filter(pk=casino.pk).update(**settings)
    casino.refresh_from_db()
    events = AuditEvent.objects.count()
    with pytest.raises(ValidationError) as refused:
        services.table_create(
            actor=None, casino=casino, name="Club table", profile=builtin_profile("club"), levy_mode=mode
        )
    assert refused.value.message_dict["levy_mode"] == [message]
    assert not Table.objects.exists() and AuditEvent.objects.count() == events


def test_the_admin_sets_a_tables_levy_mode(admin_client, casino) -> None:
    home = builtin_profile("home")
    table = services.table_create(actor=None, casino=casino, name="Home table", profile=home)
    url = reverse("admin:tables_table_change", args=[table.pk])
    form = admin_client.get(url).content.decode()
    assert 'name="levy_mode"' in form and '<option value="hourly_fee">hourly fee</option>' in form
    data = {
        "casino": casino.pk, "name": "Home table", "profile": table.profile_id, "seat_count": 12,
        "state": "closed", "first_banker_method": "lot", "game": "chemin-de-fer", "game_settings": "{}",
        "levy_mode": "hourly_fee",
    }  # fmt: skip
    assert admin_client.post(url, data).status_code == 302
    table.refresh_from_db()
    assert table.effective_levy_mode == "hourly_fee"
    event = AuditEvent.objects.get(action="admin.tables.table.change")
    assert event.before is not None and event.after is not None
    assert (event.before["levy_mode"], event.after["levy_mode"]) == ("", "hourly_fee")
