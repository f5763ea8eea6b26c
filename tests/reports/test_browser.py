"""The reports page in a real browser (headless Chromium): Generate with htmx, a queued run's row
polling itself until its worker finished it, and its download."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.urls import reverse

from reports.models import ReportRun
from reports.services import report_run_execute, report_run_schedule
from tables.models import Casino
from tests.factories import UserFactory
from tests.reports.runs import day, levy_request, reports_casino_id
from tests.review.test_browser import _login, _posted, page  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_generate_watch_and_download(live_server, page: Any) -> None:  # noqa: F811
    UserFactory(
        username="accountant", roles=["accountant"], casinos=[Casino.objects.get(pk=reports_casino_id())]
    )
    # a run a worker has not taken yet (asked for by the scheduler, not sent anywhere)
    waiting = report_run_schedule(request=levy_request(kind="fees"), enqueue=False)
    base = live_server.url
    _login(page, base, "accountant")
    page.goto(f"{base}{reverse('review:exports')}")
    row = page.locator(f"#report-run-{waiting.pk}")
    assert "Waiting for a worker" in row.inner_text()

    # Generate: no broker in the tests, so the run is written in-process when the request commits
    page.select_option("select[name=kind]", "levy")
    page.select_option("select[name=casino]", str(reports_casino_id()))  # the levy report is per casino
    page.select_option("select[name=preset]", "custom")
    page.fill("input[name=start]", day().isoformat())
    page.fill("input[name=end]", day().isoformat())
    page.select_option("select[name=fmt]", "csv")
    _posted(page, lambda: page.get_by_role("button", name="Generate").click())
    run = ReportRun.objects.exclude(pk=waiting.pk).get()
    assert run.status == "finished"
    assert page.locator(f"#report-run-{run.pk}").get_attribute("data-status") == "finished"

    # the waiting run's row polls itself: the worker finishes it, the row says so
    report_run_execute(run_id=waiting.pk)
    page.wait_for_selector(f"#report-run-{waiting.pk}[data-status=finished]", timeout=10_000)

    with page.expect_download() as download:
        page.locator(f"#report-run-{run.pk} [data-testid=report-run-download]").click()
    assert download.value.suggested_filename == run.filename
    body = download.value.path().read_bytes()
    assert hashlib.sha256(body).hexdigest() == run.sha256
