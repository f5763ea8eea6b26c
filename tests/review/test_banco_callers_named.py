"""review/selectors/coup_review.py: the pit boss's coup page names every banco caller by his seat
and name, the one who lost the call to another too (he has no bet: never his key ``seat-3``)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from tables.models import Bet
from tables.services import Caller
from tests.tables.play import open_floor, play

pytestmark = pytest.mark.django_db


def test_a_losing_caller_of_a_multi_banco_is_named(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table, seats=(1, 2, 3, 4))
    coup = play(
        floor,
        bank=10,
        banco=[Caller(seat=2), Caller(seat=3)],
        cards=("2D", "9H", "3S", "KC"),
        player="stand",
        banker="natural",
    )
    assert list(Bet.objects.filter(coup=coup).values_list("seat__number", flat=True)) == [3]
    boss = Client()
    boss.force_login(pit_boss)
    page = boss.get(reverse("review:coup", args=[coup.pk])).content.decode()
    assert escape("banco called by seat 2 · Player 2, seat 3 · Player 3; seat 3 · Player 3 plays") in page
    assert "seat-3" not in page and "seat-2" not in page
