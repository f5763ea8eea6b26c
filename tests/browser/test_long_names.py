"""A player's name as long as the form takes (80 characters, no space to break it at) does not
push the croupier's screen past the tablet's 1024 px: it wraps inside its box, the page does not
scroll sideways and every button stays on screen (a sweep found the seat row run under the shoe
panel, "Leave" at x = 1115, and Macao's first-bank draw 1,110 px wide)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from casino.management.commands.load_demo import DEMO_STAFF
from ledger.services import cage_buy_in
from tables import services
from tables.models import Table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: as long as SeatForm's ``new_name`` takes, in one unbreakable word
LONG = "X" * 80

#: the page's width, and each button (its label) reaching past the window's right edge
OUT_OF_WINDOW = """() => ({
  width: document.documentElement.scrollWidth,
  out: [...document.querySelectorAll('button, .button, input, select')]
    .filter(e => e.offsetParent !== null && e.getBoundingClientRect().right > window.innerWidth + 0.5)
    .map(e => (e.innerText || e.name || e.id).trim().slice(0, 40)),
})"""


def _tablet(browser: Any, base: str, lang: str) -> tuple[Any, Any]:
    """The croupier's tablet (1024x768) in ``lang``, signed in: its context and page."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page = context.new_page()
    page.goto(f"{base}{reverse('login')}")
    page.fill("#id_username", "croupier")
    page.fill("#id_password", DEMO_STAFF["croupier"][0])
    page.click("main button[type=submit]")
    page.wait_for_url(f"{base}/")
    return context, page


def _seated(table_name: str) -> Table:
    """The demo table opened, a player of that long name and two others seated, bought in."""
    croupier = get_user_model().objects.get(username="croupier")
    table = Table.objects.get(name=table_name)
    session = services.table_session_open(actor=croupier, table=table)
    for number, name in enumerate((LONG, "Mlle Ng", f"{LONG[:40]} {LONG[:39]}"), start=1):
        player = services.player_create(actor=None, casino=table.casino, display_name=name)
        cage_buy_in(casino=table.casino, player=player, amount=1000, actor=croupier, key=f"long:{player.pk}")
        services.seat_take(actor=croupier, session=session, player=player, number=number)
    return table


@pytest.mark.parametrize(
    ("table_name", "screen"),
    [("Casino table", "floor:table"), ("Macao 1", "floor:game")],
)
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_long_name_stays_inside_the_tablet(demo, live_server, browser, table_name, screen, lang) -> None:
    table = _seated(table_name)
    context, page = _tablet(browser, live_server.url, lang)
    try:
        page.goto(f"{live_server.url}{reverse(screen, args=[table.pk])}")
        assert page.locator(f"text={LONG}").count() >= 1  # the name is on the screen, whole
        measured = page.evaluate(OUT_OF_WINDOW)
    finally:
        context.close()
    assert measured == {"width": 1024, "out": []}


#: each cell of the series' standings past its card's right edge (the "+/-" column, in Russian)
STANDINGS_CUT = """() => {
  const card = document.querySelector('[data-testid=series-standings]');
  const right = card.getBoundingClientRect().right;
  return [...card.querySelectorAll('th, td')]
    .filter(cell => cell.getBoundingClientRect().right > right + 0.5)
    .map(cell => cell.innerText.trim());
}"""


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_the_series_standings_stay_inside_their_card(demo, live_server, browser, lang) -> None:
    table = _seated("Home table")
    croupier = get_user_model().objects.get(username="croupier")
    services.series_begin(actor=croupier, session=table.sessions.get(closed_at__isnull=True))
    context, page = _tablet(browser, live_server.url, lang)
    try:
        page.goto(f"{live_server.url}{reverse('floor:table', args=[table.pk])}")
        cut = page.evaluate(STANDINGS_CUT)
        rows = page.locator("[data-testid=standing]").count()
        status = page.locator("[data-testid=series-status]").inner_text()
    finally:
        context.close()
    assert (cut, rows) == ([], 3)
    # the series' state in the screen's language (it was English on every screen)
    assert status == {
        "en": "Series: 12 of 12 coups left.",
        "fr": "Série : 12 coups restants sur 12.",
        "ru": "Серия: осталось 12 из 12 коупов.",
    }[lang]


#: the first bank's draw button's bottom edge, and the window's height
DRAW_BUTTON = """() => ({
  bottom: Math.round(document.querySelector('[data-testid=draw-first-bank]').getBoundingClientRect().bottom),
  height: window.innerHeight,
})"""


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_macaos_first_bank_draw_stays_on_the_tablets_screen(demo, live_server, browser, lang) -> None:
    """Macao's first bank drawn for by nine seated players: the cards side by side, the draw's
    button on the screen without scrolling (with three players it was at y = 758 to 830)."""
    croupier = get_user_model().objects.get(username="croupier")
    table = Table.objects.get(name="Macao 1")
    session = services.table_session_open(actor=croupier, table=table)
    for number in range(1, 10):
        name = f"Comtesse Alexandra Orlova {number}"
        player = services.player_create(actor=None, casino=table.casino, display_name=name)
        cage_buy_in(casino=table.casino, player=player, amount=1000, actor=croupier, key=f"draw:{player.pk}")
        services.seat_take(actor=croupier, session=session, player=player, number=number)
    context, page = _tablet(browser, live_server.url, lang)
    try:
        page.goto(f"{live_server.url}{reverse('floor:game', args=[table.pk])}")
        measured = page.evaluate(DRAW_BUTTON)
        wide = page.evaluate(OUT_OF_WINDOW)
    finally:
        context.close()
    assert measured["bottom"] <= measured["height"], measured
    assert wide == {"width": 1024, "out": []}
