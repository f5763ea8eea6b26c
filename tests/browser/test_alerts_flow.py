"""Two pit bosses in two browsers (headless Chromium): one acknowledges an alert with a note on
the alerts page, and the open-alert count drops in both navigations, his at once (out of band
with the answer, the alerts page's own count too), the other's at the dashboard's next poll."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from review.models import Alert
from review.services import alerts_raise
from tests.factories import CroupierAssignmentFactory, TableFactory, UserFactory
from tests.review.history import play_clean, play_flagged
from tests.tables.play import open_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def _logged_in(browser: Any, base: str, username: str) -> Any:
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"{base}{reverse('login')}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    return page


def test_an_acknowledged_alert_leaves_both_pit_bosses_counts(browser, live_server, settings) -> None:
    settings.REVIEW_POLL_SECONDS = 1
    table = TableFactory()
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[table.casino])
    CroupierAssignmentFactory(user=croupier, table=table)
    UserFactory(username="pitboss", roles=["pit_boss"], casinos=[table.casino])
    UserFactory(username="otherboss", roles=["pit_boss"], casinos=[table.casino])
    floor = open_floor(croupier, table)
    play_clean(floor)
    flagged = play_flagged(floor)
    alerts_raise(now=timezone.now())  # the flagged coup, the croupier's error rate
    alert = Alert.objects.get(kind=Alert.Kind.FLAGGED_COUP, coup=flagged)
    base = live_server.url

    watcher = _logged_in(browser, base, "otherboss")
    watcher.goto(f"{base}{reverse('review:dashboard')}")
    assert watcher.get_by_test_id("nav-alert-count").inner_text() == "2"
    assert "played against the rules" in watcher.get_by_test_id("live-alerts").inner_text()

    boss = _logged_in(browser, base, "pitboss")
    boss.goto(f"{base}{reverse('review:alerts')}")
    assert boss.get_by_test_id("nav-alert-count").inner_text() == "2"
    assert boss.get_by_test_id("open-count").inner_text() == "2"  # the page's own count
    row = boss.get_by_test_id(f"alert-{alert.pk}")
    row.get_by_role("button", name="Acknowledge").click()
    assert boss.locator(f"#note-{alert.pk}:invalid").count() == 1  # the note is required
    row.get_by_label("Note").fill("Replayed with the croupier; the bank was paid right")
    with boss.expect_response(lambda r: r.request.method == "POST") as answer:
        row.get_by_role("button", name="Acknowledge").click()
    assert answer.value.status == 200
    acknowledged = boss.get_by_test_id(f"alert-{alert.pk}").get_by_test_id("acknowledged")
    acknowledged.wait_for()
    assert "Acknowledged by pitboss" in acknowledged.inner_text()
    # both counts follow the acknowledgement, out of band with the row: the top bar's and the page's
    assert boss.get_by_test_id("nav-alert-count").inner_text() == "1"
    assert boss.get_by_test_id("open-count").inner_text() == "1"

    # the other pit boss's dashboard polls every second here: its count follows
    watcher.wait_for_function(
        "() => document.querySelector('[data-testid=nav-alert-count]').textContent.trim() === '1'",
        timeout=10_000,
    )
    assert watcher.get_by_test_id("live-alert-count").inner_text() == "1"
    alert.refresh_from_db()
    assert alert.note == "Replayed with the croupier; the bank was paid right"
