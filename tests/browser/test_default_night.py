"""A night on the README's default, through the screens only: ``make run`` as a new user gets it
(the README's settings module, SQLite, Celery tasks in-process, ``load_demo``'s data), served by
``make run`` itself in another process (tests/browser/default_server.py), played in Chromium.

At each of the four chemin de fer demo tables (casino, classic, club, home), at least ten coups
settled, among them: a bank withdrawn without a deal (nobody bets), a typo amended (20 typed for a
bet of 200), a wrong draw (the banker stands on 2 when the tableau says draw) confirmed, flagged,
restored with the shoe's next card and approved by the pit boss in the queue, a bank passed and
taken by the next player at a bank of his own, and a spectator's bet where the table's rules let
spectators bet (casino, club: with the banker's consent; classic and home forbid it, and the
screen says so). One coup at each older game's demo table (Macao, Landsknecht, old baccarat). At
the cage, a new spectator bought in and a player cashed out. Then the accountant generates
today's levy report in CSV, XLSX and PDF on the reports page and downloads them, and today's fees
report: the club's demo table is charged by the hour, so its players' fees are in it.

Nothing is read from the database directly: what the test checks afterwards it asks of the
commands a user would run on that database (``trial_balance --json``, ``verify_audit``,
``verify_books``), of the screens and of the downloaded files:
- every player's chips are what the test's own account of the night says, chip for chip;
- the levy report's total, in each of the three formats, is the levy account of ``trial_balance``;
- the ledger balances, the audit chain and the books verify;
- the server answered no request with a 500 (its log is read), and the browser met no
  Content-Security-Policy violation and no resource that failed to load (its console is read).
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from casino.management.commands.load_demo import DEMO_BUY_IN, DEMO_HOURLY_FEE, DEMO_STAFF, GAME_TABLES
from tables.models import Table
from tests.browser.default_server import DefaultServer, default_server
from tests.browser.test_croupier_flow import ARTIFACTS, Screen
from tests.browser.test_older_games_night import GameCroupier
from tests.browser.test_whole_night import DEMO, Croupier, Ledger

pytestmark = [pytest.mark.browser, pytest.mark.poppler, pytest.mark.default_night, pytest.mark.slow]

COUPS_PER_TABLE = 10  # settled, at least, at each chemin de fer table
SPECTATOR = "Mlle Spectatrice"  # a newcomer: seen at the casino table, bought in at the cage
SPECTATOR_BUY_IN = 1_000
CASH_OUT = ("Walk-in", 700)  # who cashes out at the end of the night, and how many chips


#: reported as a console error, which the test collects: the browser blocks a violation silently
CSP_LISTENER = """document.addEventListener('securitypolicyviolation', (e) => console.error(
    'Content-Security-Policy violation: ' + e.violatedDirective + ' ' + e.blockedURI + ' '
    + (e.sample || '')));"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DefaultServer]:
    with default_server(tmp_path_factory.mktemp("make-run")) as running:
        yield running


class NightCroupier(Croupier):
    """The croupier's gestures of tests/browser/test_whole_night.py, on a server whose database
    this test does not read: every fact comes from the screen."""

    def coup(  # type: ignore[override]  # the same gestures; nothing read back from the database
        self,
        winner: str,
        *,
        bank: int | None = None,
        bets: list[tuple[int, int]] | None = None,
        taken: bool = True,
    ) -> None:
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
            banker=banker, bets=[(self.seats[s], a) for s, a in bets], winner=winner, levy_bp=self.levy_bp
        )
        assert self.text("levy") == f"{levy:,}"
        if winner == "player" and taken:  # the bank is lost: offered in turn, the one asked takes it
            self.accept_offer()

    def open_seating(self) -> None:
        """The seating forms, folded behind one button while play goes on."""
        fold = self.page.locator("[data-testid=seating-tools]")
        if fold.count() and fold.get_attribute("open") is None:
            fold.locator("summary").click()

    def seat(self, number: int, name: str, *, new: bool = False) -> None:
        self.open_seating()
        super().seat(number, name, new=new)

    def spectator_joins(self, name: str, *, new: bool = False) -> str:
        """A spectator joins; returns his key in the betting order (``spectator-<id>``)."""
        self.open_seating()
        if new:
            self.page.select_option("#spectator-player", "")
            self.page.fill("#spectator-new-name", name)
        else:
            self.page.select_option("#spectator-player", label=name)
        self.post(lambda: self.page.locator("[data-testid=spectator-form] button[type=submit]").click())
        row = self.page.locator("[data-testid^=spectator-]", has_text=name).first
        testid = row.get_attribute("data-testid")
        assert testid is not None and testid.startswith("spectator-"), testid
        return testid

    def spectator_leaves(self, key: str, name: str) -> None:
        self.post(lambda: self.page.get_by_role("button", name=f"{name} leaves").click())
        assert self.page.locator(f"[data-testid={key}]").count() == 0

    def restore_wrong_stand(self) -> int:
        """The banker stands on 2 against the player's third card 6, where every table's tableau
        says draw: confirmed, flagged, revealed, restored with the shoe's next card (a 7: the
        banker's 9 beats the player's 8). Returns the coup's id, as the restore panel names it."""
        amount = max(self.amount("bank-minimum"), 100)
        self.declare(amount)
        banker = self.holder
        seat = self.punters()[0]
        self.bet(seat, amount)
        self.click("step-bets_closed")
        p1, p2 = self.shoe.hand(2)
        b1, b2 = self.shoe.hand(2)
        for card in (p1, b1, p2, b2):
            self.typed_card(card)
        self.click("step-player_draw")
        self.typed_card(self.shoe.card(6))
        self.click("step-banker_stand")
        assert self.by("confirm-violation").is_visible()
        self.click("confirm-yes")
        self.click("step-reveal")
        seven = self.shoe.card(7)
        self.tapped_card(seven[0], seven[1])
        assert self.text("restored-outcome").endswith("8 to 9"), self.text("restored-outcome")
        coup_id = int(self.by("restore").get_attribute("data-coup") or 0)
        self.click("submit-restore")
        bets = [(self.seats[seat], amount)]
        self.night.coup(banker=banker, bets=bets, winner="banker", levy_bp=self.levy_bp)
        return coup_id


def _login(screen: Screen, username: str) -> None:
    screen.page.goto(f"{screen.base}{reverse('login')}")
    screen.page.fill("#id_username", username)
    screen.page.fill("#id_password", DEMO_STAFF[username][0])
    screen.page.click("main button[type=submit]")
    screen.page.wait_for_url(f"{screen.base}/")


def _approve(pit_boss: Screen, coup_id: int) -> None:
    """The pit boss approves the restored coup from his queue."""
    pit_boss.page.goto(f"{pit_boss.base}{reverse('review:queue')}")
    row = pit_boss.page.locator(f"#queue-coup-{coup_id}")
    pit_boss.post(lambda: row.get_by_role("button", name="Approve").click())
    assert "approved" in pit_boss.page.locator(f"#queue-coup-{coup_id}").inner_text().lower()


def _buy_in(cashier: Screen, name: str, amount: int) -> None:
    cashier.page.goto(f"{cashier.base}/")
    cashier.page.click("[data-testid=go-cage]")
    cashier.page.wait_for_url(re.compile(r"/cage/\d+/$"))
    row = cashier.page.locator(".cage-row", has_text=name)
    field = row.locator("[data-testid^=buy-in-amount-]")
    field.fill(str(amount))
    cashier.post(lambda: field.press("Enter"))
    cashier.post(lambda: row.get_by_role("button", name="Confirm buy-in").click())
    assert f"bought in {amount:,} chips" in row.locator("[data-testid^=cage-notice-]").inner_text()


def _cash_out(cashier: Screen, name: str, amount: int) -> None:
    cashier.page.goto(f"{cashier.base}/")
    cashier.page.click("[data-testid=go-cage]")
    cashier.page.wait_for_url(re.compile(r"/cage/\d+/$"))
    row = cashier.page.locator(".cage-row", has_text=name)
    before = int(row.locator("[data-testid^=chips-]").inner_text().replace(",", ""))  # "1,250"
    field = row.locator("[data-testid^=cash-out-amount-]")
    field.fill(str(amount))
    cashier.post(lambda: field.press("Enter"))
    cashier.post(lambda: row.get_by_role("button", name="Confirm cash-out").click())
    after = cashier.page.locator(".cage-row", has_text=name).locator("[data-testid^=chips-]").inner_text()
    assert after == f"{before - amount:,}"


# ------------------------------------------------------------------------------------ one table
def _table(
    croupier: NightCroupier,
    pit_boss: Screen,
    cashier: Screen,
    name: str,
    *,
    levy_bp: int,
    decks: int,
    burnt: int = 0,
    spectator: str = "",
) -> None:
    """Ten coups or more at one chemin de fer table, with every event the night asks for."""
    croupier.sit_down(name, levy_bp=levy_bp)
    for number, player in enumerate(DEMO, start=1):
        croupier.seat(number, player)
    key = ""
    if spectator == "new":  # a newcomer stands; he has no chips until the cashier sells him some
        key = croupier.spectator_joins(SPECTATOR, new=True)
        _buy_in(cashier, SPECTATOR, SPECTATOR_BUY_IN)
        croupier.page.reload()
        assert croupier.text(f"chips-{key}") == f"{SPECTATOR_BUY_IN:,}"
    elif spectator:
        key = croupier.spectator_joins(SPECTATOR)
    else:  # the rules of this table forbid spectators' bets, and the screen says so
        assert "Spectators do not bet" in croupier.by("seating").inner_text()
    croupier.start_shoe(decks=decks, burnt=burnt)
    croupier.first_banker(1)
    settled = 0

    # a bank nobody takes: withdrawn without a deal, the banker keeps it
    holder = croupier.banker()
    croupier.declare(max(croupier.amount("bank-minimum"), 150))
    croupier.click("withdraw-bank")
    assert croupier.banker() == holder

    croupier.coup("banker")
    settled += 1

    # a typo: 20 typed for a bet of 200, amended before the deal; the wrong step stays, struck through
    croupier.declare(max(croupier.amount("bank-minimum"), 200))
    seat = croupier.punters()[0]
    bank = croupier.amount("bank")
    croupier.bet(seat, 20)
    index = croupier.history_index("20")
    croupier.amend(index, "typed 20 for the whole bank", amount=bank)
    assert croupier.text("uncovered") == "0"
    croupier.click("step-bets_closed")
    banker = croupier.holder
    croupier.deal("banker")
    croupier.night.coup(banker=banker, bets=[(croupier.seats[seat], bank)], winner="banker", levy_bp=levy_bp)
    settled += 1

    # a wrong draw: flagged, restored from the shoe, approved by the pit boss
    coup_id = croupier.restore_wrong_stand()
    _approve(pit_boss, coup_id)
    croupier.page.reload()
    settled += 1

    # the bank passed after a win: the next player takes it at a bank of his own (or the
    # continuation where the rules say so: the home series)
    croupier.click("pass-bank")
    minimum = croupier.amount("offer-minimum")
    croupier.accept_offer()
    croupier.coup("player", bank=max(minimum, 100))
    settled += 1

    if key:  # a spectator's bet, after every seated punter has had the turn
        amount = max(croupier.amount("bank-minimum"), 200)
        croupier.declare(amount)
        banker = croupier.holder
        seat = croupier.punters()[0]
        croupier.bet(seat, amount // 2)
        field = croupier.by(f"amount-{key}")
        field.fill(str(amount - amount // 2))
        croupier.page.locator(f"[data-testid=seated-round-over-{key}]").check()
        consent = croupier.page.locator(f"[data-testid=consent-{key}]")
        if consent.count():
            consent.check()
        croupier.post(lambda: field.press("Enter"))
        errors = croupier.page.locator("[data-testid=error]").all_inner_texts()
        assert croupier.text("uncovered") == "0", errors
        croupier.click("step-bets_closed")
        croupier.deal("player")
        croupier.night.coup(
            banker=banker,
            bets=[(croupier.seats[seat], amount // 2), (SPECTATOR, amount - amount // 2)],
            winner="player",
            levy_bp=levy_bp,
        )
        croupier.accept_offer()
        settled += 1

    while settled < COUPS_PER_TABLE:
        croupier.coup("banker" if settled % 2 else "player")
        settled += 1
    if key:
        croupier.spectator_leaves(key, SPECTATOR)
    croupier.close_table()


# ------------------------------------------------------------------------------------ the reports
def _levy_reports(accountant: Screen) -> dict[str, bytes]:
    """Today's levy report of the demo casino in CSV, XLSX and PDF: generated on the reports
    page (in-process under make run: no worker), downloaded from its history."""
    page = accountant.page
    page.goto(f"{accountant.base}{reverse('review:exports')}")
    files: dict[str, bytes] = {}
    for fmt in ("csv", "xlsx", "pdf"):
        page.select_option("select[name=kind]", "levy")
        page.select_option("select[name=casino]", index=1)
        assert page.locator("select[name=preset]").input_value() == "today"  # the page's default
        page.select_option("select[name=fmt]", fmt)
        accountant.post(lambda: page.get_by_role("button", name="Generate").click())
        row = page.locator("[data-testid=report-run]").first  # the history, newest first
        assert fmt.upper() in row.inner_text()
        page.wait_for_selector("[data-testid=report-run]:first-child[data-status=finished]", timeout=60_000)
        with page.expect_download() as download:
            row.locator("[data-testid=report-run-download]").click()
        files[fmt] = download.value.path().read_bytes()
    return files


def _fees_paid(accountant: Screen) -> dict[str, int]:
    """Today's hourly fees per player, from the fees report (CSV) generated on the reports page:
    the club's demo table is charged by the hour (load_demo), billed when it closes."""
    page = accountant.page
    page.goto(f"{accountant.base}{reverse('review:exports')}")
    page.select_option("select[name=kind]", "fees")
    page.select_option("select[name=casino]", index=1)
    page.select_option("select[name=fmt]", "csv")
    accountant.post(lambda: page.get_by_role("button", name="Generate").click())
    page.wait_for_selector("[data-testid=report-run]:first-child[data-status=finished]", timeout=60_000)
    with page.expect_download() as download:
        page.locator("[data-testid=report-run]").first.locator("[data-testid=report-run-download]").click()
    rows = list(csv.reader(io.StringIO(download.value.path().read_bytes().decode("utf-8-sig"))))
    header = next(r for r in rows if r and r[0] == "line")
    kind, player, amount = (header.index(c) for c in ("kind", "player", "amount"))
    paid: dict[str, int] = {}
    for r in rows:
        if r and r[0] == "data":
            assert r[kind] == "hourly fee" and r[header.index("table")] == "Club table", r
            paid[r[player]] = paid.get(r[player], 0) + int(r[amount])
    return paid


def _period_levy(files: dict[str, bytes], tmp: Path) -> dict[str, int]:
    """The period's levy for all tables, as each format says it."""
    found: dict[str, int] = {}
    rows = list(csv.reader(io.StringIO(files["csv"].decode("utf-8-sig"))))
    # the CSV's lines start with their kind: "total,period,,all tables,coups,…,levy"
    period = next(r for r in rows if r[:2] == ["total", "period"] and r[3] == "all tables")
    found["csv"] = int(period[7])
    sheet = load_workbook(io.BytesIO(files["xlsx"])).active
    assert sheet is not None
    cells = [[c.value for c in r] for r in sheet.iter_rows()]
    levy = next(r for r in cells if r[0] == "period" and r[2] == "all tables")[6]
    assert isinstance(levy, int)  # a number cell, not text
    found["xlsx"] = levy
    pdf = tmp / "levy.pdf"
    pdf.write_bytes(files["pdf"])
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True).stdout
    lines = text.decode().splitlines()
    line = next(x for x in lines if x.lstrip().startswith("period") and "all tables" in x)
    found["pdf"] = int(line.split()[-1].replace(",", ""))  # the levy is the last column ("1,250")
    return found


def _balances(server: DefaultServer) -> dict[str, int]:
    """Every account's balance, by the trial balance's account label (``player: Name (#id)``)."""
    out = server.manage("trial_balance", "--json").stdout
    return {a["account"]: a["balance"] for a in json.loads(out)["accounts"]}


def _player_chips(balances: dict[str, int]) -> dict[str, int]:
    return {
        re.sub(r"^player: (.*) \(#\d+\)$", r"\1", account): balance
        for account, balance in balances.items()
        if account.startswith("player: ")
    }


# ------------------------------------------------------------------------------------ the night
def test_a_night_on_the_readmes_default(server: DefaultServer, browser: Any, tmp_path: Path) -> None:
    contexts = [browser.new_context(viewport={"width": 1024, "height": 768}) for _ in range(4)]
    complaints: list[str] = []  # what the browser said went wrong: a policy violation, a failed load
    for context in contexts:
        context.set_default_timeout(15_000)
        context.add_init_script(CSP_LISTENER)
    pages = [context.new_page() for context in contexts]
    for page in pages:
        page.on("console", lambda m: complaints.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: complaints.append(f"page error: {e}"))
    night = Ledger()
    croupier = NightCroupier(pages[0], server.url, night)
    pit_boss = Screen(pages[1], server.url, "pit-boss")
    cashier = Screen(pages[2], server.url, "cashier")
    accountant = Screen(pages[3], server.url, "accountant")
    started = time.monotonic()
    try:
        for screen, username in ((croupier, "croupier"), (pit_boss, "pitboss"), (cashier, "cashier")):
            _login(screen, username)
        _login(accountant, "accountant")
        _table(croupier, pit_boss, cashier, "Casino table", levy_bp=500, decks=6, burnt=3, spectator="new")
        _table(croupier, pit_boss, cashier, "Classic table", levy_bp=0, decks=6)
        _table(croupier, pit_boss, cashier, "Club table", levy_bp=0, decks=4, spectator="again")
        _table(croupier, pit_boss, cashier, "Home table", levy_bp=0, decks=6)
        name, amount = CASH_OUT
        _cash_out(cashier, name, amount)

        # every chip where the night's account says: the demo players' buy-ins, the newcomer's,
        # less the hourly fees of the club table (the fees report says who paid what)
        fees = _fees_paid(accountant)
        assert set(fees) == set(DEMO) and all(fee > 0 and fee % DEMO_HOURLY_FEE == 0 for fee in fees.values())
        start = dict.fromkeys(DEMO, DEMO_BUY_IN) | {SPECTATOR: SPECTATOR_BUY_IN}
        expected = {player: start[player] + night.chips[player] - fees.get(player, 0) for player in start}
        expected[name] -= amount
        balances = _balances(server)
        chips = _player_chips(balances)
        assert {player: chips[player] for player in expected} == expected
        assert sum(b for account, b in balances.items() if account.startswith("fee")) == sum(fees.values())

        # one coup at each older game: the chips move among the players and the tables' own
        # accounts (Landsknecht's fund, old baccarat's pool), and every coup settles
        for seed, table in enumerate(GAME_TABLES, start=1):
            game = GameCroupier(croupier.page, server.url, seed)
            game.sit_down(table)
            if GAME_TABLES[table][0] == Table.Game.LANDSKNECHT:
                game.collect_dues()
            game.coup()
            assert game.page.locator("[data-testid=game-coup]").count() == 0  # settled: no coup in play
            game.close_table()  # its players sit at the next game's table

        files = _levy_reports(accountant)
        balances = _balances(server)
        levy = sum(balance for account, balance in balances.items() if account.startswith("levy"))
        assert levy == night.levy > 0
        assert _period_levy(files, tmp_path) == {"csv": levy, "xlsx": levy, "pdf": levy}
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        for screen in (croupier, pit_boss, cashier, accountant):
            screen.page.screenshot(path=str(ARTIFACTS / f"default-night-{screen.name}.png"), full_page=True)
        raise
    finally:
        print(f"\nthe night on make run took {time.monotonic() - started:.1f} s")
        for context in contexts:
            context.close()

    # no Content-Security-Policy violation on any page or swap, no resource that failed to load
    assert complaints == []
    server.assert_sound()
