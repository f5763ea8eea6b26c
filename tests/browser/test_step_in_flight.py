"""While a step is being recorded the coup panel holds: its fields and buttons are disabled until
the answer comes (static/js/app.js), so a card typed or a button tapped meanwhile waits visibly.
The panel sends one request at a time (``hx-sync="this:drop"``): before, a second Enter pressed
while the first card was in flight was dropped without a word, the field still looking ready."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.urls import reverse

from chemin_de_fer.engine.machine import Move
from tables.models import Coup
from tests.browser.test_croupier_flow import PASSWORD
from tests.tables.play import coup_with_bets, open_floor, step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: how long the server's answer to a step is held back by the test (the in-flight window)
HELD = 0.6


def test_the_panel_holds_while_a_card_is_in_flight(croupier, table, live_server, browser) -> None:
    floor = open_floor(croupier, table)
    coup = coup_with_bets(floor, (2, 100))
    step(floor, coup, Move.BETS_CLOSED)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page: Any = context.new_page()
    try:
        page.goto(f"{live_server.url}{reverse('login')}")
        page.fill("#id_username", "croupier")
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        page.goto(f"{live_server.url}{reverse('floor:table', args=[table.pk])}")

        def held(route: Any) -> None:
            time.sleep(HELD)  # the answer is late: the step is in flight meanwhile
            route.continue_()

        page.route("**/step/", held)
        card = page.get_by_test_id("card-input")
        card.fill("9H")
        with page.expect_response(lambda r: r.request.method == "POST"):
            card.press("Enter")
            # in flight: every control of the panel waits, so nothing typed now can be lost
            in_flight = page.evaluate(
                "() => [...document.querySelectorAll('#coup-panel input, #coup-panel button')]"
                ".filter(c => c.offsetParent !== null).map(c => c.disabled)"
            )
        page.wait_for_function("() => !document.querySelector('.htmx-request, [data-held]')")
        # answered: the next card's field is there, ready, and takes the next card
        assert page.get_by_test_id("card-input").is_enabled()
        page.get_by_test_id("card-input").fill("3C")
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.get_by_test_id("card-input").press("Enter")
        page.wait_for_function("() => !document.querySelector('.htmx-request, [data-held]')")
    finally:
        context.close()
    assert in_flight and all(in_flight), in_flight
    coup = Coup.objects.get(pk=coup.pk)
    assert [s.payload.get("card") for s in coup.steps.order_by("index") if "card" in s.kind] == ["9H", "3C"]
