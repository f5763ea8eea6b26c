"""The cashier's identification prompt in a real browser (headless Chromium, the 1024x768 tablet):
a buy-in that takes the player's cash in of the day above the report threshold asks for his
identity document beside the day's totals, then confirms and posts.

On failure the page is saved as a screenshot in test-artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connections

from cage.services import cage_buy_in
from compliance.models import CashReport, PlayerIdentification
from ledger.models import Transaction
from tests.browser.test_croupier_flow import ARTIFACTS, Screen
from tests.factories import CasinoFactory, PlayerFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOUCH = 44  # px: every control a finger taps


@pytest.fixture
def identified_setup(transactional_db) -> dict[str, Any]:
    casino = CasinoFactory(name="Casino de Deauville")
    UserFactory(username="cashier", roles=["cashier"], casinos=[casino])
    player = PlayerFactory(casino=casino, display_name="Alice")
    cage_buy_in(actor=None, casino=casino, player=player, amount=9_500, key="earlier-tonight")
    return {"player": player}


def test_the_cashier_is_asked_for_the_document_then_the_buy_in_posts(
    identified_setup, live_server, browser
) -> None:
    player = identified_setup["player"]
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    cashier = Screen(context.new_page(), live_server.url, "cashier")
    try:
        cashier.login("cashier")
        cashier.page.click("[data-testid=go-cage]")
        cashier.page.wait_for_url(re.compile(r"/cage/\d+/$"))
        amount = cashier.by(f"buy-in-amount-{player.pk}")
        amount.fill("600")
        cashier.post(lambda: amount.press("Enter"))
        assert (
            cashier.text(f"identify-text-{player.pk}")
            == "Alice must be identified before this buy-in of 600 chips."
        )
        assert cashier.text(f"cash-today-{player.pk}") == "Today: cash in 9,500, cash out 0 chips."
        for testid in (f"document-type-{player.pk}", f"document-number-{player.pk}", f"identify-{player.pk}"):
            box = cashier.by(testid).bounding_box()
            assert box is not None and box["height"] >= TOUCH, (testid, box)
        cashier.snap("cage-identify")
        assert Transaction.objects.count() == 1  # only the earlier buy-in

        cashier.by(f"document-type-{player.pk}").select_option("passport")
        cashier.by(f"document-number-{player.pk}").fill("12AB34567")
        cashier.click(f"identify-{player.pk}")
        assert cashier.text(f"confirm-text-{player.pk}") == "Buy-in of 600 chips for Alice?"
        cashier.enter(f"confirm-{player.pk}")
        assert "bought in 600 chips" in cashier.text(f"cage-notice-{player.pk}")
        assert cashier.text(f"chips-{player.pk}") == "10,100"
        cashier.snap("cage-identified")
        assert PlayerIdentification.objects.get(player=player).masked == "****4567"
        assert list(CashReport.objects.values_list("direction", "total")) == [("in", 10_100)]
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        cashier.page.screenshot(path=str(ARTIFACTS / "cage-identification.png"), full_page=True)
        raise
    finally:
        context.close()
        connections.close_all()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_last_players_identity_step_is_brought_into_sight(
    transactional_db, live_server, browser, lang
) -> None:
    """The identity step of the cage's last row opened below the tablet's fold ("Continue" at
    y = 875 in French): the step is scrolled into sight when it comes."""
    casino = CasinoFactory(name="Casino de Deauville")
    UserFactory(username="cashier", roles=["cashier"], casinos=[casino])
    for name in ("Anne", "Bruno", "Chloé", "Denis", "Émile", "Fanny"):
        PlayerFactory(casino=casino, display_name=name)
    last = PlayerFactory(casino=casino, display_name="Zoé")
    cage_buy_in(actor=None, casino=casino, player=last, amount=9_500, key="earlier-tonight")
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
    cashier = Screen(context.new_page(), live_server.url, "cashier")
    try:
        cashier.login("cashier")
        cashier.page.goto(f"{live_server.url}/cage/{casino.pk}/")
        amount = cashier.by(f"buy-in-amount-{last.pk}")
        amount.fill("600")
        cashier.post(lambda: amount.press("Enter"))
        cashier.by(f"identify-{last.pk}").wait_for()
        for testid in (f"identify-text-{last.pk}", f"identify-{last.pk}", f"identify-cancel-{last.pk}"):
            box = cashier.by(testid).bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 768, (testid, box)
    finally:
        context.close()
        connections.close_all()
