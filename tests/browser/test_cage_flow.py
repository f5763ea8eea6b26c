"""The cage in a real browser (headless Chromium): the cashier buys a seated player in, by keyboard
(amount, Enter, Enter to confirm), and the croupier's screen shows the chips beside his name.

On failure both pages are saved as screenshots in test-artifacts/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from ledger.models import Transaction
from tables.models import Table
from tests.browser.test_croupier_flow import ARTIFACTS, Screen
from tests.factories import (
    CasinoFactory,
    CroupierAssignmentFactory,
    PlayerFactory,
    SeatFactory,
    TableFactory,
    TableSessionFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def cage_setup(transactional_db) -> dict[str, Any]:
    casino = CasinoFactory(name="Casino de Deauville")
    table = TableFactory(casino=casino, name="Table 1", first_banker_method=Table.FirstBanker.LOT)
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[casino])
    CroupierAssignmentFactory(user=croupier, table=table)
    UserFactory(username="cashier", roles=["cashier"], casinos=[casino])
    player = PlayerFactory(casino=casino, display_name="Alice")
    SeatFactory(session=TableSessionFactory(table=table, opened_by=croupier), player=player, number=1)
    return {"table": table, "player": player}


def test_the_cashier_buys_a_player_in_and_the_croupier_sees_his_chips(
    cage_setup, live_server, browser
) -> None:
    table, player = cage_setup["table"], cage_setup["player"]
    cage_context = browser.new_context(viewport={"width": 1024, "height": 768})
    tablet = browser.new_context(viewport={"width": 1024, "height": 768})
    cashier = Screen(cage_context.new_page(), live_server.url, "cashier")
    croupier = Screen(tablet.new_page(), live_server.url, "croupier")
    try:
        # --- the croupier's screen: Alice sits with no chips yet --------------------------------
        croupier.login("croupier")
        croupier.page.goto(f"{live_server.url}{reverse('floor:table', args=[table.pk])}")
        assert croupier.text("chips-seat-1") == "0"

        # --- the cage: amount, Enter; the confirmation has the focus: Enter -----------------------
        cashier.login("cashier")
        cashier.page.click("[data-testid=go-cage]")
        cashier.page.wait_for_url(re.compile(r"/cage/\d+/$"))
        amount = cashier.by(f"buy-in-amount-{player.pk}")
        amount.fill("2500")
        cashier.post(lambda: amount.press("Enter"))
        assert cashier.text(f"confirm-text-{player.pk}") == "Buy-in of 2,500 chips for Alice?"
        assert Transaction.objects.count() == 0  # asked, nothing posted yet
        cashier.snap("cage-confirm")
        cashier.enter(f"confirm-{player.pk}")
        assert "bought in 2,500 chips" in cashier.text(f"cage-notice-{player.pk}")
        assert cashier.text(f"chips-{player.pk}") == "2,500"  # as every screen writes chips
        cashier.snap("cage-done")
        assert Transaction.objects.filter(kind=Transaction.Kind.BUY_IN).count() == 1

        # --- back at the table: the chips beside her name ----------------------------------------
        croupier.page.reload()
        assert croupier.text("chips-seat-1") == "2,500"
        croupier.snap("cage-croupier-chips")
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        for screen in (cashier, croupier):
            screen.page.screenshot(path=str(ARTIFACTS / f"cage-flow-{screen.name}.png"), full_page=True)
        raise
    finally:
        cage_context.close()
        tablet.close()
        connections.close_all()
