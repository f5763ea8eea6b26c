"""The croupier's flow in a real browser (headless Chromium), through the screens only.

Setup (staff, casino, table, shift, players' buy-ins) uses factories and services; everything the
croupier does afterwards is clicks and typing on the tablet screens: open the table, seat four
players and a spectator, start a shoe, choose the first banker, then

1. a clean coup (options at both sides, the engine's advice shown),
2. a banco,
3. a coup where the banker stands when he must draw: confirmed, flagged, restored with the card
   the shoe still had to give, and approved by a pit boss in a second browser context,
4. the bank passed (offered in turn, accepted: the taker sets his own bank, RULES.md §7),
5. the bank lost (next in rotation refuses, the one after accepts).

On failure both pages are saved as screenshots in test-artifacts/. With SCREENSHOTS=1 the main
screens are saved there too (tablet size, 1024x768; TABLET_VIEWPORT=768x1024 for portrait).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from ledger import services as ledger
from tables.models import BankTurn, Bet, Coup, Table
from tests.factories import (
    CasinoFactory,
    CroupierAssignmentFactory,
    PlayerFactory,
    TableFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
NAMES = ("Alice", "Bruno", "Chloé", "Dmitri")


@pytest.fixture
def floor_setup(transactional_db) -> dict[str, Any]:
    casino = CasinoFactory(name="Casino de Deauville")
    table = TableFactory(casino=casino, name="Table 1", first_banker_method=Table.FirstBanker.LOT)
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[casino])
    CroupierAssignmentFactory(user=croupier, table=table)
    pit_boss = UserFactory(username="pitboss", roles=["pit_boss"], casinos=[casino])
    for name in NAMES:
        player = PlayerFactory(casino=casino, display_name=name)
        ledger.cage_buy_in(casino=casino, player=player, amount=10_000, actor=croupier, key=f"buyin:{name}")
    return {"table": table, "croupier": croupier, "pit_boss": pit_boss}


class Screen:
    """One tablet: a page and the few gestures the test needs."""

    def __init__(self, page: Any, base: str, name: str) -> None:
        self.page, self.base, self.name = page, base, name

    def login(self, username: str) -> None:
        self.page.goto(f"{self.base}{reverse('login')}")
        self.page.fill("#id_username", username)
        self.page.fill("#id_password", PASSWORD)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(f"{self.base}/")

    def settle(self) -> None:
        self.page.wait_for_function(
            "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"
        )

    def post(self, action: Any) -> Any:
        """Do ``action`` (a click or a key press) and wait for its POST to be answered and swapped."""
        with self.page.expect_response(lambda r: r.request.method == "POST") as answer:
            action()
        self.settle()
        return answer.value

    def click(self, testid: str) -> Any:
        return self.post(lambda: self.by(testid).click())

    def by(self, testid: str) -> Any:
        return self.page.get_by_test_id(testid)

    def text(self, testid: str) -> str:
        return self.by(testid).inner_text().strip()

    def amount(self, testid: str) -> int:
        """A chip amount as the screen writes it in any language ("1,250", "1 250"), as a number."""
        return int(re.sub(r"[^\d-]", "", self.text(testid)))

    def typed_card(self, card: str) -> None:
        """Type a card code on the keyboard, then Enter: the screen has put the focus there."""
        focused = self.page.evaluate("() => document.activeElement.dataset.testid")
        assert focused == "card-input", f"the focus is on {focused!r}, not the card field"
        self.page.keyboard.type(card)
        self.post(lambda: self.page.keyboard.press("Enter"))

    def enter(self, testid: str) -> None:
        """Press Enter on what the screen focused, checking it is ``testid``."""
        focused = self.page.evaluate("() => document.activeElement.dataset.testid")
        assert focused == testid, f"the focus is on {focused!r}, not {testid!r}"
        self.post(lambda: self.page.keyboard.press("Enter"))

    def tapped_card(self, rank: str, suit: str) -> None:
        """Tap the rank, then the suit (which sends the card)."""
        self.page.locator(f"[data-testid=rank-{rank}]").first.click()
        self.post(lambda: self.page.locator(f"[data-testid=suit-{suit}]").first.click())

    def bet(self, seat: int, amount: int) -> None:
        field = self.by(f"amount-seat-{seat}")
        field.fill(str(amount))
        self.post(lambda: field.press("Enter"))

    def declare(self, amount: int) -> None:
        self.by("bank-amount").fill(str(amount))
        self.click("declare-bank")

    def snap(self, name: str) -> None:
        if os.environ.get("SCREENSHOTS") == "1":
            ARTIFACTS.mkdir(exist_ok=True)
            self.page.screenshot(path=str(ARTIFACTS / f"screen-{name}.png"), full_page=True)


def _coups() -> list[Coup]:
    return list(Coup.objects.order_by("pk"))


def test_a_croupier_plays_a_shoe_through_the_screens(floor_setup, live_server, browser) -> None:
    table: Table = floor_setup["table"]
    base = live_server.url
    width, height = (int(n) for n in os.environ.get("TABLET_VIEWPORT", "1024x768").split("x"))
    tablet = browser.new_context(viewport={"width": width, "height": height})
    office = browser.new_context(viewport={"width": 1024, "height": 768})
    croupier = Screen(tablet.new_page(), base, "croupier")
    pit_boss = Screen(office.new_page(), base, "pit-boss")
    try:
        _play(croupier, pit_boss, table)
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        for screen in (croupier, pit_boss):
            screen.page.screenshot(path=str(ARTIFACTS / f"croupier-flow-{screen.name}.png"), full_page=True)
        raise
    finally:
        tablet.close()
        office.close()
        # Playwright's sync API switches greenlets, and Django's connections are per context: the
        # ORM calls above opened a second connection, which the test database's teardown would
        # find still open. Close it here (the fixtures' own connection is closed by pytest-django).
        connections.close_all()


def _play(croupier: Screen, pit_boss: Screen, table: Table) -> None:
    page = croupier.page
    # --- log in, "my table", open it -----------------------------------------------------
    croupier.login("croupier")
    page.click("[data-testid=my-table]")
    page.wait_for_url(re.compile(rf"/table/{table.pk}/$"))
    croupier.snap("01-closed")
    croupier.click("open-table")

    # --- four players sit down, a new player stands ----------------------------------------
    for number, name in enumerate(NAMES, start=1):
        page.select_option("#seat-number", str(number))
        page.select_option("#seat-player", label=name)
        croupier.post(lambda: page.locator("[data-testid=seat-form] button[type=submit]").click())
        assert name in croupier.text(f"seat-{number}")
    page.fill("#spectator-new-name", "Sam Standing")
    croupier.post(lambda: page.locator("[data-testid=spectator-form] button[type=submit]").click())
    assert "Sam Standing" in croupier.text("seating")

    # --- the shoe: 6 decks (default), cut by Bruno, three cards burnt ------------------------
    page.select_option("[data-testid=cut-by]", label="Seat 2 · Bruno")
    croupier.by("burnt").fill("2c 3d 4h")
    croupier.snap("02-shoe")
    croupier.click("start-shoe")
    assert "3 cards out" in croupier.text("shoe-line")

    # --- first banker by lot: Alice, seat 1 ----------------------------------------------
    page.select_option("[data-testid=first-banker]", label="Seat 1 · Alice")
    croupier.click("give-bank")
    assert croupier.text("bank-minimum") == "1"

    # --- coup 1: clean; the player and then the banker are at an option -------------------
    croupier.declare(200)
    for seat, amount in ((4, 30), (3, 50), (2, 120)):  # betting order from the banker's right
        croupier.bet(seat, amount)
    assert croupier.text("uncovered") == "0"
    croupier.snap("03-bets")
    croupier.enter("step-bets_closed")  # the bank is covered: "no more bets" has the focus
    for card in ("2h", "as", "3c", "2d"):
        croupier.typed_card(card)
    assert croupier.text("requirement") == "The player (5) is free to draw or stand."
    assert croupier.by("advice").is_visible()
    croupier.snap("04-player-option")
    croupier.click("step-player_draw")
    croupier.tapped_card("9", "H")
    assert "free to draw or stand" in croupier.text("requirement")
    assert croupier.text("advice-choice") in ("draw", "stand")
    croupier.snap("05-banker-option")
    croupier.click("step-banker_draw")
    croupier.typed_card("5S")
    croupier.click("step-reveal")
    assert croupier.text("outcome") == "Banker wins"
    assert croupier.text("score") == "4 to 8"
    assert croupier.text("levy") == "10"
    assert croupier.text("next-minimum") == "390"
    assert croupier.text("bank-minimum") == "390"
    croupier.snap("06-settled")

    # --- coup 2: Chloé calls banco; the banker shows a natural -------------------------------
    croupier.declare(390)
    croupier.snap("06b-betting")
    croupier.click("banco-seat-3")
    assert croupier.text("uncovered") == "0"
    croupier.click("step-bets_closed")
    for card in ("2s", "4d", "td", "5h"):  # player 2, banker 9
        croupier.typed_card(card)
    croupier.click("step-player_draw")
    croupier.click("step-banker_natural")
    croupier.click("step-reveal")
    assert croupier.text("outcome") == "Banker wins"
    assert croupier.text("levy") == "19"
    assert croupier.text("next-minimum") == "761"
    coup2 = _coups()[1]
    assert list(Bet.objects.filter(coup=coup2, banco=True).values_list("seat__number", "amount")) == [
        (3, 390)
    ]

    # --- coup 3: the banker stands on 5 against a 6 ------------------------------------------
    croupier.declare(761)
    croupier.bet(4, 200)
    croupier.bet(2, 300)
    assert croupier.text("uncovered") == "261"
    croupier.click("step-bets_closed")
    for card in ("th", "3s", "2c", "2h"):  # player 2, banker 5
        croupier.typed_card(card)
    assert croupier.text("requirement") == "The player (2) must draw."
    croupier.click("step-player_draw")
    croupier.typed_card("6d")
    assert "must draw" in croupier.text("requirement")
    croupier.click("step-banker_stand")  # against the rules: the screen asks first
    assert croupier.text("confirm-violation") == (
        "The banker must draw on 5 against the player's third card 6♦: the tableau forbids standing."
    )
    croupier.snap("07-confirm")
    assert _coups()[2].step_count == 10  # nothing recorded yet
    croupier.click("confirm-yes")
    assert croupier.by("flagged").is_visible()
    croupier.click("step-reveal")
    coup3 = _coups()[2]
    assert (coup3.state, coup3.flagged) == (Coup.State.AWAITING_CORRECTION, True)
    assert "1 more card needed" in croupier.text("needs-cards")
    croupier.snap("08-restore")
    croupier.tapped_card("4", "C")
    assert croupier.text("restored-outcome") == "Banker wins, 8 to 9"
    croupier.snap("09-restore-preview")
    croupier.click("submit-restore")
    assert "awaiting pit boss approval" in croupier.text("awaiting-approval")
    assert croupier.text("next-minimum") == "1,236"  # chips as every screen writes them
    coup3.refresh_from_db()
    assert coup3.state == Coup.State.AWAITING_APPROVAL

    # --- a pit boss approves it on the review queue, in his own browser ----------------------
    pit_boss.login("pitboss")
    pit_boss.page.goto(f"{pit_boss.base}{reverse('review:queue')}")
    row = pit_boss.page.locator(f"#queue-coup-{coup3.pk}")
    pit_boss.post(lambda: row.get_by_role("button", name="Approve").click())
    assert "approved" in row.inner_text().lower()
    coup3.refresh_from_db()
    assert coup3.state == Coup.State.SETTLED
    page.reload()
    assert croupier.text("result-restored") == "Restored · approved"
    pit_boss.page.goto(f"{pit_boss.base}{reverse('floor:table', args=[table.pk])}")
    assert pit_boss.by("read-only").is_visible()
    assert pit_boss.page.locator("[data-testid=declare-bank]").count() == 0
    pit_boss.snap("12-pit-boss-reads")

    # --- the bank passed: offered in turn, Dmitri (seat 4) takes it and sets his own bank ----
    # (RULES.md §7: at the casino the passer's continuation of 1236 does not bind the taker)
    croupier.click("pass-bank")
    assert croupier.text("offer-minimum") == "1"
    assert croupier.text("offer-to") == "Seat 4 · Dmitri"
    croupier.snap("10-bank-passed")
    croupier.click("offer-accept")
    assert croupier.text("banker") == "Dmitri"
    assert croupier.text("bank-minimum") == "1"

    # --- coup 4: the player shows a natural, Dmitri loses the bank ---------------------------
    croupier.declare(1236)  # his own choice
    croupier.bet(3, 600)
    croupier.bet(2, 636)
    croupier.click("step-bets_closed")
    for card in ("9h", "2d", "kc", "3s"):  # player 9, banker 5
        croupier.typed_card(card)
    croupier.enter("step-player_natural")  # the only step within the rules
    croupier.enter("step-reveal")
    assert croupier.text("outcome") == "Player wins"

    # --- the bank lost: offered in rotation from seat 4; Chloé refuses, Bruno accepts ---------
    assert croupier.text("offer-to") == "Seat 3 · Chloé"
    assert croupier.text("offer-minimum") == "1"
    croupier.click("offer-refuse")
    assert croupier.text("offer-to") == "Seat 2 · Bruno"
    croupier.snap("11-bank-lost")
    croupier.click("offer-accept")
    assert croupier.text("banker") == "Bruno"

    # --- what the database holds -----------------------------------------------------------
    coups = _coups()
    assert [(c.number, c.state, c.flagged) for c in coups] == [
        (1, Coup.State.SETTLED, False),
        (2, Coup.State.SETTLED, False),
        (3, Coup.State.SETTLED, True),
        (4, Coup.State.SETTLED, False),
    ]
    turns = list(
        BankTurn.objects.order_by("started_at", "pk").values_list("seat__number", "started_how", "end_reason")
    )
    assert turns == [(1, "lot", "passed"), (4, "passed", "lost"), (2, "rotation", "")]
