"""A night at the older games' demo tables (Macao, Landsknecht, old baccarat), by clicks only.

From ``load_demo`` data: the croupier logs in on the login page with the demo password, opens each
older game's demo table from "my table", opens it, seats the four demo players, collects
Landsknecht's fund dues, and plays 20 coups per game on the one game screen (older_games.views):
each step is a seeded random choice among the controls the page shows (the card picker's enabled
cards taken from a seeded shuffled shoe, now and then typed on the keyboard; an amount from the
quick buttons or typed within its bounds; a choice's button). Every step is an htmx swap of the
screen's body, never a page load.

The database is only read, to assert exact facts: 20 settled coups per table, each coup's postings
sum to zero, the players' balance changes plus the fund's and the pool's sum to zero, the offline
judge finds no violation in any coup's record, and ``verify_audit`` passes. Each game's 20 coups
are timed (``-s`` prints them). On failure the page is saved in test-artifacts/.
"""

from __future__ import annotations

import io
import random
import time
from collections import Counter
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from django.db.models import Sum
from django.urls import reverse

from casino.management.commands.load_demo import DEMO_STAFF, GAME_TABLES
from ledger.models import Account, Entry, Transaction
from ledger.selectors import chips_by_player, ledger_drift, trial_balance
from older_games.engine.game_play import play_for
from tables.models import GameCoup, Player, Table
from tests.browser.test_croupier_flow import ARTIFACTS

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DEMO = ("M. Dupont", "Mme Leroy", "Comte Orlov", "Walk-in")  # load_demo's players, seats 1 to 4
COUPS_PER_TABLE = 20
RANKS = "A23456789TJQK"
SUITS = "SHDC"
#: how often each kind of step is chosen among those offered (a stand ends a Macao hand, a close
#: the Landsknecht covers, a take the Landsknecht banker's run); nobody leaves the old baccarat
#: table, so it keeps its four players for the 20 coups (tests/tables/games covers leave)
WEIGHTS = {"stand": 3, "draw": 2, "discard": 1, "stake": 3, "cover": 3, "close": 1, "cut": 1, "leave": 0}
#: the controls the screen shows now, as the test chooses among them (one round trip)
CONTROLS_JS = """() => {
    // null (wait on) while a request is out or its answer is being swapped in
    if (document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')) { return null; }
    if (!document.querySelector('#game-panel')) { return null; }
    if (!document.querySelector('[data-testid=game-coup]')) {
        const start = document.querySelector('[data-testid=start-coup]');
        return {coup: false, start: !!start && !start.disabled};
    }
    return {coup: true, controls: [...document.querySelectorAll('#game-panel form.game-step')].map(f => ({
        testid: f.dataset.testid,
        kind: f.dataset.kind,
        widget: f.classList.contains('card-form') ? 'card'
            : f.classList.contains('amount-form') ? 'amount'
            : f.classList.contains('choice-form') ? 'choice' : 'button',
        cards: [...f.querySelectorAll('button[data-card]:not([disabled])')].map(b => b.dataset.card),
        amounts: [...f.querySelectorAll('button[data-amount]')].map(b => +b.dataset.amount),
        min: f.querySelector('input[name=amount]')?.min || '',
        max: f.querySelector('input[name=amount]')?.max || '',
        choices: [...f.querySelectorAll('button[data-choice]')].map(b => b.dataset.choice),
    }))};
}"""


class Shoe:
    """A seeded shuffled shoe: the next card the picker allows is dealt (the others stay, in order)."""

    def __init__(self, rng: random.Random, decks: int = 8) -> None:
        self.rng, self.decks = rng, decks
        self.cards: list[str] = []

    def deal(self, allowed: list[str]) -> str:
        allowed_set = set(allowed)
        for _ in range(2):
            for i, card in enumerate(self.cards):
                if card in allowed_set:
                    return self.cards.pop(i)
            self.cards = [r + s for r in RANKS for s in SUITS] * self.decks  # a fresh shoe
            self.rng.shuffle(self.cards)
        raise AssertionError(f"the picker allows no card: {allowed}")


class GameCroupier:
    """The croupier's tablet at an older game's table: clicks only, each one swapping the body."""

    def __init__(self, page: Any, base: str, seed: int) -> None:
        self.page, self.base = page, base
        self.rng = random.Random(seed)
        self.shoe = Shoe(self.rng)
        self.steps = 0
        self.typed_cards = 0

    def post(self, action: Any) -> Any:
        """Do ``action``; its POST must be answered 200 (the swap is awaited by :meth:`controls`)."""
        with self.page.expect_response(lambda r: r.request.method == "POST") as answer:
            action()
        status = answer.value.status
        if status != 200:
            self.controls()
            raise AssertionError(f"{answer.value.url} answered {status}: {self.error()}")
        return answer.value

    def error(self) -> str:
        errors = self.page.locator("[data-testid=error], [data-testid=notice]")
        return " | ".join(errors.all_inner_texts())

    def by(self, testid: str) -> Any:
        return self.page.get_by_test_id(testid)

    def controls(self) -> dict[str, Any]:
        """What the screen offers once the last answer is swapped in (one round trip)."""
        state: dict[str, Any] = self.page.wait_for_function(CONTROLS_JS, polling="raf").json_value()
        return state

    # ------------------------------------------------------------------ between coups
    def sit_down(self, name: str) -> None:
        self.page.goto(f"{self.base}{reverse('floor:mine')}")
        self.page.get_by_role("link", name=name).click()
        self.page.wait_for_selector("[data-testid=game-body]")
        # htmx is deferred: until the page's load its buttons would submit as plain forms (a 303)
        self.page.wait_for_load_state("load")
        self.post(lambda: self.by("open-table").click())
        for name in DEMO:
            self.controls()
            self.page.select_option("#seat-player", label=name)
            self.post(lambda: self.by("seat-submit").click())

    def close_table(self) -> None:
        """The coups over, the table closes: its players may sit at the next one (a player is at
        one table at a time)."""
        self.controls()
        self.page.locator("summary", has_text="Close table…").click()
        self.post(lambda: self.by("close-table").click())
        # the answer is in; its swap may not be: wait for the closed table's one way forward
        # (a refusal would leave the close form on screen and time this out with its sentence)
        try:
            self.by("open-table").wait_for(state="visible", timeout=15_000)
        except Exception as refused:
            raise AssertionError(f"the table did not close: {self.error()}") from refused

    def collect_dues(self) -> None:
        self.controls()
        self.post(lambda: self.by("collect-dues").click())

    # ------------------------------------------------------------------ a coup
    def coup(self) -> None:
        state = self.controls()
        assert not state["coup"] and state["start"], f"no coup can start: {self.error()}"
        self.post(lambda: self.by("start-coup").click())
        for _ in range(200):
            state = self.controls()
            if not state["coup"]:
                return
            self.step(state["controls"])
        raise AssertionError("a coup of 200 steps")

    def step(self, controls: list[dict[str, Any]]) -> None:
        assert controls, "a coup in play offers a step"
        weights = [WEIGHTS.get(c["kind"], 1) for c in controls]
        c = self.rng.choices(controls, weights)[0]
        form = self.page.locator(f"#game-panel form[data-testid='{c['testid']}']")
        self.steps += 1
        if c["widget"] == "card":
            card = self.shoe.deal(c["cards"])
            if self.rng.random() < 0.1:  # typed, as a croupier with a keyboard does: the code, Enter
                self.typed_cards += 1
                form.locator("input[name=typed]").fill(card.lower())
                self.post(lambda: form.locator("input[name=typed]").press("Enter"))
            else:
                self.post(lambda: form.locator(f"button[data-card='{card}']").click())
        elif c["widget"] == "amount":
            if c["amounts"] and self.rng.random() < 0.7:
                amount = self.rng.choice(c["amounts"])
                self.post(lambda: form.locator(f"button[data-amount='{amount}']").click())
            else:
                low = int(c["min"] or 1)
                high = int(c["max"]) if c["max"] else low * 5
                # a cover takes any amount in its range; a Landsknecht stake after a take only the
                # two amounts offered (the sum taken or the minimum), although its range spans both
                typed = self.rng.randint(low, max(low, high)) if c["kind"] == "cover" else None
                if typed is None:
                    typed = self.rng.choice(c["amounts"]) if c["amounts"] else low
                form.locator("input[name=amount]").fill(str(typed))
                self.post(lambda: form.get_by_test_id("submit").click())
        elif c["widget"] == "choice":
            # Landsknecht's winning banker mostly takes the pot: "again" doubles what he risks
            choice = (
                "take"
                if "take" in c["choices"] and self.rng.random() < 0.75
                else self.rng.choice(c["choices"])
            )
            self.post(lambda: form.locator(f"button[data-choice='{choice}']").click())
        else:
            self.post(lambda: form.get_by_test_id("submit").click())


def _login(page: Any, base: str) -> None:
    page.goto(f"{base}{reverse('login')}")
    page.fill("#id_username", "croupier")
    page.fill("#id_password", DEMO_STAFF["croupier"][0])
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")


def _table_accounts() -> dict[int, int]:
    """The balances of the tables' own accounts: Landsknecht's reserve fund, old baccarat's tie pool."""
    return dict(
        Account.objects.filter(kind__in=[Account.Kind.FUND, Account.Kind.POOL]).values_list("pk", "balance")
    )


def test_twenty_coups_of_each_older_game_by_clicks(demo, live_server, browser) -> None:
    base = live_server.url
    players = list(Player.objects.filter(display_name__in=DEMO))
    chips_before = chips_by_player(players=players)
    tables_before = _table_accounts()
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.set_default_timeout(10_000)
    page = context.new_page()
    timings: dict[str, float] = {}
    steps: Counter[str] = Counter()
    try:
        _login(page, base)
        for seed, name in enumerate(GAME_TABLES, start=1):
            croupier = GameCroupier(page, base, seed)
            croupier.sit_down(name)
            if GAME_TABLES[name][0] == Table.Game.LANDSKNECHT:
                croupier.collect_dues()
            started = time.monotonic()
            for _ in range(COUPS_PER_TABLE):
                croupier.coup()
            timings[name] = time.monotonic() - started
            steps[name] = croupier.steps
            assert croupier.typed_cards > 0  # the keyboard's entry was used too
            croupier.close_table()
        _assert_the_night(players, chips_before, tables_before)
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "older-games-night.png"), full_page=True)
        raise
    finally:
        for name, seconds in timings.items():
            print(f"\n{name}: {COUPS_PER_TABLE} coups, {steps[name]} steps by clicks in {seconds:.1f} s")
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection


def _assert_the_night(
    players: list[Player], chips_before: dict[int, int], tables_before: dict[int, int]
) -> None:
    for name, (game, _settings) in GAME_TABLES.items():
        coups = GameCoup.objects.filter(table__name=name)
        assert (coups.count(), coups.filter(state=GameCoup.State.SETTLED).count()) == (20, 20), name
        play = play_for(game)
        for coup in coups:
            # every coup's settlement is posted (even when nothing moves), its postings sum to zero
            assert Transaction.objects.filter(game_coup=coup, kind=Transaction.Kind.GAME_SETTLEMENT).exists()
            entries = Entry.objects.filter(transaction__game_coup=coup)
            assert (entries.aggregate(s=Sum("amount"))["s"] or 0) == 0, coup
            # the offline judge finds nothing wrong in the coup's record
            assert coup.record is not None
            verdict = play.verdict(play.settings(coup.house_settings), coup.record)
            assert verdict["violations"] == [], (coup, verdict)
    # what the players won and lost, the fund dues and the pool: it all sums to zero
    chips_after = chips_by_player(players=players)
    tables_after = _table_accounts()
    player_change = sum(chips_after[p.pk] - chips_before[p.pk] for p in players)
    table_change = sum(b - tables_before.get(pk, 0) for pk, b in tables_after.items())
    assert player_change + table_change == 0
    assert any(chips_after[p.pk] != chips_before[p.pk] for p in players)  # chips did move
    assert trial_balance().balanced and ledger_drift() == []
    out = io.StringIO()
    call_command("verify_audit", stdout=out)
    assert "audit chain OK" in out.getvalue()
