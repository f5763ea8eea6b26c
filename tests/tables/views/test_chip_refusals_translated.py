"""A player short of chips is refused in the croupier screen's language: the bank he declares and
the bet he places (tables.money.rules, built with said()), his name as typed and the chips as the
page writes them; the API, read by programs, keeps the English sentence."""

from __future__ import annotations

from html import unescape
from typing import cast

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from core.errors import validation_messages
from ledger.services import InsufficientChips
from tables import services
from tables.models import Coup, Player, Table
from tables.money.rules import stake_check
from tables.wording import say
from tests.factories import PlayerFactory
from tests.tables.play import Floor, open_floor, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db

BANK_REFUSED = {
    "en": "Zero Chips has only 0 chips; a bank of 50 is refused.",
    "fr": "Zero Chips n'a que 0 jetons ; une banque de 50 est refusée.",
    "ru": "Zero Chips: фишек — всего 0; банк 50 отклонён.",
}
BET_REFUSED = {
    "en": "Zero Chips has only 0 chips; a bet of 10 is refused.",
    "fr": "Zero Chips n'a que 0 jetons ; une mise de 10 est refusée.",
    "ru": "Zero Chips: фишек — всего 0; ставка 10 отклонена.",
}


def _zero_chips_seated(croupier, table: Table, *, banker: bool) -> Floor:
    """The Home series' table (no borrowing), four players with chips and, at seat 5, Zero Chips,
    who never went to the cage; he holds the bank when ``banker``."""
    floor = open_floor(croupier, table, banker_seat=None if banker else 1)
    player = PlayerFactory(casino=table.casino, display_name="Zero Chips")
    seat = services.seat_take(actor=croupier, session=floor.session, player=player, number=5)
    floor.seats[5] = seat
    if banker:
        services.bank_first_assign(actor=croupier, session=floor.session, seat=seat)
    return floor


def _client(croupier, lang: str) -> Client:
    client = Client()
    client.force_login(croupier)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    return client


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_a_bank_he_has_not_got_is_refused_in_the_screens_language(croupier, home_table, lang) -> None:
    _zero_chips_seated(croupier, home_table, banker=True)
    client = _client(croupier, lang)
    before = row_counts()
    response = client.post(
        reverse("floor:coup_start", args=[home_table.pk]), {"amount": 50}, **HTMX
    )
    page = unescape(response.content.decode())
    assert response.status_code == 400 and row_counts() == before
    assert f'data-testid="error"><p>{BANK_REFUSED[lang]}</p></div>' in page
    assert "has only" not in page


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_a_bet_he_cannot_cover_is_refused_in_the_screens_language(croupier, home_table, lang) -> None:
    floor = _zero_chips_seated(croupier, home_table, banker=False)
    client = _client(croupier, lang)
    started = client.post(reverse("floor:coup_start", args=[home_table.pk]), {"amount": 100}, **HTMX)
    assert started.status_code == 200
    coup = Coup.objects.get(shoe__session=floor.session)
    before = row_counts()
    response = client.post(
        reverse("floor:coup_step", args=[home_table.pk, coup.pk]),
        {"kind": "bet", "punter": "seat-5", "amount": 10, "expected_step": coup.step_count},
        **HTMX,
    )
    page = unescape(response.content.decode())
    assert response.status_code == 400 and row_counts() == before
    row = page[page.index('data-testid="bettor-seat-5"') : page.index('class="banco-multi"')]
    assert f'data-testid="error"><p>{BET_REFUSED[lang]}</p></div>' in row  # in his row
    assert "has only" not in page


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Anna has only 1,000 chips; a bet of 500 besides the 600 already staked is refused."),
        ("fr", "Anna n'a que 1\xa0000 jetons ; une mise de 500 en plus des 600 déjà misés est refusée."),
        ("ru", "Anna: фишек — всего 1\xa0000; ставка 500 сверх 600, уже стоящих на кону, отклонена."),
    ],
)
def test_a_bet_beside_what_he_has_at_stake_is_a_sentence_of_its_own(lang: str, said: str) -> None:
    """What he already staked (at another table too) is counted in a pattern of its own, translated
    whole; the sentence raised stays the English one (the API's, the audit trail's)."""
    with pytest.raises(InsufficientChips) as refused:
        stake_check(player=cast(Player, "Anna"), balance=1000, amount=500, already_staked=600)
    (message,) = validation_messages(refused.value)
    assert message == "Anna has only 1000 chips; a bet of 500 besides the 600 already staked is refused."
    with translation.override(lang):
        assert say(message, gettext) == said
