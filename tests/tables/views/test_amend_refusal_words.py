"""What an amendment refused says (tables.services.amends), through the API and on the tablet: a
coup voided (or its bank withdrawn) before any card was dealt was answered "The hands are shown…",
which it never was; and a step the coup does not have was "Coup 3 has no step 0", the coup's number
in its shoe, while the URL named the coup by its id (4): now "This coup has no step 0", as the
other refusals name the coup the request names ("This coup is …")."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tables import services
from tables.models import Coup
from tables.services.amends import AMEND_VOID, AMEND_WITHDRAWN
from tables.wording import AMEND_AFTER_REVEAL
from tests.tables.api.conftest import Api
from tests.tables.play import Floor, coup_with_bets, play, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db
AMEND = {"amount": 150, "reason": "typed 15 for 150"}


def _void(floor: Floor, coup: Coup, pit_boss: Any) -> None:
    services.coup_void(actor=pit_boss, coup=coup, reason="misdeal")
    coup.refresh_from_db()
    assert coup.state == Coup.State.VOID and not coup.shoe.cards.filter(coup=coup).exists()


def test_amending_a_coup_voided_before_any_card_says_it_is_void(floor, pit_boss) -> None:
    coup = coup_with_bets(floor, (2, 15))
    _void(floor, coup, pit_boss)
    body = Api(floor.croupier).refuse(f"/coups/{coup.pk}/steps/2/amend/", {**AMEND, "step": 2}, status=409)
    assert body["detail"] == AMEND_VOID == "This coup is void: no step of it can be amended."
    assert "hands are shown" not in body["detail"]


def test_amending_a_withdrawn_bank_s_coup_says_it_was_withdrawn(floor) -> None:
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=100).coup
    services.coup_bank_withdraw(actor=floor.croupier, coup=coup)
    body = Api(floor.croupier).refuse(f"/coups/{coup.pk}/steps/1/amend/", {**AMEND, "step": 1}, status=409)
    assert body["detail"] == AMEND_WITHDRAWN


def test_amending_after_the_reveal_still_says_the_hands_are_shown(floor) -> None:
    coup = play(floor, bank=100, bets=[(2, 50)], cards=("9C", "4S", "TD", "2H"), player="natural")
    assert coup.state == Coup.State.SETTLED
    path = f"/coups/{coup.pk}/steps/2/amend/"
    body = Api(floor.croupier).refuse(path, {**AMEND, "step": coup.step_count}, status=409)
    assert body["detail"] == AMEND_AFTER_REVEAL


def test_a_step_the_coup_does_not_have_is_named_without_the_coup_s_number(floor) -> None:
    services.coup_bank_withdraw(
        actor=floor.croupier,
        coup=services.coup_start(actor=floor.croupier, session=floor.session, amount=100).coup,
    )
    coup = coup_with_bets(floor, (2, 15))  # coup 2 of the shoe, its id another number
    api = Api(floor.croupier)
    for index in (0, 9):
        body = api.refuse(f"/coups/{coup.pk}/steps/{index}/amend/", {**AMEND, "step": 2}, status=400)
        assert body["step"] == [f"This coup has no step {index}."]


def test_the_tablet_says_the_same(floor, table, as_croupier, pit_boss) -> None:
    coup = coup_with_bets(floor, (2, 15))
    url = reverse("floor:coup_amend", args=[table.pk, coup.pk, 9])
    before = row_counts()
    missing = as_croupier.post(url, {**AMEND, "expected_step": coup.step_count}, **HTMX)
    assert missing.status_code == 400 and "This coup has no step 9." in missing.content.decode()
    assert row_counts() == before
    _void(floor, coup, pit_boss)
    before = row_counts()
    url = reverse("floor:coup_amend", args=[table.pk, coup.pk, 2])
    void = as_croupier.post(url, {**AMEND, "expected_step": coup.step_count}, **HTMX)
    assert void.status_code == 409 and row_counts() == before
