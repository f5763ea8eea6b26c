"""The croupier's tablet is the croupier's screen (issue section 3), measured in a real browser.

From ``load_demo`` data the croupier logs in with the demo password and walks chemin de fer coups
at the demo "Casino table" through the screens (clicks and typing only): the table opened, four
players seated and a spectator with a long name, the shoe, the first banker, the declare, the
betting, the cards, the player's and the banker's options (with the engine's advice), a natural,
the reveal and its settlement with the next declare, the bank lost and offered, a step against the
rules asked for confirmation, and the restore screen after it. The older games' demo tables
("Macao 1", "Landsknecht 1", "Old baccarat 1") are set in a coup by the services (their own night
is tests/browser/test_older_games_night.py) and their screen measured the same way.

At each state the page is loaded afresh in English, French and Russian (the ``django_language``
cookie), at 1024x768 and 1280x800 (a tablet held landscape), and measured, not scrolled:

- each next action (a button, a field, a rank or suit of the card picker) lies wholly inside the
  first viewport (0 <= top, bottom <= innerHeight, 0 <= left, right <= innerWidth, the page's
  scroll offsets added, so a focused field that scrolled the page does not pass), is at least
  44x44 px (to a hundredth of a pixel), and shows its whole label (``scrollWidth <= clientWidth``);
- each player's name (the seat list, the coup's banker and bettors, the declare panel's banker,
  the bank offer, the settlement, an older game's hands) is shown in full: ``scrollWidth <=
  clientWidth`` on the box that holds it (an inline name measures 0 wide and could never fail: its
  block is measured), on at most three lines;
- no element of the page sticks out past the viewport (nor a button or field past its panel), and
  the page does not scroll sideways;
- chemin de fer's seating forms are open before the first shoe and folded behind their 44 px button
  once play goes on; an older game's hands show the engine's count (points, over 9, the ranks).

Screenshots of every measured screen go to var/screenshots/tablet-<state>-<lang>-<W>x<H>.png.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections
from django.urls import reverse

from casino.management.commands.load_demo import DEMO_STAFF
from ledger.services import cage_buy_in
from older_games import services as game_coups
from tables import services
from tables.models import GameCoup, Player, Table
from tests.browser.test_croupier_flow import ARTIFACTS, Screen

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
LANGUAGES = ("en", "fr", "ru")
SIZES = ((1024, 768), (1280, 800))
#: a spectator's name as long as real ones run (and with no space to break it before the hyphen)
LONG_NAME = "Comte Alexeï Orlov-Davydov"
#: what is measured on a screen: each problem found, described (an empty list: the screen is fine)
MEASURE_JS = """([actions, names]) => {
    const W = window.innerWidth, H = window.innerHeight, sx = window.scrollX, sy = window.scrollY;
    // on the screen: laid out, not the visually-hidden radios, not inside a closed <details>
    // (Chromium lays a closed details' content out, unpainted)
    const shown = e => e.getClientRects().length > 0 && !e.closest('.sr-only')
        && !e.closest('details:not([open]) > :not(summary)') && getComputedStyle(e).visibility !== 'hidden';
    const say = e => `${e.tagName.toLowerCase()}${e.dataset.testid ? '[' + e.dataset.testid + ']' : ''}`
        + `.${[...e.classList].join('.')} "${(e.innerText || e.value || '').trim().slice(0, 40)}"`;
    const px = n => Math.round(n * 10) / 10;
    const problems = [];
    if (sx !== 0 || sy !== 0) { problems.push(`the page opened scrolled to ${sx},${sy}`); }
    for (const [label, selector] of actions) {
        const found = [...document.querySelectorAll(selector)].filter(shown);
        if (!found.length) { problems.push(`action ${label} (${selector}) is not on the screen`); }
        for (const e of found) {
            const r = e.getBoundingClientRect();
            const top = r.top + sy, bottom = r.bottom + sy, left = r.left + sx, right = r.right + sx;
            if (top < -0.5 || bottom > H + 0.5 || left < -0.5 || right > W + 0.5) {
                problems.push(`action ${label} ${say(e)} at x ${px(left)}..${px(right)}, `
                    + `y ${px(top)}..${px(bottom)}: outside the ${W}x${H} viewport`);
            }
            // 44 px less a hundredth of sub-pixel layout: the card picker's ranks, 43.8 px wide
            // at 1024x768, passed a 43.5 allowance
            if (r.height < 43.99 || r.width < 43.99) {
                problems.push(`action ${label} ${say(e)} is ${px(r.width)}x${px(r.height)} px, under 44`);
            }
            if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== 'inline') {
                problems.push(`action ${label} ${say(e)} cut: scrollWidth ${e.scrollWidth}`
                    + ` > clientWidth ${e.clientWidth}`);
            }
        }
    }
    for (const [label, selector] of names) {
        const found = [...document.querySelectorAll(selector)].filter(shown);
        if (!found.length) { problems.push(`name ${label} (${selector}) is not on the screen`); }
        for (const e of found) {
            const r = e.getBoundingClientRect();
            const style = getComputedStyle(e);
            const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.45;
            // an inline name has no width of its own (0: it could never fail): its cell is the box
            // that holds it
            let cell = e;
            while (getComputedStyle(cell).display === 'inline') { cell = cell.parentElement; }
            const lines = style.display === 'inline' ? e.getClientRects().length : r.height / line;
            if (cell.clientWidth === 0) {
                problems.push(`name ${label} ${say(e)} has no width`);
            } else if (cell.scrollWidth > cell.clientWidth) {
                problems.push(`name ${label} ${say(e)} cut: scrollWidth ${cell.scrollWidth}`
                    + ` > clientWidth ${cell.clientWidth}`);
            }
            if (lines > 3.2) {
                problems.push(`name ${label} ${say(e)} runs over ${Math.round(lines)} lines`);
            }
            if (r.right > W + 0.5 || r.left < -0.5) {
                problems.push(`name ${label} ${say(e)} outside the viewport`);
            }
        }
    }
    if (document.documentElement.scrollWidth > W) {
        problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${W}`);
    }
    const wide = [...document.querySelectorAll('body *')].filter(shown)
        .filter(e => {
            const r = e.getBoundingClientRect();
            return r.width > 0 && (r.right > W + 0.5 || r.left < -0.5);
        })
        .filter(e => !e.closest('.table-scroll'));
    for (const e of wide.slice(0, 5)) {
        const r = e.getBoundingClientRect();
        problems.push(`${say(e)} sticks out of the viewport: x ${px(r.left)}..${px(r.right)}`);
    }
    // a control sticking out of its panel (the Russian "Leave" button did): each button and
    // field lies within the panel that holds it
    for (const e of document.querySelectorAll('.panel button, .panel .button, .panel input, .panel select')) {
        if (!shown(e)) { continue; }
        const panel = e.closest('.panel').getBoundingClientRect(), r = e.getBoundingClientRect();
        if (r.right > panel.right + 0.5 || r.left < panel.left - 0.5) {
            problems.push(`${say(e)} sticks out of its panel: x ${px(r.left)}..${px(r.right)}, `
                + `the panel ${px(panel.left)}..${px(panel.right)}`);
        }
    }
    return problems;
}"""


def tid(testid: str) -> str:
    return f"[data-testid={testid}]"


#: the card picker of one card form: its typed field, the 13 ranks and the 4 suits
def picker(form: str) -> list[tuple[str, str]]:
    return [
        ("card field", f"{form} [data-testid=card-input]"),
        ("ranks", f"{form} .rank-btn"),
        ("suits", f"{form} .suit-btn"),
    ]


#: the players of an older game's table: a long name, a short one, a hyphenated one
GAME_PLAYERS = (
    "Comtesse Ekaterina Volkonskaïa",
    "Mlle Ng",
    "Baron Wilhelm von Hohenzollern-Sigmaringen",
    "Dr Sy",
)
SEAT_NAMES = [("seat names", "#seating .seat-name")]
COUP_BANKER = [("coup's banker", ".coup-banker strong")]


@dataclass
class State:
    """A screen to measure: its next actions and its names (label, CSS selector: every element the
    selector finds is measured, and at least one must be shown)."""

    name: str
    actions: list[tuple[str, str]]
    names: list[tuple[str, str]]
    #: a gesture after the page is loaded, before measuring (a confirm panel is a POST's answer)
    then: Callable[[Screen], Any] | None = None
    url: str = ""


@dataclass
class Tablet(Screen):
    """The croupier's tablet and what the test found on it."""

    page: Any
    base: str
    name: str = "croupier"
    problems: list[str] = field(default_factory=list)
    measured: list[str] = field(default_factory=list)
    #: chemin de fer: whether the seating forms should be folded behind their button (open before
    #: the first shoe, folded once play goes on); None: not asked (the older games' screen)
    folded: bool | None = None

    def language(self, lang: str) -> None:
        self.page.context.add_cookies(
            [{"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "url": self.base}]
        )

    def measure(self, state: State) -> None:
        """Load the screen afresh in every language at every size, measure it, screenshot it; then
        back to English at 1024x768, where the walk goes on."""
        url = state.url or self.page.url
        for width, height in SIZES:
            self.page.set_viewport_size({"width": width, "height": height})
            for lang in LANGUAGES:
                self.language(lang)
                self.page.goto(url)
                self.page.wait_for_load_state("load")
                if state.then is not None:
                    state.then(self)
                found = self.page.evaluate(MEASURE_JS, [state.actions, state.names])
                if self.folded is not None:
                    found += self.fold(folded=self.folded)
                self.problems += [f"{state.name} {lang} {width}x{height}: {p}" for p in found]
                shot = SCREENSHOTS / f"tablet-{state.name}-{lang}-{width}x{height}.png"
                self.page.screenshot(path=str(shot))
        self.measured.append(state.name)
        self.page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
        self.language("en")
        self.page.goto(url)
        self.page.wait_for_load_state("load")

    def fold(self, *, folded: bool) -> list[str]:
        """The seating forms: folded (or open) as the state wants, behind a 44 px button."""
        fold = self.page.locator("[data-testid=seating-tools]")
        if fold.count() != 1:
            return ["the seating forms are not behind their button"]
        problems = []
        if (fold.get_attribute("open") is None) != folded:
            want, got = ("folded", "open") if folded else ("open", "folded")
            problems.append(f"the seating forms are {got}, not {want}")
        height = fold.locator("summary").bounding_box()["height"]
        if height < 43.99:
            problems.append(f"the seating forms' button is {height:.1f} px high, under 44")
        return problems


def _login(tablet: Tablet) -> None:
    tablet.page.goto(f"{tablet.base}{reverse('login')}")
    tablet.page.fill("#id_username", "croupier")
    tablet.page.fill("#id_password", DEMO_STAFF["croupier"][0])
    tablet.page.click("main button[type=submit]")
    tablet.page.wait_for_url(f"{tablet.base}/")


def test_the_tablet_shows_every_name_and_every_next_action(demo, live_server, browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
    context.set_default_timeout(10_000)
    tablet = Tablet(context.new_page(), live_server.url)
    started = time.monotonic()
    try:
        _login(tablet)
        _chemin_de_fer(tablet)
        _older_games(tablet)
    except BaseException:
        ARTIFACTS.mkdir(exist_ok=True)
        tablet.page.screenshot(path=str(ARTIFACTS / "tablet.png"), full_page=True)
        raise
    finally:
        print(f"\nthe tablet's screens took {time.monotonic() - started:.1f} s")
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection
    assert tablet.measured == [
        "open",
        "seated",
        "first-banker",
        "declare",
        "betting",
        "betting-covered",
        "cards",
        "player-option",
        "banker-option",
        "reveal",
        "settled",
        "natural",
        "bank-offer",
        "confirm",
        "restore-card",
        "restore-submit",
        "macao",
        "landsknecht",
        "old-baccarat",
    ]
    assert not tablet.problems, f"{len(tablet.problems)} problems:\n" + "\n".join(tablet.problems)


# ------------------------------------------------------------------------------- chemin de fer
def _bettor_actions(keys: list[str]) -> list[tuple[str, str]]:
    out = []
    for key in keys:
        row = tid(f"bettor-{key}")
        out += [
            (f"{key}'s bet field", tid(f"amount-{key}")),
            (f"{key}'s Bet and All", f"{row} .bet-form .button"),
            (f"{key}'s Banco", tid(f"banco-{key}")),
        ]
        if key.startswith("spectator-"):  # a standing punter's bet says the seated round is over
            out.append((f"{key}'s seated round over", f"{row} .check"))
    return out


def _chemin_de_fer(tablet: Tablet) -> None:
    page = tablet.page
    table = Table.objects.get(name="Casino table")
    page.goto(f"{tablet.base}{reverse('floor:table', args=[table.pk])}")
    tablet.click("open-table")
    tablet.folded = False  # nobody seated: the seating forms are open
    # nobody seated yet: the seating forms are open
    tablet.measure(
        State(
            "open",
            actions=[
                ("seat number", "#seat-number"),
                ("seat player", "#seat-player"),
                ("seat", f"{tid('seat-form')} button[type=submit]"),
            ],
            names=[],
        )
    )
    players = {p.display_name: p for p in Player.objects.filter(house=False)}
    for number, name in enumerate(("M. Dupont", "Mme Leroy", "Comte Orlov", "Walk-in"), start=1):
        page.select_option("#seat-number", str(number))
        page.select_option("#seat-player", str(players[name].pk))
        tablet.post(lambda: page.locator(f"{tid('seat-form')} button[type=submit]").click())
        assert name in tablet.text(f"seat-{number}")
    page.fill("#spectator-new-name", LONG_NAME)
    tablet.post(lambda: page.locator(f"{tid('spectator-form')} button[type=submit]").click())
    spectator = next(
        s for s in tablet.page.locator("[data-testid^=spectator-]").all() if LONG_NAME in s.inner_text()
    )
    key = f"spectator-{spectator.get_attribute('data-testid').rsplit('-', 1)[1]}"
    # before the first shoe the forms are still open (more players may come); the shoe's form
    tablet.measure(
        State(
            "seated",
            actions=[("cut by", tid("cut-by")), ("burnt cards", tid("burnt")), ("start", tid("start-shoe"))],
            names=SEAT_NAMES,
        )
    )
    page.select_option(tid("cut-by"), str(players["Mme Leroy"].pk))
    tablet.by("burnt").fill("2c 3d 4h")
    tablet.click("start-shoe")
    tablet.folded = True  # play goes on: the forms fold behind their button
    tablet.measure(
        State(
            "first-banker",
            actions=[
                ("first banker", tid("first-banker")),
                ("give", tid("give-bank")),
                ("house", tid("house-bank")),
            ],
            names=SEAT_NAMES,
        )
    )
    page.select_option(tid("first-banker"), label="Seat 1 · M. Dupont")
    tablet.click("give-bank")
    declare = [("bank", tid("bank-amount")), ("declare", tid("declare-bank")), ("pass", tid("pass-bank"))]
    tablet.measure(
        State("declare", actions=declare, names=[*SEAT_NAMES, ("declare's banker", tid("banker"))])
    )

    # --- coup 1: bets, the player's and the banker's options, the reveal -----------------------
    tablet.declare(200)
    bettors = ["seat-4", "seat-3", "seat-2", key]  # from the banker's right, then standing
    betting_names = [*SEAT_NAMES, *COUP_BANKER, ("bettors", ".bettor-name")]
    tablet.measure(
        State(
            "betting",
            actions=[*_bettor_actions(bettors), ("withdraw the bank", tid("withdraw-bank"))],
            names=betting_names,
        )
    )
    tablet.bet(4, 30)
    tablet.measure(
        State(
            "betting-covered",
            actions=[*_bettor_actions(bettors), ("no more bets", tid("step-bets_closed"))],
            names=betting_names,
        )
    )
    tablet.bet(3, 50)
    tablet.bet(2, 120)
    assert tablet.text("uncovered") == "0"
    tablet.click("step-bets_closed")
    stakes = [("stakes", "[data-testid=stakes] li")]
    tablet.measure(
        State(
            "cards",
            actions=picker(tid("card-form-card_to_player")),
            names=[*SEAT_NAMES, *COUP_BANKER, *stakes],
        )
    )
    for card in ("2h", "as", "3c", "2d"):  # player 5 (his option), banker 3
        tablet.typed_card(card)
    assert tablet.by("advice").is_visible()
    decision_names = [*SEAT_NAMES, *COUP_BANKER, *stakes]
    tablet.measure(
        State(
            "player-option",
            actions=[("player draws", tid("step-player_draw")), ("player stands", tid("step-player_stand"))],
            names=decision_names,
        )
    )
    tablet.click("step-player_draw")
    tablet.typed_card("9h")  # the banker's 3 against a 9: his option
    assert tablet.by("advice").is_visible()
    tablet.measure(
        State(
            "banker-option",
            actions=[("banker draws", tid("step-banker_draw")), ("banker stands", tid("step-banker_stand"))],
            names=decision_names,
        )
    )
    tablet.click("step-banker_draw")
    tablet.typed_card("5s")
    tablet.measure(State("reveal", actions=[("show both hands", tid("step-reveal"))], names=decision_names))
    tablet.click("step-reveal")
    assert tablet.text("outcome") == "Banker wins"
    settle_names = [
        *SEAT_NAMES,
        ("settlement", ".settle td:first-child"),
        ("declare's banker", tid("banker")),
    ]
    tablet.measure(State("settled", actions=declare, names=settle_names))

    # --- coup 2: the player shows a natural, the banker loses the bank ------------------------
    tablet.declare(tablet.amount("bank-minimum"))
    tablet.click("banco-seat-3")
    tablet.click("step-bets_closed")
    for card in ("9d", "2c", "kh", "3d"):  # player 9, banker 5
        tablet.typed_card(card)
    tablet.measure(
        State("natural", actions=[("player's natural", tid("step-player_natural"))], names=decision_names)
    )
    tablet.click("step-player_natural")
    tablet.click("step-reveal")
    assert tablet.text("outcome") == "Player wins"
    tablet.measure(
        State(
            "bank-offer",
            actions=[
                ("accepts", tid("offer-accept")),
                ("refuses", tid("offer-refuse")),
                ("house", tid("house-bank")),
            ],
            names=[*SEAT_NAMES, ("asked", tid("offer-to"))],
        )
    )
    tablet.click("offer-accept")

    # --- coup 3: the banker stands on 5 against a 6, confirmed; the restore screen -------------
    tablet.declare(100)
    bettor = next(k for k in ("seat-4", "seat-3", "seat-2") if page.locator(tid(f"amount-{k}")).count())
    field_ = tablet.by(f"amount-{bettor}")
    field_.fill("100")
    tablet.post(lambda: field_.press("Enter"))
    tablet.click("step-bets_closed")
    for card in ("tc", "3h", "2s", "2d"):  # player 2, banker 5
        tablet.typed_card(card)
    tablet.click("step-player_draw")
    tablet.typed_card("6c")
    tablet.measure(
        State(
            "confirm",
            actions=[("yes, record it", tid("confirm-yes")), ("no, go back", tid("confirm-no"))],
            names=[*SEAT_NAMES, *COUP_BANKER],
            then=lambda t: t.click("step-banker_stand"),
        )
    )
    tablet.click("step-banker_stand")
    tablet.click("confirm-yes")
    tablet.click("step-reveal")
    assert "1 more card needed" in tablet.text("needs-cards")
    tablet.measure(State("restore-card", actions=picker(tid("restore-card-form")), names=SEAT_NAMES))
    # the cards entered for the restore travel with the form, not the database: each load taps it
    tablet.measure(
        State(
            "restore-submit",
            actions=[("submit", tid("submit-restore"))],
            names=SEAT_NAMES,
            then=lambda t: t.tapped_card("4", "H"),
        )
    )
    tablet.tapped_card("4", "H")
    tablet.click("submit-restore")
    assert "awaiting pit boss approval" in tablet.text("awaiting-approval")


# ------------------------------------------------------------------------------- the older games
def _seated(name: str, *, dues: bool = False) -> tuple[Table, Any, list[str]]:
    """The demo table opened, four players of its own seated (the demo's four sit at the casino
    table), bought in at the cage, the fund dues paid if asked, a coup begun: the table, the
    croupier and the coup, the players' keys in seat order."""
    croupier = get_user_model().objects.get(username="croupier")
    table = Table.objects.get(name=name)
    session = services.table_session_open(actor=croupier, table=table)
    keys = []
    for number, player_name in enumerate(GAME_PLAYERS, start=1):
        player = services.player_create(actor=None, casino=table.casino, display_name=player_name)
        cage_buy_in(
            casino=table.casino, player=player, amount=1000, actor=croupier, key=f"tablet:{player.pk}"
        )
        services.seat_take(actor=croupier, session=session, player=player, number=number)
        keys.append(game_coups.player_key(player))
    if dues:
        game_coups.game_fund_collect(actor=croupier, session=session)
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    return table, (croupier, coup), keys


def _steps(who: tuple[Any, GameCoup], steps: list[dict[str, Any]]) -> None:
    croupier, coup = who
    for payload in steps:
        game_coups.game_step_record(actor=croupier, coup=coup, payload=payload)


def _older_games(tablet: Tablet) -> None:
    tablet.folded = None
    game_names = [
        ("seat names", "#seating .seat-name"),
        ("coup's banker", tid("coup-banker")),
        ("hands", "[data-testid=game-hand] .hand-name"),
    ]
    # Macao: the deal done, the first punter over 9 after his card: he can only stand
    table, who, keys = _seated("Macao 1")
    _steps(
        who,
        [{"kind": "deal", "card": c} for c in ("9H", "TD", "4S", "3C")] + [{"kind": "draw", "card": "5D"}],
    )
    tablet.measure(
        State(
            "macao",
            actions=[("stand", f"{tid('step-stand-' + keys[1])} .button")],
            names=game_names,
            url=f"{tablet.base}{reverse('floor:game', args=[table.pk])}",
        )
    )
    points = tablet.page.locator("[data-testid=game-points]").all_inner_texts()
    assert points == ["over 9", "0", "4", "3"], points
    # Landsknecht: staked, covered, three cards turned (the banker's K, the punters' 7, a 3)
    table, who, keys = _seated("Landsknecht 1", dues=True)
    _steps(
        who,
        [
            {"kind": "stake", "amount": 20},
            {"kind": "cover", "player": keys[1], "amount": 20},
            {"kind": "close"},
            *({"kind": "card", "card": c} for c in ("KS", "7H", "3D")),
        ],
    )
    tablet.measure(
        State(
            "landsknecht",
            actions=[
                ("card field", f"{tid('step-card')} [data-testid=card-input]"),
                ("cards", f"{tid('step-card')} .card-btn"),
            ],
            names=game_names[:2],
            url=f"{tablet.base}{reverse('floor:game', args=[table.pk])}",
        )
    )
    assert tablet.page.locator("[data-testid=game-points]").all_inner_texts() == ["K", "7"]
    # old baccarat: three punters staked, the deal done, the first to buy (the banker's right)
    table, who, keys = _seated("Old baccarat 1")
    punters = keys[1:]
    _steps(
        who,
        [
            *({"kind": "stake", "player": k, "amount": 10} for k in punters),
            {"kind": "cut", "player": punters[0]},
            *({"kind": "card", "card": c} for c in ("2H", "4D", "6C", "5S", "KD", "TC", "3S", "AH")),
        ],
    )
    tablet.measure(
        State(
            "old-baccarat",
            actions=[
                ("draw", f"{tid('step-draw-' + punters[2])} .button"),
                ("stand", f"{tid('step-stand-' + punters[2])} .button"),
            ],
            names=game_names,
            url=f"{tablet.base}{reverse('floor:game', args=[table.pk])}",
        )
    )
    assert tablet.page.locator("[data-testid=game-points]").all_inner_texts() == ["5", "4", "6", "6"]
