"""The croupier's screen in French and Russian, word for word where the catalogues were corrected:
the advice's basis in the right Russian case, a bet said without a verb that says he or she, French
with its space before a colon; and an older game's split outcome in Russian."""

from __future__ import annotations

from html import unescape

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from chemin_de_fer.engine.machine import Move
from tables import services
from tables.wording import GAME_OUTCOME_LABELS
from tests.tables.play import Floor, open_floor, play, step

pytestmark = pytest.mark.django_db


def _screen(croupier, table, lang: str) -> str:
    client = Client()
    client.force_login(croupier)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(reverse("floor:table", args=[table.pk]))
    assert response.status_code == 200
    return unescape(response.content.decode())


def _at_the_player_s_option(floor: Floor) -> None:
    """Seat 2 bets 100 and holds 5 on two cards: the player is free to draw or stand (the advice)."""
    coup = services.coup_start(actor=floor.croupier, session=floor.session, amount=100).coup
    step(floor, coup, Move.BET, seat=2, amount=100)
    step(floor, coup, Move.BETS_CLOSED)
    dealt = zip((Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER) * 2, ("2H", "AS", "3C", "2D"), strict=True)
    for kind, card in dealt:
        step(floor, coup, kind, card=card)


def test_the_advice_says_its_basis_in_the_russian_dative(croupier, table) -> None:
    _at_the_player_s_option(open_floor(croupier, table))
    html = _screen(croupier, table, "ru")
    assert '<span class="hint">(по оставшимся картам этого шуза)</span>' in html
    assert "оставшихся картах" not in html


def test_a_bet_is_said_without_a_verb_that_says_he_or_she(croupier, table) -> None:
    """Under each punter's name his stake, "ставка 50": no past tense that would make Mme Leroy a man."""
    floor = open_floor(croupier, table)
    coup = services.coup_start(actor=croupier, session=floor.session, amount=100).coup
    step(floor, coup, Move.BET, seat=2, amount=50)
    html = _screen(croupier, table, "ru")
    assert '<span class="bettor-staked">ставка <strong data-testid="staked-seat-2">50</strong></span>' in html
    assert "поставил" not in html
    french = _screen(croupier, table, "fr")
    assert '<span class="bettor-staked">misé <strong data-testid="staked-seat-2">50</strong></span>' in french


@pytest.mark.parametrize(
    ("lang", "summary"),
    [("fr", "<summary>Sabot 1 : 1 coup</summary>"), ("ru", "<summary>Шуз 1: 1 коуп</summary>")],
)
def test_the_shoe_s_coups_are_counted_with_each_language_s_colon(croupier, table, lang, summary) -> None:
    floor = open_floor(croupier, table)
    play(floor, bank=100, bets=[(2, 100)], cards=("9H", "AS", "KC", "2D"), player="natural")
    assert summary in _screen(croupier, table, lang)


def test_a_shoe_alarm_on_the_tablet_has_the_french_colon(croupier, table) -> None:
    floor = open_floor(croupier, table)
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="sabot abîmé")
    html = _screen(croupier, table, "fr")
    assert "— sabot 1 : fermé après 3 cartes sur 312 (sabot abîmé)</div>" in html


@pytest.mark.parametrize(
    ("outcome", "said"),
    [
        ("banker", "выиграл банкомёт"),
        ("punters", "выиграли понтёры"),
        # the stakes went both ways (some punters won, some lost) or a pooled tie shared them
        # (docs/games/old_baccarat.md): the win is split, not "equally"
        ("split", "выигрыш разделён"),
    ],
)
def test_an_older_game_s_outcome_in_russian(outcome: str, said: str) -> None:
    with translation.override("ru"):  # as {{ coup.outcome|game_outcome }} says it
        assert translation.gettext(GAME_OUTCOME_LABELS[outcome]) == said
