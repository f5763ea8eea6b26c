"""The admin: report runs read-only; beat's periodic tasks edited with an audit event."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django_celery_beat.models import PeriodicTask

from audit.models import AuditEvent
from reports.schedules import schedules_install
from reports.services import report_run_schedule
from tests.factories import CasinoFactory
from tests.reports.runs import levy_request

pytestmark = pytest.mark.django_db


def test_report_runs_are_read_only_in_the_admin(admin_client) -> None:
    run = report_run_schedule(request=levy_request(), enqueue=False)
    assert admin_client.get(reverse("admin:reports_reportrun_changelist"), {"q": "levy"}).status_code == 200
    assert admin_client.get(reverse("admin:reports_reportrun_change", args=[run.pk])).status_code == 200
    assert admin_client.get(reverse("admin:reports_reportrun_add")).status_code == 403


def test_disabling_a_schedule_in_the_admin_is_audited(admin_client, admin_user) -> None:
    casino = CasinoFactory()
    schedules_install(casinos=[casino])
    task = PeriodicTask.objects.get(name=f"reports:daily-close:casino-{casino.pk}")
    response = admin_client.post(
        reverse("admin:django_celery_beat_periodictask_change", args=[task.pk]),
        {
            "name": task.name,
            "regtask": "reports.scheduled",
            "task": "",
            "enabled": "",
            "crontab": task.crontab_id,
            "args": "[]",
            "kwargs": task.kwargs,
            "queue": "reports",
            "exchange": "",
            "routing_key": "",
            "headers": "{}",
            "priority": "",
            "expires": "",
            "expire_seconds": "",
            "start_time_0": "",
            "start_time_1": "",
            "description": task.description,
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    task.refresh_from_db()
    assert not task.enabled
    event = AuditEvent.objects.get(action="admin.django_celery_beat.periodictask.change")
    assert event.actor == admin_user and event.object_id == str(task.pk)
    assert (event.before or {})["enabled"] is True and (event.after or {})["enabled"] is False
