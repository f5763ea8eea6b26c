"""Amending a typo on the croupier's coup panel (htmx): an Amend control per bet and card, a
reason asked, the wrong step kept and struck through; refusals shown next to the control with
nothing written; a later step the amendment makes wrong asks for confirmation."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from tables.models import Coup, CoupStep, ShoeCard
from tests.tables.play import Floor, row_counts

from .conftest import HTMX
from .test_croupier_screens import send, start

pytestmark = pytest.mark.django_db


def amend_url(coup: Coup, index: int) -> str:
    return reverse("floor:coup_amend", args=[coup.shoe.table_id, coup.pk, index])


def amend(client: Client, coup: Coup, index: int, **data: Any) -> Any:
    coup.refresh_from_db()
    data.setdefault("expected_step", coup.step_count)
    return client.post(amend_url(coup, index), data, **HTMX)


def test_the_panel_offers_amend_on_bets_and_cards_only(floor: Floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=10)
    send(as_croupier, coup, kind="bets_closed")
    html = send(as_croupier, coup, kind="card_to_player", card="5h").content.decode()
    assert 'data-testid="amend-2"' in html and 'data-testid="amend-4"' in html  # the bet, the card
    assert 'data-testid="amend-1"' not in html and 'data-testid="amend-3"' not in html  # bank, close
    assert amend_url(coup, 2) in html and 'name="reason"' in html
    assert 'value="seat-2" selected' in html  # the bet's punter, preselected


def test_a_typo_amended_is_struck_through_and_the_panel_shows_the_amended_game(
    floor: Floor, as_croupier
) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=10)
    response = amend(as_croupier, coup, 2, amount=100, punter="seat-2", reason="typed 10 for 100")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="superseded-2"' in html and "amended at step 3" in html
    assert 'data-testid="amend-2"' not in html and 'data-testid="amend-3"' in html  # amend the amendment
    assert '<span class="stat-value" data-testid="covered">100</span>' in html
    assert "typed 10 for 100" in html
    coup.refresh_from_db()
    assert coup.steps.get(index=3).supersedes == coup.steps.get(index=2)


def test_a_card_typo_amended_without_javascript_redirects(floor: Floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    send(as_croupier, coup, kind="card_to_player", card="5h")
    coup.refresh_from_db()
    response = as_croupier.post(
        amend_url(coup, 4), {"expected_step": coup.step_count, "card": "6h", "reason": "read 5 for 6"}
    )
    assert response.status_code == 303
    assert list(ShoeCard.objects.filter(coup=coup).order_by("pk").values_list("card", flat=True)) == [
        "5H",
        "6H",
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(
            {"amount": 100, "punter": "seat-2", "reason": ""}, "Say why the step is amended", id="reason"
        ),
        pytest.param({"amount": 500, "punter": "seat-2", "reason": "t"}, "left to cover", id="above-bank"),
        pytest.param({"amount": 10, "punter": "seat-2", "reason": "t"}, "nothing to amend", id="same"),
    ],
)
def test_a_refused_amendment_is_shown_next_to_its_control(floor: Floor, as_croupier, data, message) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=10)
    before = row_counts()
    response = amend(as_croupier, coup, 2, **data)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    # the history is open on the refused control, the message under it
    assert '<details class="amend" open>' in html
    assert row_counts() == before


def test_an_amendment_that_makes_a_later_step_wrong_asks_for_confirmation(floor: Floor, as_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    send(as_croupier, coup, kind="bets_closed")
    for kind, card in (("card_to_player", "3h"), ("card_to_banker", "ks"), ("card_to_player", "3c")):
        send(as_croupier, coup, kind=kind, card=card)
    send(as_croupier, coup, kind="card_to_banker", card="7d")
    send(as_croupier, coup, kind="player_stand")  # on 6: right
    before = row_counts()
    response = amend(as_croupier, coup, 6, card="ac", reason="it was the ace")  # on 4 he had to draw
    html = response.content.decode()
    assert response.status_code == 200 and 'data-testid="confirm"' in html
    assert "The player must draw on 4" in html and amend_url(coup, 6) in html
    assert row_counts() == before
    response = amend(as_croupier, coup, 6, card="ac", reason="it was the ace", confirm="1")
    assert response.status_code == 200
    coup.refresh_from_db()
    assert coup.flagged and coup.steps.get(kind="amend").violations == ["PLAYER_SHOULD_DRAW"]


def test_after_the_reveal_there_is_nothing_to_amend(floor: Floor, as_croupier, as_other_croupier) -> None:
    coup = start(as_croupier, floor, 100)
    send(as_croupier, coup, kind="bet", punter="seat-2", amount=100)
    assert amend(as_other_croupier, coup, 2, amount=50, punter="seat-2", reason="t").status_code == 403
    send(as_croupier, coup, kind="bets_closed")
    for kind, card in (("card_to_player", "9h"), ("card_to_banker", "2s"), ("card_to_player", "kc")):
        send(as_croupier, coup, kind=kind, card=card)
    send(as_croupier, coup, kind="card_to_banker", card="3d")
    send(as_croupier, coup, kind="player_natural")
    send(as_croupier, coup, kind="reveal")
    before = row_counts()
    response = amend(as_croupier, coup, 2, amount=50, punter="seat-2", reason="t")
    assert response.status_code == 409
    assert row_counts() == before
    assert not CoupStep.objects.filter(kind="amend").exists()
