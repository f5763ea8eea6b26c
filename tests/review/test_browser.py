"""The pit boss's pages in a real browser (headless Chromium): htmx decisions, the verification
button, a report generated and downloaded. Setup through the services (tests/tables/play.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent, ChainVerification
from reports.models import ReportRun
from tables import services
from tables.gaming_day import casino_calendar
from tables.models import Coup
from tests.conftest import chromium_path
from tests.factories import CroupierAssignmentFactory, TableFactory, UserFactory
from tests.review.history import play_clean, play_flagged
from tests.tables.play import open_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


@pytest.fixture
def page(live_server) -> Iterator[Any]:
    # Playwright's sync API runs an event loop in this thread; the test's ORM calls stay synchronous.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
        try:
            yield context.new_page()
        finally:
            browser.close()
            # the sync API switches greenlets and Django's connections are per context: the test's
            # ORM calls opened a second connection that the test database's teardown would find open
            connections.close_all()


def _login(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}{reverse('login')}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")


def _posted(page: Any, action: Any) -> Any:
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        action()
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')")
    return answer.value


def test_reject_then_approve_with_htmx_and_verify_the_chain(page, live_server) -> None:
    table = TableFactory()
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[table.casino])
    CroupierAssignmentFactory(user=croupier, table=table)
    UserFactory(username="pitboss", roles=["pit_boss"], casinos=[table.casino])
    floor = open_floor(croupier, table)
    play_clean(floor)
    coup = play_flagged(floor)
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    base = live_server.url
    _login(page, base, "pitboss")

    # the review page: Reject needs a reason (the browser refuses to send it empty)
    page.goto(f"{base}{reverse('review:coup', args=[coup.pk])}")
    review = page.locator("#coup-review")
    assert review.get_by_test_id("coup-state").inner_text() == "awaiting approval"
    review.get_by_role("button", name="Reject").click()
    assert page.locator("#reject-reason:invalid").count() == 1
    page.fill("#reject-reason", "4C was not the next card")
    answer = _posted(page, lambda: review.get_by_role("button", name="Reject").click())
    assert answer.status == 200 and answer.request.headers.get("hx-request") == "true"
    assert "Correction rejected by pitboss" in page.get_by_test_id("decision").inner_text()
    assert page.locator("#coup-review").get_attribute("data-state") == "awaiting_correction"
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_CORRECTION

    # restored again by the croupier; approved from the queue row
    services.correction_submit(actor=croupier, coup=coup, cards=["4C"])
    page.goto(f"{base}{reverse('review:queue')}")
    row = page.locator(f"#queue-coup-{coup.pk}")
    _posted(page, lambda: row.get_by_role("button", name="Approve").click())
    assert "Correction approved by pitboss" in row.inner_text()
    assert row.get_by_role("button", name="Approve").count() == 0
    coup.refresh_from_db()
    assert coup.state == Coup.State.SETTLED

    # the dashboard's verification: enqueued on commit, run in-process, shown in the panel
    page.goto(f"{base}{reverse('review:dashboard')}")
    assert "never verified" in page.get_by_test_id("audit-verification").inner_text()
    _posted(page, lambda: page.get_by_role("button", name="Verify the chain now").click())
    # one verification per chain (the global one and the casino's), all OK; the panel shows the latest
    verifications = list(ChainVerification.objects.order_by("-finished_at", "-pk"))
    chains = sorted(set(AuditEvent.objects.values_list("chain", flat=True)))
    assert sorted(v.chain for v in verifications) == chains and len(chains) == 2 and chains[0] == 0
    assert all(v.ok for v in verifications)
    verification = verifications[0]
    text = page.get_by_test_id("audit-verification").inner_text()
    assert f"verified up to seq {verification.head_seq} at" in text and "OK" in text

    # the coup records, generated as a run (no immediate downloads any more), download with their
    # dated file name; no broker in the tests, so the run is written when the request commits
    today = casino_calendar(None).day_of(timezone.now())  # across casinos: UTC days
    page.goto(f"{base}{reverse('review:exports')}")
    page.select_option("select[name=kind]", "coup-records")
    # the form starts with the reader's casino (his only one); these records are across casinos
    page.select_option("select[name=casino]", "")
    page.select_option("select[name=preset]", "custom")
    page.fill("input[name=start]", today.isoformat())
    page.fill("input[name=end]", today.isoformat())
    page.select_option("select[name=fmt]", "jsonl")
    _posted(page, lambda: page.get_by_role("button", name="Generate").click())
    run = ReportRun.objects.get(kind="coup-records")
    assert run.status == "finished"
    with page.expect_download() as download:
        page.locator(f"#report-run-{run.pk} [data-testid=report-run-download]").click()
    assert download.value.suggested_filename == f"coup-records_{today}_{today}.jsonl" == run.filename
    *lines, anchor_global, anchor_casino = download.value.path().read_bytes().splitlines()
    assert len(lines) == 2 and b'"shoe_next":["4C"]' in lines[1]
    assert anchor_global.startswith(b'{"anchor":') and anchor_casino.startswith(b'{"anchor":')
