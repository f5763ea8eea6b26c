"""A whole night at the four demo tables, as a new user would play it (issue 9's acceptance).

From ``load_demo`` data only: the staff log in through the login page with the demo passwords, and
everything afterwards is clicks and typing on the screens (the croupier's tablet, the cage, the pit
boss's dashboard and queue). The database is only read, to assert the exact outcome.

20 coups at each demo table (casino, classic, club, home), among them:

- casino: a marker (a player with no chips loses on credit: his shortfall is his marker, shown at
  the cage), a coup the banker stood wrongly on, restored, then rejected by the pit boss after its
  shoe was closed and restored again from the shoe's recorded order, and a house-bank coup;
- classic: a bank nobody takes (withdrawn without a coup), an amended typo (a bet), a passed bank
  taken at a new amount (RULES.md §7: the taker sets his own bank);
- club: an amended typo (a card), a coup voided by the pit boss while it was being played; the
  table is charged by the hour (load_demo), so its players' fees are counted at the end;
- home: a new player's bet refused for lack of chips (no borrowing at home), the cashier's buy-in at
  the cage, and the same bet accepted.

The test keeps its own account of the night (who banked, who bet, who won, the levy) and checks
every player's chips against it at the end, the coups per table (20 each) and their states, the
ledger's balance and the audit chain. On failure every page is saved in test-artifacts/.
"""

from __future__ import annotations

import io
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from django.db.models import Sum
from django.urls import reverse

from audit.selectors import audit_chains_verify
from casino.management.commands.load_demo import DEMO_BUY_IN, DEMO_HOURLY_FEE, DEMO_STAFF
from ledger.models import Account, Entry, Transaction
from ledger.selectors import account_balance, chips_by_player, ledger_drift, trial_balance
from tables.models import Bet, Coup, CoupStep, Player, Table
from tests.browser.test_croupier_flow import ARTIFACTS, Screen

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DEMO = ("M. Dupont", "Mme Leroy", "Comte Orlov", "Walk-in")  # load_demo's players, seats 1 to 4
COUPS_PER_TABLE = 20
RANKS = "A23456789TJQK"
SUITS = "SHDC"


def value(rank: str) -> int:
    return 0 if rank in "TJQK" else RANKS.index(rank) + 1


class Shoe:
    """The cards the croupier draws from one shoe: each card at most once per deck, so the shoe
    never raises an alarm (too many of one card) the night does not mean."""

    def __init__(self, decks: int) -> None:
        self.left = Counter({r + s: decks for r in RANKS for s in SUITS})
        self.turn = 0

    def card(self, total: int) -> str:
        """A card of value ``total`` (0 to 9), the suit and rank turning so every card is used alike."""
        self.turn += 1
        ranks = [r for r in RANKS if value(r) == total % 10]
        for i in range(len(ranks) * len(SUITS)):
            code = ranks[(self.turn + i) % len(ranks)] + SUITS[(self.turn + i // len(ranks)) % len(SUITS)]
            if self.left[code] > 0:
                self.left[code] -= 1
                return code
        raise AssertionError(f"no card worth {total} left")

    def hand(self, total: int) -> tuple[str, str]:
        """Two cards worth ``total``, from the values the shoe has most of."""

        def left(v: int) -> int:
            return sum(self.left[r + s] for r in RANKS if value(r) == v for s in SUITS)

        def room(v: int) -> int:
            w = (total - v) % 10
            return min(left(v), left(w)) - (1 if v == w else 0)

        first = max(range(10), key=lambda v: (room(v), -v))
        return self.card(first), self.card(total - first)


@dataclass
class Ledger:
    """The test's own account: each player's chips at the end, by what the coups should give."""

    chips: Counter[str] = field(default_factory=Counter)
    levy: int = 0

    def coup(
        self, *, banker: str, bets: list[tuple[str, int]], winner: str, levy_bp: int, house: bool = False
    ) -> int:
        staked = sum(amount for _, amount in bets)
        sign = 1 if winner == "player" else -1
        for name, amount in bets:
            self.chips[name] += sign * amount
        levy = 0 if house or winner == "player" else staked * levy_bp // 10_000
        if not house:
            self.chips[banker] += -sign * staked - levy
        self.levy += levy
        return levy


class Croupier(Screen):
    """The croupier's tablet at one table: the gestures of a night, and the test's account of it."""

    def __init__(self, page: Any, base: str, night: Ledger) -> None:
        super().__init__(page, base, "croupier")
        self.night = night
        self.seats: dict[int, str] = {}
        self.shoe = Shoe(6)
        self.levy_bp = 0
        self.played = 0  # coups declared at this table
        self.house = False
        self.holder = ""  # who holds the bank of the coup being played

    # --- the table -----------------------------------------------------------------------
    def sit_down(self, table_name: str, *, levy_bp: int) -> None:
        self.page.goto(f"{self.base}/")
        self.page.click("[data-testid=my-table]")
        self.page.get_by_role("link", name=re.compile(re.escape(table_name))).click()
        self.page.wait_for_url(re.compile(r"/table/\d+/$"))
        self.click("open-table")
        self.seats, self.levy_bp, self.played, self.house = {}, levy_bp, 0, False

    def seat(self, number: int, name: str, *, new: bool = False) -> None:
        fold = self.page.locator("[data-testid=seating-tools]")  # folded behind one button in play
        if fold.get_attribute("open") is None:
            fold.locator("summary").click()
        self.page.select_option("#seat-number", str(number))
        if new:
            self.page.select_option("#seat-player", "")
            self.page.fill("#seat-new-name", name)
        else:
            self.page.select_option("#seat-player", label=name)
        self.post(lambda: self.page.locator("[data-testid=seat-form] button[type=submit]").click())
        assert name in self.text(f"seat-{number}")
        self.seats[number] = name

    def leave(self, number: int) -> None:
        name = self.seats.pop(number)
        self.post(lambda: self.page.get_by_role("button", name=f"{name} leaves seat {number}").click())
        assert self.page.locator(f"[data-testid=seat-{number}]").count() == 0

    def start_shoe(self, *, decks: int, burnt: int = 0) -> None:
        self.shoe = Shoe(decks)
        if burnt:
            self.by("burnt").fill(" ".join(self.shoe.card(n) for n in range(burnt)))
        self.page.select_option("[data-testid=cut-by]", label=f"Seat 2 · {self.seats[2]}")
        self.click("start-shoe")
        assert f"{burnt} cards out" in self.text("shoe-line")

    def first_banker(self, seat: int) -> None:
        self.page.select_option("[data-testid=first-banker]", label=f"Seat {seat} · {self.seats[seat]}")
        self.click("give-bank")

    def close_table(self) -> None:
        self.page.locator("summary", has_text="Close table…").click()
        self.page.fill("#close-reason", "end of the night")
        self.post(lambda: self.page.get_by_role("button", name="Close the table now").click())
        assert self.by("open-table").is_visible()

    # --- the bank ------------------------------------------------------------------------
    def banker(self) -> str:
        return self.text("banker")

    def accept_offer(self) -> str:
        """The bank offered in turn: the player asked accepts it."""
        taker = self.text("offer-to").split(" · ", 1)[1]
        self.click("offer-accept")
        assert self.banker() == taker
        return taker

    def declare(self, amount: int) -> None:
        self.holder = "House" if self.house else self.banker()  # the declare panel names him
        self.by("bank-amount").fill(str(amount))
        self.click("declare-bank")
        assert self.text("bank") == f"{amount:,}", self.page.locator("[data-testid=error]").all_inner_texts()
        self.played += 1

    # --- a coup --------------------------------------------------------------------------
    def bet(self, seat: int, amount: int) -> None:
        field = self.by(f"amount-seat-{seat}")
        field.fill(str(amount))
        self.post(lambda: field.press("Enter"))

    def punters(self, count: int = 1) -> list[int]:
        """The next ``count`` seats that may bet (not the banker, in the demo players' order),
        turning with the coups so that everybody plays."""
        free = [n for n, name in sorted(self.seats.items()) if name != self.holder and name in DEMO]
        return [free[(self.played + i) % len(free)] for i in range(count)]

    def deal(self, winner: str) -> None:
        """The four first cards (player, banker, player, banker), then the steps to the reveal:
        a natural 9 for the player, or a 0 for the player (he must draw, at every table: no option,
        so no advice to compute) against the banker's natural 9."""
        player, banker = (9, 5) if winner == "player" else (0, 9)
        p1, p2 = self.shoe.hand(player)
        b1, b2 = self.shoe.hand(banker)
        for card in (p1, b1, p2, b2):
            self.typed_card(card)
        if winner == "player":
            self.click("step-player_natural")
        else:
            self.click("step-player_draw")
            self.click("step-banker_natural")
        self.click("step-reveal")
        assert self.text("outcome") == ("Player wins" if winner == "player" else "Banker wins")

    def coup(
        self,
        winner: str,
        *,
        bank: int | None = None,
        bets: list[tuple[int, int]] | None = None,
        taken: bool = True,
    ) -> Coup:
        """One plain coup: the bank declared (at least 100, or the banker's continuation), covered
        by one punter unless ``bets`` says, dealt and revealed. A bank lost is offered in turn and
        the player asked takes it (unless not ``taken``)."""
        amount = bank or max(self.amount("bank-minimum"), 100)
        self.declare(amount)
        banker = self.holder
        bets = bets or [(self.punters()[0], amount)]
        for seat, stake in bets:
            self.bet(seat, stake)
        assert self.text("uncovered") == "0"
        self.click("step-bets_closed")
        self.deal(winner)
        levy = self.night.coup(
            banker=banker,
            bets=[(self.seats[s], a) for s, a in bets],
            winner=winner,
            levy_bp=self.levy_bp,
            house=self.house,
        )
        assert self.text("levy") == f"{levy:,}"
        if winner == "player" and not self.house and taken:  # the bank is lost: offered in turn
            self.accept_offer()
        return Coup.objects.latest("pk")

    def history_index(self, kind_text: str) -> int:
        """The index of the last recorded step whose line says ``kind_text``."""
        self.page.locator("[data-testid=history] > summary").click()
        rows = self.page.locator("[data-testid^=history-]").filter(has_text=kind_text)
        testid = rows.last.get_attribute("data-testid")
        assert testid is not None
        return int(testid.rsplit("-", 1)[1])

    def amend(self, index: int, reason: str, *, amount: int | None = None, card: str | None = None) -> None:
        self.click_summary(f"amend-{index}")
        if amount is not None:
            self.page.fill(f"#amend-{index}-amount", str(amount))
        if card is not None:
            self.page.fill(f"#amend-{index}-card", card)
        self.page.fill(f"#amend-{index}-reason", reason)
        self.click(f"amend-submit-{index}")

    def click_summary(self, testid: str) -> None:
        self.by(testid).click()


def _login(screen: Screen, username: str) -> None:
    screen.page.goto(f"{screen.base}{reverse('login')}")
    screen.page.fill("#id_username", username)
    screen.page.fill("#id_password", DEMO_STAFF[username][0])
    screen.page.click("button[type=submit]")
    screen.page.wait_for_url(f"{screen.base}/")


def test_a_whole_night_at_the_four_demo_tables(demo, live_server, browser) -> None:
    base = live_server.url
    contexts = [browser.new_context(viewport={"width": 1024, "height": 768}) for _ in range(3)]
    night = Ledger()
    for context in contexts:
        context.set_default_timeout(10_000)
    croupier = Croupier(contexts[0].new_page(), base, night)
    pit_boss = Screen(contexts[1].new_page(), base, "pit-boss")
    cashier = Screen(contexts[2].new_page(), base, "cashier")
    started = time.monotonic()
    try:
        _login(croupier, "croupier")
        _login(pit_boss, "pitboss")
        _login(cashier, "cashier")
        _casino(croupier, pit_boss, cashier)
        _classic(croupier)
        _club(croupier, pit_boss)
        _home(croupier, cashier)
        _the_morning_after(croupier, cashier, night)
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        for screen in (croupier, pit_boss, cashier):
            screen.page.screenshot(path=str(ARTIFACTS / f"whole-night-{screen.name}.png"), full_page=True)
        raise
    finally:
        print(f"\nthe whole night took {time.monotonic() - started:.1f} s")
        for context in contexts:
            context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection


# ------------------------------------------------------------------------------- the casino table
def _casino(croupier: Croupier, pit_boss: Screen, cashier: Screen) -> None:
    croupier.sit_down("Casino table", levy_bp=500)
    for number, name in enumerate(DEMO, start=1):
        croupier.seat(number, name)
    croupier.start_shoe(decks=6, burnt=3)
    croupier.first_banker(1)
    croupier.coup("banker")  # 1
    croupier.coup("player")  # 2

    # --- 3: a marker. A newcomer sits with no chips and bets 300 on credit (the casino lends), loses.
    croupier.seat(5, "M. Crédit", new=True)
    assert croupier.text("chips-seat-5") == "0"
    croupier.coup("banker", bank=300, bets=[(5, 300)])
    assert croupier.text("chips-seat-5") == "0 · marker 300"  # he owes them, as the cage says
    croupier.leave(5)
    for _ in range(4):  # 4 to 11
        croupier.coup("player")
        croupier.coup("banker")

    # --- 12: the banker stands on 5 against a 6; flagged, restored with the 4 the shoe gave --------
    coup = _banker_stands_wrongly(croupier)
    croupier.coup("player")  # 13: the table plays on with the restored result (bank lost)
    # the shoe ends; a new one starts; only then the pit boss rejects the correction
    croupier.page.locator("summary", has_text="End this shoe…").click()
    croupier.page.fill("#shoe-close-reason", "a new shoe before the late session")
    croupier.post(lambda: croupier.page.get_by_role("button", name="End the shoe").click())
    assert croupier.by("shoe-ended").is_visible()
    croupier.start_shoe(decks=6, burnt=4)
    pit_boss.page.goto(f"{pit_boss.base}/")
    pit_boss.page.get_by_role("link", name="Corrections to review").click()
    row = pit_boss.page.locator(f"#queue-coup-{coup.pk}")
    row.locator(f"#reason-{coup.pk}").fill("the shoe was recounted: check the banker's card")
    pit_boss.post(lambda: row.get_by_role("button", name="Reject").click())
    assert "rejected" in row.inner_text().lower()
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_CORRECTION
    # the croupier is not asked for a card of a shoe that is gone: the record gives it
    croupier.page.reload()
    assert "Shoe 1 is closed" in croupier.text("recorded-cards")
    assert croupier.text("restored-outcome") == "Banker wins, 8 to 9"
    croupier.click("submit-restore")
    pit_boss.page.reload()
    row = pit_boss.page.locator(f"#queue-coup-{coup.pk}")
    pit_boss.post(lambda: row.get_by_role("button", name="Approve").click())
    assert "approved" in row.inner_text().lower()
    coup.refresh_from_db()
    assert (coup.state, coup.flagged) == (Coup.State.SETTLED, True)

    # --- 14: the house banks (RULES.md §2) and loses; it keeps the bank, then stops banking ------
    croupier.page.reload()
    croupier.coup("player", taken=False)  # 14: the bank is lost and offered; the house takes it
    croupier.click("house-bank")
    assert croupier.banker() == "House"
    croupier.house = True
    house_coup = croupier.coup("player", bank=500, bets=[(2, 200), (3, 300)])  # 15
    assert house_coup.banker.house and house_coup.state == Coup.State.SETTLED
    croupier.click("pass-bank")  # "The house stops banking": the bank is offered in turn
    croupier.house = False
    croupier.accept_offer()
    for _ in range(2):  # 16 to 19
        croupier.coup("banker")
        croupier.coup("player")
    croupier.coup("banker")  # 20
    croupier.close_table()


def _banker_stands_wrongly(croupier: Croupier) -> Coup:
    """Player 2 draws a 6 (8); the banker stands on 5 although he must draw: confirmed, flagged,
    revealed, and restored with the next card of the shoe (a 4: banker 9 wins). Returns the coup,
    awaiting the pit boss's approval."""
    banker = croupier.banker()
    amount = max(croupier.amount("bank-minimum"), 100)
    croupier.declare(amount)
    seat = croupier.punters()[0]
    croupier.bet(seat, amount)
    croupier.click("step-bets_closed")
    shoe = croupier.shoe
    p1, p2 = shoe.hand(2)
    b1, b2 = shoe.hand(5)
    for card in (p1, b1, p2, b2):
        croupier.typed_card(card)
    croupier.click("step-player_draw")
    croupier.typed_card(shoe.card(6))
    croupier.click("step-banker_stand")
    assert "the tableau forbids standing" in croupier.text("confirm-violation")
    croupier.click("confirm-yes")
    croupier.click("step-reveal")
    assert "1 more card needed" in croupier.text("needs-cards")
    four = shoe.card(4)
    croupier.tapped_card(four[0], four[1])
    assert croupier.text("restored-outcome") == "Banker wins, 8 to 9"
    croupier.click("submit-restore")
    coup = Coup.objects.latest("pk")
    assert coup.state == Coup.State.AWAITING_APPROVAL
    croupier.night.coup(
        banker=banker, bets=[(croupier.seats[seat], amount)], winner="banker", levy_bp=500, house=False
    )
    return coup


# ------------------------------------------------------------------------------- the classic table
def _classic(croupier: Croupier) -> None:
    croupier.sit_down("Classic table", levy_bp=0)
    for number, name in enumerate(DEMO, start=1):
        croupier.seat(number, name)
    croupier.start_shoe(decks=6)
    croupier.first_banker(1)

    # --- 1: a bank nobody takes (RULES.md §7): withdrawn without a deal; the banker keeps it ----
    croupier.declare(150)
    croupier.click("withdraw-bank")
    assert croupier.banker() == DEMO[0]
    withdrawn = Coup.objects.latest("pk")
    assert (withdrawn.state, withdrawn.bank) == (Coup.State.WITHDRAWN, 150)
    assert not Bet.objects.filter(coup=withdrawn).exists()
    croupier.coup("banker")  # 2
    croupier.coup("player")  # 3

    # --- 4: a typo. 20 typed for a bet of 200: amended before the reveal, the original kept ------
    croupier.declare(200)
    seat = croupier.punters()[0]
    croupier.bet(seat, 20)
    assert croupier.text("uncovered") == "180"
    index = croupier.history_index("20")
    croupier.amend(index, "typed 20 for 200", amount=200)
    assert croupier.text("uncovered") == "0"
    croupier.page.locator("[data-testid=history] > summary").click()
    assert croupier.by(f"superseded-{index}").is_visible()  # the wrong step stays, struck through
    assert "20" in croupier.text(f"superseded-{index}")
    coup = Coup.objects.latest("pk")
    croupier.click("step-bets_closed")
    banker = croupier.holder
    croupier.deal("player")
    croupier.night.coup(banker=banker, bets=[(croupier.seats[seat], 200)], winner="player", levy_bp=0)
    croupier.accept_offer()
    amended = CoupStep.objects.filter(coup=coup, superseded_by__isnull=False)
    assert [s.payload["amount"] for s in amended] == [20]
    assert list(Bet.objects.filter(coup=coup, withdrawn=False).values_list("amount", flat=True)) == [200]

    croupier.coup("banker")  # 5

    # --- 6: the bank passed after a win, taken at a new amount (RULES.md §7, the taker's own bank) --
    continuation = croupier.amount("bank-minimum")
    croupier.click("pass-bank")
    assert croupier.text("offer-minimum") == "1"
    croupier.accept_offer()
    assert croupier.text("bank-minimum") == "1"
    passed = croupier.coup("banker", bank=continuation - 60)  # 6
    assert passed.bank == continuation - 60
    for _ in range(7):  # 7 to 20
        croupier.coup("player")
        croupier.coup("banker")
    croupier.close_table()


# ------------------------------------------------------------------------------- the club table
def _club(croupier: Croupier, pit_boss: Screen) -> None:
    croupier.sit_down("Club table", levy_bp=0)
    for number, name in enumerate(DEMO, start=1):
        croupier.seat(number, name)
    croupier.start_shoe(decks=4)  # one deck per seated player (club)
    croupier.first_banker(1)
    for _ in range(2):  # 1 to 4
        croupier.coup("banker")
        croupier.coup("player")

    # --- 5: a typo on a card: the player's first card amended before the reveal ----------------
    banker = croupier.banker()
    croupier.declare(100)
    seat = croupier.punters()[0]
    croupier.bet(seat, 100)
    croupier.click("step-bets_closed")
    wrong = croupier.shoe.card(3)
    p1, p2 = croupier.shoe.hand(9)
    b1, b2 = croupier.shoe.hand(5)
    croupier.typed_card(wrong)
    index = croupier.history_index(wrong[0])
    croupier.amend(index, "mistyped the player's first card", card=p1)
    for card in (b1, p2, b2):
        croupier.typed_card(card)
    croupier.click("step-player_natural")
    croupier.click("step-reveal")
    assert croupier.text("outcome") == "Player wins"
    croupier.night.coup(banker=banker, bets=[(croupier.seats[seat], 100)], winner="player", levy_bp=0)
    croupier.accept_offer()
    for _ in range(2):  # 6 to 9
        croupier.coup("banker")
        croupier.coup("player")

    # --- 10: the pit boss voids the coup being played (reason), from the dashboard --------------
    croupier.declare(120)
    croupier.bet(croupier.punters()[0], 120)
    croupier.click("step-bets_closed")
    croupier.typed_card(croupier.shoe.card(3))
    open_coup = Coup.objects.latest("pk")
    pit_boss.page.goto(f"{pit_boss.base}/")
    pit_boss.page.get_by_role("navigation", name="Main").get_by_role("link", name="Dashboard").click()
    pit_boss.page.locator("[data-testid=open-tables] tr", has_text="Club table").locator(
        "[data-testid=coup-in-play]"
    ).click()
    pit_boss.page.wait_for_url(re.compile(rf"/review/coups/{open_coup.pk}/$"))
    pit_boss.by("void-open").click()  # the void sits apart, behind a second tap
    pit_boss.page.fill("#void-reason", "the deck was found short a card")
    pit_boss.post(lambda: pit_boss.page.get_by_role("button", name="Void the coup").click())
    assert pit_boss.text("coup-state") == "Void"
    assert "Coup voided: every stake returned" in pit_boss.page.locator("#coup-review").inner_text()
    open_coup.refresh_from_db()
    assert open_coup.state == Coup.State.VOID
    voided = open_coup.steps.get(kind=CoupStep.Kind.COUP_VOIDED)
    assert voided.payload["reason"] == "the deck was found short a card"
    croupier.page.reload()  # the bank stays as declared: the banker declares his next coup
    for _ in range(5):  # 11 to 20
        croupier.coup("banker")
        croupier.coup("player")
    croupier.close_table()


# ------------------------------------------------------------------------------- the home table
def _home(croupier: Croupier, cashier: Screen) -> None:
    croupier.sit_down("Home table", levy_bp=0)
    for number, name in enumerate(DEMO, start=1):
        croupier.seat(number, name)
    croupier.seat(5, "Mlle Nouvelle", new=True)
    croupier.start_shoe(decks=6)
    croupier.first_banker(1)

    # --- 1: a newcomer bets before buying chips: refused at home (no borrowing), nothing written --
    banker = croupier.banker()
    croupier.declare(100)
    coup = Coup.objects.latest("pk")
    steps = coup.steps.count()
    croupier.bet(5, 50)
    error = croupier.page.locator("[data-testid=bettor-seat-5] [data-testid=error]")
    assert "0 chips" in error.inner_text(), error.inner_text()
    assert coup.steps.count() == steps and not Bet.objects.filter(coup=coup).exists()
    # the cashier sells her 500 chips at the cage (amount, Enter, confirm); then her bet stands
    cashier.page.goto(f"{cashier.base}/")
    cashier.page.click("[data-testid=go-cage]")
    cashier.page.wait_for_url(re.compile(r"/cage/\d+/$"))
    row = cashier.page.locator(".cage-row", has_text="Mlle Nouvelle")
    amount = row.locator("[data-testid^=buy-in-amount-]")
    amount.fill("500")
    cashier.post(lambda: amount.press("Enter"))
    cashier.post(lambda: row.get_by_role("button", name="Confirm buy-in").click())
    assert "bought in 500 chips" in row.locator("[data-testid^=cage-notice-]").inner_text()
    croupier.page.reload()
    assert croupier.text("chips-seat-5") == "500"
    seat = croupier.punters()[0]
    croupier.bet(5, 50)
    croupier.bet(seat, 50)
    assert croupier.text("uncovered") == "0"
    croupier.click("step-bets_closed")
    croupier.deal("banker")
    croupier.night.coup(
        banker=banker,
        bets=[("Mlle Nouvelle", 50), (croupier.seats[seat], 50)],
        winner="banker",
        levy_bp=0,
        house=False,
    )
    croupier.leave(5)
    croupier.coup("player")  # 2
    for _ in range(9):  # 3 to 20
        croupier.coup("banker")
        croupier.coup("player")
    croupier.close_table()


# ------------------------------------------------------------------------------- the reckoning
def _hourly_fees(players: dict[str, Player]) -> dict[str, int]:
    """The hourly fees each player paid (his entries of the ``hourly_fee`` postings), by name."""
    entries = Entry.objects.filter(
        transaction__kind=Transaction.Kind.HOURLY_FEE, account__player__in=players.values()
    )
    paid = entries.values_list("account__player__display_name").annotate(total=Sum("amount"))
    return {name: -total for name, total in paid}


def _the_morning_after(croupier: Croupier, cashier: Screen, night: Ledger) -> None:
    by_table = {
        t.profile.slug: list(
            Coup.objects.filter(shoe__table=t)
            .order_by("shoe__number", "number")
            .values_list("state", flat=True)
        )
        for t in Table.objects.filter(game=Table.Game.CHEMIN_DE_FER)  # the older games: their own night
    }
    assert {slug: len(states) for slug, states in by_table.items()} == dict.fromkeys(
        ("casino", "classic", "club", "home"), COUPS_PER_TABLE
    )
    assert Counter(by_table["casino"]) == {"settled": 20}
    assert Counter(by_table["classic"]) == {"settled": 19, "withdrawn": 1}
    assert Counter(by_table["club"]) == {"settled": 19, "void": 1}
    assert Counter(by_table["home"]) == {"settled": 20}

    players = {p.display_name: p for p in Player.objects.filter(house=False)}
    start = dict.fromkeys(DEMO, DEMO_BUY_IN) | {"M. Crédit": 0, "Mlle Nouvelle": 500}
    # the club table is charged by the hour (load_demo): each player seated there paid the
    # casino's fee for every clock hour he sat in, billed when the table closed
    fees = _hourly_fees(players)
    assert set(fees) == set(DEMO) and all(fee > 0 and fee % DEMO_HOURLY_FEE == 0 for fee in fees.values())
    assert sum(fees.values()) == account_balance(
        casino=Table.objects.get(name="Club table").casino, kind=Account.Kind.FEE
    )
    expected = {name: start[name] + night.chips[name] - fees.get(name, 0) for name in players}
    balances = chips_by_player(players=players.values())
    assert {name: balances[p.pk] for name, p in players.items()} == expected
    assert expected["M. Crédit"] == -300  # his marker

    # the cage shows his marker
    cashier.page.reload()
    credit = players["M. Crédit"]
    assert cashier.text(f"marker-{credit.pk}") == "Marker 300"
    assert cashier.text(f"chips-{credit.pk}") == "0"

    assert trial_balance().balanced and ledger_drift() == []
    assert all(report.ok for report in audit_chains_verify())  # every chain: the global one, the casino's
    out = io.StringIO()
    call_command("verify_audit", stdout=out)
    assert "audit chain OK" in out.getvalue()
