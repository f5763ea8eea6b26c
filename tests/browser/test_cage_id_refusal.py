"""The cashier's ID form after a refusal (QA sweep), in headless Chromium at 1024x768: a document
number the cage refuses ("Type the document's number…", here only spaces, which the browser lets
through as typed) used to put the row back to the plain buy-in form, with no field to type the
number into (the cashier had to press Buy again). The ID form stays, the document type and the
number as typed, the reason beside the number field, which has the focus; a good number then
goes on to the confirmation and the buy-in posts.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connections

from cage.services import cage_buy_in
from compliance.models import PlayerIdentification
from ledger.models import Transaction
from tests.browser.test_croupier_flow import Screen
from tests.factories import CasinoFactory, PlayerFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cage_player(transactional_db) -> Any:
    casino = CasinoFactory(name="Casino de Deauville")
    UserFactory(username="cashier", roles=["cashier"], casinos=[casino])
    player = PlayerFactory(casino=casino, display_name="Alice")
    cage_buy_in(actor=None, casino=casino, player=player, amount=9_500, key="earlier-tonight")
    return player


def test_a_refused_document_number_keeps_the_id_form(cage_player, live_server, browser) -> None:
    pk = cage_player.pk
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    cashier = Screen(context.new_page(), live_server.url, "cashier")
    try:
        cashier.login("cashier")
        cashier.page.click("[data-testid=go-cage]")
        cashier.page.wait_for_url(re.compile(r"/cage/\d+/$"))
        amount = cashier.by(f"buy-in-amount-{pk}")
        amount.fill("600")
        cashier.post(lambda: amount.press("Enter"))
        cashier.by(f"document-type-{pk}").select_option("passport")
        cashier.by(f"document-number-{pk}").fill("   ")
        cashier.click(f"identify-{pk}")
        # the ID form again, what was typed in it, the reason beside the number
        assert cashier.by(f"identify-form-{pk}").count() == 1, "the ID form is gone"
        assert cashier.by(f"document-type-{pk}").input_value() == "passport"
        assert cashier.by(f"document-number-{pk}").input_value() == "   "
        refusal = cashier.text(f"document-number-error-{pk}")
        assert refusal == "Type the document's number (at most 40 characters)."
        assert cashier.page.evaluate("document.activeElement.dataset.testid") == f"document-number-{pk}"
        field = cashier.by(f"document-number-{pk}").bounding_box()
        error = cashier.by(f"document-number-error-{pk}").bounding_box()
        assert field is not None and error is not None
        assert 0 <= error["y"] - (field["y"] + field["height"]) <= 20, (field, error)
        assert error["y"] + error["height"] <= 768, error
        assert Transaction.objects.count() == 1
        # the number typed now: the confirmation, then the buy-in
        cashier.by(f"document-number-{pk}").fill("12AB34567")
        cashier.click(f"identify-{pk}")
        assert cashier.text(f"confirm-text-{pk}") == "Buy-in of 600 chips for Alice?"
        cashier.enter(f"confirm-{pk}")
        assert cashier.text(f"chips-{pk}") == "10,100"
        assert PlayerIdentification.objects.get(player=cage_player).masked == "****4567"
    finally:
        context.close()
        connections.close_all()
