"""The croupier's tablet at 1024x768, in English, French and Russian, on ``load_demo``'s floor (the
state set by the services, the screens measured in Chromium):

- a seat's row: its chips, its "Bank" badge and its "Leave" button never overlap (in Russian the
  badge, x 150-211, ran under "Уходит", x 199-288, at the casino and the club tables);
- the next action after an impossible-card alarm and a restored coup sent for approval: the bank
  offered to Mme Leroy (accepts, refuses), then her declare (the bank, declare, pass), each wholly
  in the first viewport of the page as it opens (the alarm banner and the "awaiting pit boss
  approval" notice above them put "Mme Leroy отказывается" at y 838-894); the notices are still
  shown, after the actions.

Screenshots go to var/screenshots/rows-<state>-<lang>.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections
from django.urls import reverse

from casino.management.commands.load_demo import DEMO_STAFF
from tables import services
from tables.models import Coup, Player, ShoeAlarm, Table
from tests.browser.test_tablet import MEASURE_JS
from tests.tables.play import Floor, play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
LANGUAGES = ("en", "fr", "ru")
VIEWPORT = {"width": 1024, "height": 768}
SEATED = ("M. Dupont", "Mme Leroy", "Comte Orlov")
#: in each seat row, the boxes that overlap: its chips, its badges, its Leave button, two by two
OVERLAPS_JS = """() => {
    const px = n => Math.round(n * 10) / 10;
    const out = [];
    for (const row of document.querySelectorAll('#seating .seat-row')) {
        const boxes = [...row.querySelectorAll('.seat-chips, .badge, form button')]
            .filter(e => e.getClientRects().length > 0)
            .map(e => [e.innerText.trim(), e.getBoundingClientRect()]);
        for (let i = 0; i < boxes.length; i++) {
            for (let j = i + 1; j < boxes.length; j++) {
                const [a, r] = boxes[i], [b, s] = boxes[j];
                const wide = Math.min(r.right, s.right) - Math.max(r.left, s.left);
                const high = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
                if (wide > 0.5 && high > 0.5) {
                    out.push(`${row.dataset.testid}: "${a}" x ${px(r.left)}..${px(r.right)} over "${b}"`
                        + ` x ${px(s.left)}..${px(s.right)}`);
                }
            }
        }
    }
    return out;
}"""


def _croupier() -> Any:
    return get_user_model().objects.get(username="croupier")


def _seated(name: str, *, bank: bool = True) -> Floor:
    """The demo table ``name`` opened, the demo's three players seated, a shoe started and, when
    ``bank``, the first bank given to seat 1 (M. Dupont)."""
    croupier = _croupier()
    table = Table.objects.get(name=name)
    session = services.table_session_open(actor=croupier, table=table)
    players = {p.display_name: p for p in Player.objects.filter(casino=table.casino, house=False)}
    seats = {
        number: services.seat_take(actor=croupier, session=session, player=players[who], number=number)
        for number, who in enumerate(SEATED, start=1)
    }
    profile = table.profile
    decks = len(seats) if profile.decks_per_seated_player else profile.decks_allowed[0]
    burnt = ("2C", "3C", "4C")[: profile.burn_cards_min]
    shoe = services.shoe_start(actor=croupier, session=session, decks=decks, burnt_cards=burnt)
    if bank:
        services.bank_first_assign(actor=croupier, session=session, seat=seats[1])
    return Floor(croupier=croupier, table=table, session=session, seats=seats, shoe=shoe)


def _tablet(browser: Any, base: str) -> tuple[Any, Any]:
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base}{reverse('login')}")
    page.fill("#id_username", "croupier")
    page.fill("#id_password", DEMO_STAFF["croupier"][0])
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")
    return context, page


def _open(page: Any, base: str, url: str, lang: str) -> None:
    page.context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "url": base}])
    page.goto(url)
    page.wait_for_load_state("load")


def test_a_seat_s_badge_never_runs_under_its_leave_button(demo, live_server, browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    base = live_server.url
    context, page = _tablet(browser, base)
    overlaps: list[str] = []
    badges: list[tuple[str, str, str]] = []
    try:
        for name in ("Casino table", "Club table"):  # the players sit at one table, then the other
            floor = _seated(name)
            table = floor.table
            for lang in LANGUAGES:
                _open(page, base, f"{base}{reverse('floor:table', args=[table.pk])}", lang)
                page.screenshot(path=str(SCREENSHOTS / f"rows-{table.profile.slug}-{lang}.png"))
                overlaps += [f"{table.name} {lang}: {o}" for o in page.evaluate(OVERLAPS_JS)]
                badge = page.get_by_test_id("bank-seat-1")
                leave = page.locator("[data-testid=seat-1] form button")
                assert (badge.count(), leave.count()) == (1, 1)
                # the badge wholly left of the button, or wholly above or below it
                b, button = badge.bounding_box(), leave.bounding_box()
                beside = b["x"] + b["width"] <= button["x"] + 0.5
                below = b["y"] >= button["y"] + button["height"] - 0.5
                apart = below or b["y"] + b["height"] <= button["y"] + 0.5
                if not (beside or apart):
                    overlaps.append(f"{table.name} {lang}: the bank badge {b} meets Leave {button}")
                badges.append((table.profile.slug, lang, badge.inner_text()))
            services.table_session_close(actor=floor.croupier, session=floor.session, reason="next table")
    finally:
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection
    assert overlaps == []
    assert badges == [
        (slug, lang, word)
        for slug in ("casino", "club")
        for lang, word in zip(LANGUAGES, ("Bank", "Banque", "Банк"), strict=True)
    ]


def _alarm_and_restore() -> Floor:
    """At the club table (a deck per seated player: three), M. Dupont banks: a clean coup (an A♠),
    then three more A♠ in a coup where he stands on 3 against the player's 6 (an impossible card:
    the fourth of three decks; the stand confirmed, flagged); the croupier restores it with the 4♣
    he had to draw and sends it for approval: the player wins, the bank is lost and offered to
    seat 2, Mme Leroy."""
    floor = _seated("Club table")
    play(
        floor,
        bank=200,
        bets=[(2, 120), (3, 80)],
        cards=("2H", "AS", "3C", "2D"),
        player="draw",
        player_card="9H",
        banker="draw",
        banker_card="5S",
    )
    flagged = play(
        floor,
        bank=400,
        bets=[(2, 200), (3, 200)],
        cards=("AS", "AS", "AS", "2H"),
        player="draw",
        player_card="6D",
        banker="stand",
        confirm=True,
    )
    services.correction_submit(actor=floor.croupier, coup=flagged, cards=["4C"])
    assert Coup.objects.get(pk=flagged.pk).state == Coup.State.AWAITING_APPROVAL
    assert ShoeAlarm.objects.filter(shoe=floor.shoe, kind=ShoeAlarm.Kind.IMPOSSIBLE_CARD).count() == 1
    return floor


#: the notices below the actions: their tops, and the bottom of the lowest action
NOTICES_JS = """([actions]) => {
    const bottom = Math.max(...actions.map(s => document.querySelector(s).getBoundingClientRect().bottom));
    const tops = [...document.querySelectorAll('[data-testid=alarm], [data-testid=awaiting-approval]')]
        .map(e => e.getBoundingClientRect().top);
    return [tops.length, tops.every(t => t >= bottom)];
}"""


def test_the_next_action_stays_on_screen_after_an_alarm_and_a_restore(demo, live_server, browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    table = _alarm_and_restore().table
    base = live_server.url
    url = f"{base}{reverse('floor:table', args=[table.pk])}"
    context, page = _tablet(browser, base)
    offer = [("accepts", "[data-testid=offer-accept]"), ("refuses", "[data-testid=offer-refuse]")]
    declare = [
        ("bank", "[data-testid=bank-amount]"),
        ("declare", "[data-testid=declare-bank]"),
        ("pass", "[data-testid=pass-bank]"),
    ]
    names = [("asked", "[data-testid=offer-to]")]
    problems: list[str] = []
    notices: list[tuple[str, str, int, bool]] = []
    words: list[str] = []
    try:
        for state, actions in (("offer", offer), ("declare", declare)):
            for lang in LANGUAGES:
                _open(page, base, url, lang)
                page.screenshot(path=str(SCREENSHOTS / f"rows-{state}-{lang}.png"))
                found = page.evaluate(MEASURE_JS, [actions, names if state == "offer" else []])
                problems += [f"{state} {lang}: {p}" for p in found]
                count, below = page.evaluate(NOTICES_JS, [[selector for _, selector in actions]])
                notices.append((state, lang, count, below))
                if state == "offer" and lang == "ru":
                    words = page.locator("[data-testid=bank-offer] .actions .button").all_inner_texts()
            if state == "offer":
                _open(page, base, url, "en")
                with page.expect_response(lambda r: r.request.method == "POST"):
                    page.get_by_test_id("offer-accept").click()
                page.wait_for_selector("[data-testid=declare-bank]")
    finally:
        context.close()
        connections.close_all()
    assert problems == []
    # the alarm and the notice, each shown once, after the actions
    assert notices == [(state, lang, 2, True) for state in ("offer", "declare") for lang in LANGUAGES]
    assert words == ["Mme Leroy принимает", "Mme Leroy отказывается"]
