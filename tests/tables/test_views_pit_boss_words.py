"""The croupier's tablet says what a pit boss decided about a coup, and why: the reason of a rejected
restoration on the restore panel, and the void of the shoe's last coup on the table screen (after a
reload, in the htmx panel, and in the answer to his next action on the voided coup)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables import services
from tables.models import Coup
from tests.tables.play import Floor, open_floor, play

pytestmark = pytest.mark.django_db

HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def floor(croupier, table) -> Floor:
    return open_floor(croupier, table)


@pytest.fixture
def as_croupier(croupier) -> Client:
    client = Client()
    client.force_login(croupier)
    return client


def page_url(table: Any) -> str:
    return reverse("floor:table", args=[table.pk])


def test_the_restore_panel_says_who_rejected_the_restoration_and_why(
    floor, table, as_croupier, pit_boss
) -> None:
    coup = play(
        floor, bank=100, bets=[(2, 100)], cards=("TH", "3S", "2C", "2H"),
        player="draw", player_card="6D", banker="stand", confirm=True,
    )  # fmt: skip
    # before any rejection: no such line
    assert 'data-testid="restore-rejected"' not in as_croupier.get(page_url(table)).content.decode()
    url = reverse("floor:coup_restore", args=[table.pk, coup.pk])
    assert as_croupier.post(url, {"action": "submit", "cards": "4C"}, **HTMX).status_code == 200
    services.correction_reject(actor=pit_boss, coup=coup, reason="the third card went to the wrong hand")
    coup.refresh_from_db()
    assert coup.state == Coup.State.AWAITING_CORRECTION
    said = "Rejected by pitboss: the third card went to the wrong hand"
    # after a reload, and in the panel htmx swaps in
    page = as_croupier.get(page_url(table)).content.decode()
    assert 'data-testid="restore"' in page and said in page
    panel = as_croupier.get(page_url(table), {"part": "panel"}, **HTMX).content.decode()
    assert panel.lstrip().startswith('<section id="coup-panel"') and said in panel
    # while he restores it again (a preview), the line stays
    preview = as_croupier.post(url, {"action": "undo", "cards": "4C"}, **HTMX).content.decode()
    assert said in preview
    # the latest rejection's words, not the first's
    assert as_croupier.post(url, {"action": "submit", "cards": "4C"}, **HTMX).status_code == 200
    services.correction_reject(actor=pit_boss, coup=coup, reason="the banker had a natural")
    page = as_croupier.get(page_url(table)).content.decode()
    assert "Rejected by pitboss: the banker had a natural" in page and said not in page


def test_the_table_screen_says_the_last_coup_was_voided_by_whom_and_why(
    floor, table, as_croupier, pit_boss
) -> None:
    start = reverse("floor:coup_start", args=[table.pk])
    assert as_croupier.post(start, {"amount": 100}, **HTMX).status_code == 200
    coup = Coup.objects.latest("pk")
    step_url = reverse("floor:coup_step", args=[table.pk, coup.pk])
    posted = {"kind": "bet", "punter": "seat-2", "amount": 50, "expected_step": 1}
    assert as_croupier.post(step_url, posted, **HTMX).status_code == 200
    assert 'data-testid="voided"' not in as_croupier.get(page_url(table)).content.decode()

    services.coup_void(actor=pit_boss, coup=coup, reason="a player was taken ill")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID
    said = f"Coup {coup.number} was voided by pitboss: a player was taken ill"
    # his next action on the voided coup (his tablet still shows it): where it stands, and why
    coup_before = {"kind": "bets_closed", "expected_step": 2}
    answer = as_croupier.post(step_url, coup_before, **HTMX)
    assert answer.status_code == 409
    assert said in answer.content.decode()
    # after a reload, and in the panel htmx swaps in
    assert said in as_croupier.get(page_url(table)).content.decode()
    assert said in as_croupier.get(page_url(table), {"part": "panel"}, **HTMX).content.decode()
    # the table plays on: the next coup of the shoe is no longer the voided one
    assert as_croupier.post(start, {"amount": 100}, **HTMX).status_code == 200
    assert 'data-testid="voided"' not in as_croupier.get(page_url(table)).content.decode()
