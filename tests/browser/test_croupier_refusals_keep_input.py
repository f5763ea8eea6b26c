"""A refused form on the croupier's tablet comes back as he filled it (QA sweep), at 1024x768:

- "Start a shoe": 8 decks, cut by seat 2, stop card 9, burnt cards ``2c``, refused ("The casino
  profile burns 3 to 4 cards."), came back with 6 decks, nobody cutting and the stop card at 8,
  only the burnt cards kept; every field now comes back as typed, and once the burnt cards are
  put right the shoe starts with what was chosen;
- a bet beyond the bank (in French, "il ne reste que 975 de la banque à couvrir") emptied its
  field; it now comes back in its row, focused, as the amendment's form does; a refused card
  (typed ``1x``) comes back in its picker, focused.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from chemin_de_fer.engine.machine import Move
from tables import services
from tables.models import Player, Shoe, Table
from tests.browser.test_tablet_next_action import SETTLED_JS
from tests.browser.test_tablet_rows import SEATED, _croupier, _open, _seated, _tablet
from tests.tables.play import coup_with_bets, step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: the id of the focused element
FOCUS_JS = "() => document.activeElement && document.activeElement.id"


def _refused(page: Any, click: str, where: str) -> str:
    """Click ``click``, wait for the refusal shown in ``where``; its text."""
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.click(click)
    page.wait_for_selector(f"{where} [data-testid=error]")
    page.wait_for_function(SETTLED_JS)
    return str(page.locator(f"{where} [data-testid=error]").inner_text())


def test_a_refused_shoe_start_keeps_every_field(demo, live_server, browser) -> None:
    base = live_server.url
    croupier = _croupier()
    table = Table.objects.get(name="Casino table")
    session = services.table_session_open(actor=croupier, table=table)
    players = {p.display_name: p for p in Player.objects.filter(casino=table.casino, house=False)}
    for number, who in enumerate(SEATED, start=1):
        services.seat_take(actor=croupier, session=session, player=players[who], number=number)
    cutter = players[SEATED[1]]
    context, page = _tablet(browser, base)
    try:
        _open(page, base, f"{base}{reverse('floor:table', args=[table.pk])}", "en")
        assert page.locator("#decks-6").is_checked() and page.input_value("#stop-card") == "8"
        page.click("label[for=decks-8]")
        page.select_option("#cut-by", label=f"Seat 2 · {SEATED[1]}")
        page.fill("#stop-card", "9")
        page.fill("#burnt", "2c")
        error = _refused(page, "[data-testid=start-shoe]", ".shoe-form")
        assert "burns 3 to 4 cards" in error
        assert page.locator("#decks-8").is_checked() and not page.locator("#decks-6").is_checked()
        assert page.input_value("#cut-by") == str(cutter.pk)
        assert page.input_value("#stop-card") == "9"
        assert page.input_value("#burnt") == "2c"
        # the burnt cards put right, the rest as it came back: the shoe the croupier chose
        page.fill("#burnt", "2c 3d 4h")
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.click("[data-testid=start-shoe]")
        page.wait_for_selector("[data-testid=shoe-line]")
        shoe = Shoe.objects.get(session=session)
        assert (shoe.decks, shoe.cut_by_id, shoe.stop_card_position, shoe.burnt_cards) == (
            8,
            cutter.pk,
            9,
            ["2C", "3D", "4H"],
        )
    finally:
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection


def test_a_refused_bet_and_a_refused_card_keep_what_was_typed(demo, live_server, browser) -> None:
    base = live_server.url
    floor = _seated("Casino table")  # M. Dupont banks, from seat 1
    coup = coup_with_bets(floor, bank=975)
    url = f"{base}{reverse('floor:table', args=[floor.table.pk])}"
    context, page = _tablet(browser, base)
    try:
        _open(page, base, url, "fr")
        page.fill("[data-testid=amount-seat-2]", "5000")
        bet = "[data-testid=bettor-seat-2] .bet-form button:not([name])"
        error = _refused(page, bet, "[data-testid=bettor-seat-2]")
        assert "il ne reste que 975" in error
        assert page.input_value("[data-testid=amount-seat-2]") == "5000"
        assert page.locator("[data-testid=amount-seat-2]").evaluate("e => e === document.activeElement")
        # the other rows are as they were: empty
        assert page.input_value("[data-testid=amount-seat-3]") == ""
        # a card refused: typed again in its picker, focused
        step(floor, coup, Move.BET, seat=2, amount=500)
        step(floor, coup, Move.BETS_CLOSED)
        page.goto(url)
        page.fill("#card_to_player-typed", "1x")
        form = "[data-testid=card-form-card_to_player]"
        page.press("#card_to_player-typed", "Enter")  # the picker's hidden submit: the typed card
        page.wait_for_selector(f"{form} [data-testid=error]")
        page.wait_for_function(SETTLED_JS)
        assert page.input_value("#card_to_player-typed") == "1x"
        assert page.evaluate(FOCUS_JS) == "card_to_player-typed"
    finally:
        context.close()
        connections.close_all()
