"""No dead ends on the screens (issue 9 §2): the croupier withdraws a bank nobody bets on
(RULES.md §7) from the coup panel; a pit boss voids a coup in play from its review page, reached
from the dashboard's open tables."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tables.models import Coup
from tests.tables.play import row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def _start(client, floor, amount: int = 100) -> Coup:
    response = client.post(reverse("floor:coup_start", args=[floor.table.pk]), {"amount": amount}, **HTMX)
    assert response.status_code == 200, response.content.decode()
    return Coup.objects.latest("pk")


def test_the_croupier_withdraws_a_bank_nobody_bets_on(as_croupier, floor) -> None:
    """RULES.md §7: the button is on the panel while nobody has bet; after it the panel asks for
    the next bank (the banker keeps it) and the bank can be passed."""
    coup = _start(as_croupier, floor, 150)
    panel = as_croupier.get(reverse("floor:table", args=[floor.table.pk])).content.decode()
    assert 'data-testid="withdraw-bank"' in panel
    url = reverse("floor:coup_withdraw", args=[floor.table.pk, coup.pk])
    response = as_croupier.post(url, {"expected_step": 1}, **HTMX)
    assert response.status_code == 200, response.content.decode()
    coup.refresh_from_db()
    assert (coup.state, coup.step_count) == ("withdrawn", 2)
    body = response.content.decode()
    assert 'data-testid="withdraw-bank"' not in body
    assert reverse("floor:coup_start", args=[floor.table.pk]) in body  # declare the next bank


def test_the_withdraw_button_goes_once_a_bet_stands_and_a_stale_post_is_refused(as_croupier, floor) -> None:
    coup = _start(as_croupier, floor, 150)
    step_url = reverse("floor:coup_step", args=[floor.table.pk, coup.pk])
    as_croupier.post(step_url, {"expected_step": 1, "kind": "bet", "punter": "seat-2", "amount": 50}, **HTMX)
    panel = as_croupier.get(reverse("floor:table", args=[floor.table.pk])).content.decode()
    assert 'data-testid="withdraw-bank"' not in panel
    before = row_counts()
    url = reverse("floor:coup_withdraw", args=[floor.table.pk, coup.pk])
    refused = as_croupier.post(url, {"expected_step": 2}, **HTMX)
    assert refused.status_code == 400
    assert "Bets stand on this bank: it is played, not withdrawn" in refused.content.decode()
    assert row_counts() == before


def test_a_pit_boss_voids_a_coup_in_play_from_its_review_page(as_croupier, as_pit_boss, floor) -> None:
    """Issue 9 §2: any coup not over yet, reason required, from the dashboard's link to it."""
    coup = _start(as_croupier, floor, 150)
    dashboard = as_pit_boss.get(reverse("review:dashboard")).content.decode()
    assert reverse("review:coup", args=[coup.pk]) in dashboard
    page = as_pit_boss.get(reverse("review:coup", args=[coup.pk])).content.decode()
    # the void sits apart from the correction's decision, folded behind a second tap (not open)
    menu = page.split('<details class="void-menu" data-testid="void-menu">', 1)
    assert len(menu) == 2 and 'data-testid="void-form"' in menu[1].split("</details>", 1)[0]
    assert 'data-testid="void-form"' not in menu[0]
    url = reverse("review:coup_void", args=[coup.pk])
    before = row_counts()
    blank = as_pit_boss.post(url, {"reason": "", "return": "detail"}, **HTMX)
    assert blank.status_code == 400 and row_counts() == before
    done = as_pit_boss.post(url, {"reason": "the table was closed early", "return": "detail"}, **HTMX)
    assert done.status_code == 200
    assert "Coup voided: every stake returned, the bank as declared, the cards dealt stay dealt." in (
        done.content.decode()
    )
    coup.refresh_from_db()
    assert coup.state == "void"
    assert 'data-testid="void-form"' not in done.content.decode()
