"""A casino's cash policy set in the admin (audited); the records read-only there."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from audit.models import AuditEvent
from compliance.models import CashLogEntry, CashPolicy, CashReport, PlayerIdentification

pytestmark = pytest.mark.django_db


def test_a_casino_s_policy_is_set_in_the_admin_and_audited(admin_client, admin_user, casino) -> None:
    form = {"casino": casino.pk, "preset": "custom", "log_threshold": "5000", "report_threshold": "15000",
            "identification_threshold": "", "currency": "CHF", "chip_value_cents": "500"}  # fmt: skip
    response = admin_client.post(reverse("admin:compliance_cashpolicy_add"), form)
    assert response.status_code == 302
    policy = CashPolicy.objects.get(casino=casino)
    assert (policy.log_threshold, policy.report_threshold, policy.currency, policy.chip_value_cents) == (
        5_000, 15_000, "CHF", 500
    )  # fmt: skip
    event = AuditEvent.objects.get(action="admin.compliance.cashpolicy.create")
    assert (event.actor, event.object_id) == (admin_user, str(policy.pk))


def test_a_preset_with_other_thresholds_is_refused_and_nothing_written(admin_client, casino) -> None:
    form = {"casino": casino.pk, "preset": "us_title31", "log_threshold": "5000", "report_threshold": "10000",
            "identification_threshold": "", "currency": "USD", "chip_value_cents": "100"}  # fmt: skip
    response = admin_client.post(reverse("admin:compliance_cashpolicy_add"), form)
    assert response.status_code == 200
    assert (
        "A preset&#x27;s thresholds are the preset&#x27;s; choose custom to set others."
        in response.content.decode()
    )
    assert CashPolicy.objects.count() == 0


def test_the_records_are_read_only_and_identifications_are_not_in_the_admin() -> None:
    assert PlayerIdentification not in admin.site._registry
    for model in (CashLogEntry, CashReport):
        assert not admin.site._registry[model].has_add_permission(None)  # type: ignore[arg-type]
