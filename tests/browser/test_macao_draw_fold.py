"""Macao's most frequent step, a player's draw, on the croupier's tablet (1024x768 landscape, the
page not scrolled): every card of the 52-card picker on the screen, 44x44 px at least.

With the demo's four players seated the four hands took two rows (3 + 1, each hand at least 10rem
wide in a 648 px panel): the picker's ♦ row was cut at the fold (its bottom at y = 786) and its ♣ row
below it (y = 812 to 833), in English, French and Russian. The hands now fit four to a row and the
picker's rows are tighter; four players of long names (tests.browser.test_tablet's) and six players
(two rows of hands) are measured too.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.urls import reverse

from casino.management.commands.load_demo import DEMO_PLAYERS
from ledger.services import cage_buy_in
from older_games import services as game_coups
from tables import services
from tables.models import Player, Table
from tests.browser.test_tablet import GAME_PLAYERS
from tests.browser.test_tablet_rows import VIEWPORT, _open, _tablet

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: the draw's picker: each card button's box (the page's scroll offset added), the hands' rows,
#: the page's scroll offset and width
MEASURE_JS = """() => {
  const form = document.querySelector('#game-panel form.card-form[data-kind=draw]');
  const cards = [...form.querySelectorAll('.card-btn')].map(b => {
    const r = b.getBoundingClientRect();
    return {card: b.dataset.card, top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left + scrollX,
            right: r.right + scrollX, width: r.width, height: r.height};
  });
  const hands = new Set([...document.querySelectorAll('[data-testid=game-hand]')]
    .map(h => Math.round(h.getBoundingClientRect().top)));
  return {cards, handRows: hands.size, scroll: [scrollX, scrollY],
          width: document.documentElement.scrollWidth};
}"""

#: the demo's four players, as ``manage.py load_demo`` registers them
DEMO = tuple(name for name, _ in DEMO_PLAYERS)
#: six players: the demo's four and two more (two rows of hands, four and two)
SIX = (*DEMO, "Mlle Ng", "Dr Sy")


def _seated_and_dealt(names: tuple[str, ...]) -> Table:
    """Macao 1 opened, ``names`` seated (the demo's own players as they are, others created), bought
    in, a coup begun and its deal done, the first punter's card a 4: he may draw (or stand)."""
    croupier = get_user_model().objects.get(username="croupier")
    table = Table.objects.get(name="Macao 1")
    session = services.table_session_open(actor=croupier, table=table)
    for number, name in enumerate(names, start=1):
        player = Player.objects.filter(casino=table.casino, display_name=name).first()
        if player is None:
            player = services.player_create(actor=None, casino=table.casino, display_name=name)
        cage_buy_in(casino=table.casino, player=player, amount=1000, actor=croupier, key=f"fold:{player.pk}")
        services.seat_take(actor=croupier, session=session, player=player, number=number)
    coup = game_coups.game_coup_start(actor=croupier, session=session).coup
    deal = ("4S", "3C", "5H", "2D", "6C", "7D")[: len(names)]
    for card in deal:
        game_coups.game_step_record(actor=croupier, coup=coup, payload={"kind": "deal", "card": card})
    return table


def _measure(browser: Any, base: str, table: Table, lang: str) -> dict[str, Any]:
    context, page = _tablet(browser, base)
    try:
        _open(page, base, f"{base}{reverse('floor:game', args=[table.pk])}", lang)
        measured: dict[str, Any] = page.evaluate(MEASURE_JS)
    finally:
        context.close()
        connections.close_all()
    return measured


def _cut(cards: list[dict[str, Any]]) -> list[str]:
    """The cards not whole on the tablet's screen, or smaller than a fingertip (44x44 px)."""
    return [
        f"{c['card']} {c['left']:.0f},{c['top']:.0f}-{c['right']:.0f},{c['bottom']:.0f}"
        for c in cards
        if c["top"] < -0.5
        or c["bottom"] > VIEWPORT["height"] + 0.5
        or c["left"] < -0.5
        or c["right"] > VIEWPORT["width"] + 0.5
        or c["width"] < 43.99
        or c["height"] < 43.99
    ]


@pytest.mark.parametrize(
    ("players", "hand_rows"),
    [(DEMO, 1), (GAME_PLAYERS, 1), (SIX, 2)],
    ids=["four", "four-long-names", "six"],
)
@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_macao_s_draw_picker_is_whole_on_the_tablet(
    demo, live_server, browser, lang, players, hand_rows
) -> None:
    table = _seated_and_dealt(players)
    measured = _measure(browser, live_server.url, table, lang)
    cards = measured["cards"]
    print(
        f"{lang}: {measured['handRows']} row(s) of hands, the picker's foot at",
        max(c["bottom"] for c in cards),
    )
    assert measured["scroll"] == [0, 0], f"{lang}: the page opened scrolled"
    assert measured["width"] == VIEWPORT["width"]
    assert len(cards) == 52
    assert _cut(cards) == [], f"{lang}, {len(players)} players: cards cut or small"
    # four hands in one row (they took two, 3 + 1), six in two
    assert measured["handRows"] == hand_rows
