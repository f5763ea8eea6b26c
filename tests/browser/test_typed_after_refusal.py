"""What the croupier types next, on the keyboard, after a refusal (QA sweep, 1024x768, EN/FR/RU).

A refused card, bet or bank comes back as typed, its field focused (so that he sees what was
refused: tests/browser/test_croupier_refusals_keep_input.py). The caret stood at the start of the
field, so the next card typed ran into the refused one: ``1x`` refused, then ``9h`` typed became
``9h1x``, refused again, and every card after it, until he saw the field and emptied it by hand.
The field's text now comes back selected: what he types next replaces it. The bank's field, which
opens with the minimum in it, is typed over the same way (``500`` typed over ``100``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from chemin_de_fer.engine.machine import Move
from tables.models import Coup
from tests.browser.test_tablet_next_action import SETTLED_JS
from tests.browser.test_tablet_rows import _open, _seated, _tablet
from tests.tables.play import coup_with_bets, step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED_JS = "() => document.activeElement && document.activeElement.dataset.testid"


def _typed(page: Any, text: str) -> None:
    """Type ``text`` on the keyboard where the focus is, then Enter; wait for the answer's swap."""
    page.keyboard.type(text)
    with page.expect_response(lambda r: r.request.method == "POST"):
        page.keyboard.press("Enter")
    page.wait_for_function(SETTLED_JS)
    page.wait_for_timeout(100)  # htmx's settle, then the focus


def _errors(page: Any) -> list[str]:
    return [str(e) for e in page.locator("[data-testid=error]").all_inner_texts()]


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_a_card_typed_after_a_refused_one_is_recorded(demo, live_server, browser, lang: str) -> None:
    base = live_server.url
    floor = _seated("Casino table")  # M. Dupont banks, from seat 1
    coup = coup_with_bets(floor, (2, 400), bank=400)
    step(floor, coup, Move.BETS_CLOSED)
    context, page = _tablet(browser, base)
    try:
        _open(page, base, f"{base}{reverse('floor:table', args=[floor.table.pk])}", lang)
        assert page.evaluate(FOCUSED_JS) == "card-input"
        _typed(page, "1x")  # unreadable: refused, it comes back in the field, focused
        assert _errors(page) and page.input_value("[data-testid=card-input]") == "1x"
        assert page.evaluate(FOCUSED_JS) == "card-input"
        _typed(page, "9h")  # the card he meant: typed over the refused one
        assert _errors(page) == []
        coup.refresh_from_db()
        assert coup.step_count == 4  # bank, bet, no more bets, the 9h
        assert page.evaluate(FOCUSED_JS) == "card-input"  # the next card, to the banker
        _typed(page, "2c")
        assert _errors(page) == []
        coup.refresh_from_db()
        assert coup.step_count == 5  # bank, bet, no more bets, two cards
    finally:
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_a_bet_and_a_bank_typed_over_what_the_field_holds(demo, live_server, browser, lang: str) -> None:
    base = live_server.url
    floor = _seated("Casino table")
    coup_with_bets(floor, bank=975)
    url = f"{base}{reverse('floor:table', args=[floor.table.pk])}"
    context, page = _tablet(browser, base)
    try:
        _open(page, base, url, lang)
        page.locator("[data-testid=amount-seat-2]").focus()
        _typed(page, "5000")  # beyond the bank: refused, back in its row, focused
        assert _errors(page) and page.input_value("[data-testid=amount-seat-2]") == "5000"
        assert page.evaluate(FOCUSED_JS) == "amount-seat-2"
        _typed(page, "975")  # the bet he meant
        assert _errors(page) == []
        assert page.locator("[data-testid=covered]").inner_text().strip() == "975"

        # the coup played out by the services; the next bank's field opens with the minimum in it
        coup = Coup.objects.get(pk=page.locator("[data-testid=coup]").get_attribute("data-coup"))
        step(floor, coup, Move.BETS_CLOSED)
        for card in ("TH", "4S", "JD", "5C"):  # the player's 0 against the banker's natural 9
            step(floor, coup, Move.CARD_TO_PLAYER if card in ("TH", "JD") else Move.CARD_TO_BANKER, card=card)
        step(floor, coup, Move.PLAYER_DRAW)
        step(floor, coup, Move.BANKER_NATURAL)
        step(floor, coup, Move.REVEAL)
        _open(page, base, url, lang)
        field = page.locator("[data-testid=bank-amount]")
        assert page.evaluate(FOCUSED_JS) == "bank-amount" and field.input_value() != ""
        minimum = int(field.input_value())
        _typed(page, str(minimum + 500))
        assert _errors(page) == []
        assert int(re.sub(r"\D", "", page.locator("[data-testid=bank]").inner_text())) == minimum + 500
    finally:
        context.close()
        connections.close_all()
