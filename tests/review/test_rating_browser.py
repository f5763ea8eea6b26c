"""The rating slip on the player's page in headless Chromium at the tablet's 1024x768: the period
asked through the form, the total's figures, touch-sized controls, no sideways scroll."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from tests.conftest import CHROMIUM_ARGS, chromium_path
from tests.factories import CroupierAssignmentFactory, TableFactory, UserFactory
from tests.review.test_rating import played_night, whole_night

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


@pytest.fixture
def tablet(live_server) -> Iterator[Any]:
    # Playwright's sync API runs an event loop in this thread; the test's ORM calls stay synchronous.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
        finally:
            browser.close()
            connections.close_all()  # the ORM's second connection, opened under the sync API


def test_the_pit_boss_reads_a_slip_on_the_tablet(tablet, live_server) -> None:
    table = TableFactory()
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[table.casino])
    CroupierAssignmentFactory(user=croupier, table=table)
    UserFactory(username="pitboss", roles=["pit_boss"], casinos=[table.casino])
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    base = live_server.url
    tablet.goto(f"{base}{reverse('login')}")
    tablet.fill("#id_username", "pitboss")
    tablet.fill("#id_password", PASSWORD)
    tablet.click("button[type=submit]")
    tablet.wait_for_url(f"{base}/")

    tablet.goto(f"{base}{reverse('review:player', args=[floor.players[1].pk])}")
    period = tablet.get_by_test_id("rating-period")
    period.locator("input[name=start]").fill(first.isoformat())
    period.locator("input[name=end]").fill(last.isoformat())
    with tablet.expect_navigation():
        period.get_by_role("button", name="Show").click()
    assert f"start={first.isoformat()}" in tablet.url and f"end={last.isoformat()}" in tablet.url
    total = tablet.get_by_test_id("rating-total")
    revenue = tablet.get_by_test_id("rating-total-revenue")  # the slip's second table, same lines
    played = {name: total.get_by_test_id(name).inner_text() for name in ("seated", "coups", "banked", "net")}
    house = ("levy", "fees", "theoretical", "actual")
    figures = played | {name: revenue.get_by_test_id(name).inner_text() for name in house}
    assert figures == {
        "seated": "2:24:12",
        "coups": "2",
        "banked": "2",
        "net": "+90",
        "levy": "10",
        "fees": "0",
        "theoretical": "6.88",
        "actual": "10",
    }
    assert tablet.get_by_test_id("rating-session").count() == 1
    # the page never scrolls sideways (the wide table scrolls in its own box); controls are 44 px
    assert tablet.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    for control in (
        period.locator("input[name=start]"),
        period.locator("input[name=end]"),
        period.get_by_role("button"),
    ):
        box = control.bounding_box()
        assert box is not None and box["height"] >= 43.5, box

    # a reversed period says so, and shows no slip
    period.locator("input[name=start]").fill(last.isoformat())
    period.locator("input[name=end]").fill(first.isoformat())
    with tablet.expect_navigation():
        period.get_by_role("button", name="Show").click()
    assert tablet.get_by_test_id("rating-error").inner_text().strip() == "The period starts after it ends."
    assert tablet.get_by_test_id("rating-total").count() == 0
    assert tablet.get_by_test_id("rating-total-revenue").count() == 0
