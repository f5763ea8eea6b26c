# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""Two refusals a QA sweep found in English on French and Russian screens, now ``said()``
sentences like their neighbours (core.sentence): a cut card out of the shoe
(tables.services.shoes.shoe_start) and an approval with no correction awaiting it
(tables.services.corrections). Built with an f-string, their text could not be looked up in the
catalogue; said, a screen translates the pattern and puts the values back in.

The catalogues' own translations are the translator's (locale/*.po): until they are there, these
tests give the screen's catalogue a translation of the pattern and check the screen uses it. The
API and the audit trail keep the English sentence, word for word."""

from __future__ import annotations

from collections.abc import Callable
from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils.translation import trans_real

from core.errors import validation_messages
from core.sentence import Sentence
from tables import services
from tables.lifecycle import CoupConflict
from tables.models import Coup, Shoe
from tests.review.history import History
from tests.review.history import awaiting as awaiting_fixture
from tests.tables.play import open_floor, row_counts

pytestmark = pytest.mark.django_db
awaiting = awaiting_fixture  # a clean coup and a restored one awaiting approval, as a fixture
HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}

BURNT = ["5H", "6H", "7H"]  # the casino profile burns 3 to 4
CUT_CARD = "A position in a {decks}-deck shoe is between 1 and {last}."
NOT_AWAITING = "This coup is {state}: no correction awaits approval."
#: what a translator might write: the values are put back in by the screen
CATALOGUE = {
    "fr": {
        CUT_CARD: "Dans un sabot de {decks} jeux, une position est entre 1 et {last}.",
        NOT_AWAITING: "Ce coup est {state} : aucune correction n'attend d'approbation.",
        "Settled": "Réglé",
    },
    "ru": {
        CUT_CARD: "В шузе из {decks} колод позиция от 1 до {last}.",
        NOT_AWAITING: "Этот коуп — {state}: исправление не ждёт одобрения.",
        "Settled": "Рассчитан",
    },
}


@pytest.fixture
def catalogue(monkeypatch) -> Callable[[str], None]:
    """Give ``lang``'s catalogue the translations above (only these: the rest as it is)."""

    def given(lang: str) -> None:
        found = trans_real.translation(lang)
        original = found.gettext
        monkeypatch.setattr(found, "gettext", lambda m: CATALOGUE[lang].get(m) or original(m))

    return given


def _client(user: Any, lang: str) -> Client:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    return client


# ---------------------------------------------------------------------------- the cut card
def _shoe_closed(floor: Any) -> None:
    services.shoe_close(actor=floor.croupier, shoe=floor.shoe, reason="end of shoe")


def test_a_cut_card_out_of_the_shoe_is_said_with_its_pattern(croupier, table) -> None:
    floor = open_floor(croupier, table)
    _shoe_closed(floor)
    with pytest.raises(ValidationError) as refused:
        services.shoe_start(
            actor=croupier, session=floor.session, decks=6, burnt_cards=BURNT, cut_card_position=500
        )
    [message] = validation_messages(refused.value)
    assert message == "A position in a 6-deck shoe is between 1 and 311."  # the API's words, unchanged
    assert isinstance(message, Sentence)
    assert (message.pattern, message.values) == (CUT_CARD, {"decks": 6, "last": 311})


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_a_cut_card_out_of_the_shoe_is_refused_in_the_screen_s_language(
    croupier, table, catalogue, lang
) -> None:
    floor = open_floor(croupier, table)
    _shoe_closed(floor)
    catalogue(lang)
    client = _client(croupier, lang)
    shoes, before = Shoe.objects.count(), row_counts()
    answer = client.post(
        reverse("floor:shoe_start", args=[table.pk]),
        {"decks": "6", "burnt_cards": " ".join(BURNT), "cut_card_position": "500"},
        **HTMX,
    )
    html = unescape(answer.content.decode())
    assert answer.status_code == 400
    assert CATALOGUE[lang][CUT_CARD].format(decks=6, last=311) in html
    assert "A position in a 6-deck shoe" not in html
    assert (Shoe.objects.count(), row_counts()) == (shoes, before)


# --------------------------------------------------------------------- no correction awaiting
def test_an_approval_of_a_settled_coup_is_said_with_its_pattern(pit_boss, awaiting: History) -> None:
    with pytest.raises(CoupConflict) as refused:
        services.correction_approve(actor=pit_boss, coup=awaiting.clean)
    message = refused.value.message
    assert message == "This coup is settled: no correction awaits approval."  # unchanged in English
    assert isinstance(message, Sentence)
    assert (message.pattern, message.values) == (NOT_AWAITING, {"state": "settled"})


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_an_approval_of_a_settled_coup_is_refused_in_the_screen_s_language(
    pit_boss, awaiting: History, catalogue, lang
) -> None:
    catalogue(lang)
    client = _client(pit_boss, lang)
    before = row_counts()
    answer = client.post(reverse("review:coup_approve", args=[awaiting.clean.pk]), {"return": "row"})
    html = unescape(answer.content.decode())
    assert answer.status_code == 409
    state = CATALOGUE[lang]["Settled"]
    assert CATALOGUE[lang][NOT_AWAITING].format(state=state) in html
    assert "no correction awaits approval" not in html
    assert row_counts() == before
    assert Coup.objects.get(pk=awaiting.clean.pk).state == Coup.State.SETTLED
