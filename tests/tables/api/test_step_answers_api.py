"""A step's answer shows the coup exactly as a reader sees it afterwards (docs/api.md, "Cost").

The answer to a bank declared or a step is rendered from the rows the service has just written
under the coup's lock (``StepResult.steps``), not read back: every answer below is compared with
``GET /coups/<id>/`` right after it — through an option point with its advice, a step confirmed
against the rules, a reveal that waits for its correction, an impossible card's alarm, and the
stop card closing the shoe at the reveal.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.models import Shoe
from tests.tables.play import open_floor, shoe_dealt_down_to

from .conftest import Api
from .test_coups_api import (
    coup_banco_and_banker_natural,
    coup_banker_stood_wrongly,
    coup_player_natural,
    coup_with_draws_and_options,
    deal,
    start,
)

pytestmark = pytest.mark.django_db


class ReadBack(Api):
    """A client that reads every coup it is answered back, and checks both agree."""

    def __init__(self, user: Any) -> None:
        super().__init__(user)
        self.checked = 0

    def post(self, path: str, body: Any = None, *, key: str | None = None, **headers: Any) -> Any:
        response = super().post(path, body, key=key, **headers)
        if response.status_code == 201 and (path.endswith("/steps/") or path.endswith("/coups/")):
            answered = response.json()["coup"]
            read = self.get(f"/coups/{answered['id']}/")
            assert read.status_code == 200
            assert answered == read.json(), path
            self.checked += 1
        return response


def test_each_answer_is_the_coup_as_read_afterwards(croupier, table) -> None:
    floor = open_floor(croupier, table, spectators=1)
    api = ReadBack(croupier)
    coup_with_draws_and_options(api, table.pk)  # advice at both option points, a levy
    banco = coup_banco_and_banker_natural(api, table.pk, 390, floor.spectators[0].pk)
    flagged = coup_banker_stood_wrongly(api, table.pk, banco["verdict"]["settlement"]["next_bank_min"])
    assert flagged["state"] == "awaiting_correction" and flagged["restoration"] == {"needs_cards": 1}
    assert api.checked == 36  # the three coups' banks declared and steps, each read back


def test_an_impossible_card_in_the_answer(croupier, club_table) -> None:
    open_floor(croupier, club_table, seats=(1, 2))  # one deck per seated player: two decks
    api = ReadBack(croupier)
    coup = start(api, club_table.pk, 10)
    api.ok(api.step(coup["id"], "bet", seat=2, amount=10))
    api.ok(api.step(coup["id"], "bets_closed"))
    answered = deal(api, coup["id"], "AS", "AS", "AS", "9H")  # a third ace of spades from two decks
    assert answered["alarm"] is True and api.checked == 7


def test_the_stop_card_closing_the_shoe_in_the_answer(croupier, table) -> None:
    floor = open_floor(croupier, table, stop_card_position=10)
    api = ReadBack(croupier)
    # the coming coup's cards (a typo amended among them) stay in the shoe
    shoe_dealt_down_to(floor, left=13, keep=("6H", "2S", "KC", "3D", "9H"))
    settled = coup_player_natural(api, table.pk, 100, 2)  # the stop card comes out in this coup
    assert settled["state"] == "settled"
    floor.shoe.refresh_from_db()
    assert floor.shoe.state == Shoe.State.CLOSED
