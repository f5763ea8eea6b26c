# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""The services' refusals, said (core.sentence) rather than raised as plain English strings, are
read in the croupier screen's language (tests/core/test_refusals_said.py keeps them said). The
QA sweep's repro: at a club table, a spectator's second share of the same bank was refused in
English on the French and Russian screens. The service keeps its English sentence, word for word."""

from __future__ import annotations

from html import unescape

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from core.errors import validation_messages
from core.sentence import Sentence
from tables import services
from tables.models import BankShare
from tests.tables.play import open_floor, row_counts

from .conftest import HTMX

pytestmark = pytest.mark.django_db

ALREADY_SHARED = {
    "en": "This spectator already has a share of this bank.",
    "fr": "Ce spectateur a déjà une part de cette banque.",
    "ru": "У этого зрителя уже есть доля в этом банке.",
}
NO_SHARE = {
    "en": "This spectator has no share in the bank.",
    "fr": "Ce spectateur n'a pas de part dans la banque.",
    "ru": "У этого зрителя нет доли в банке.",
}


def _client(croupier, lang: str) -> Client:
    client = Client()
    client.force_login(croupier)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    return client


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_a_second_share_of_the_bank_is_refused_in_the_screens_language(croupier, club_table, lang) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    client = _client(croupier, lang)
    url = reverse("floor:bank_share", args=[club_table.pk])
    put = client.post(url, {"spectator": spectator.pk, "amount": 3}, **HTMX)
    assert put.status_code == 200 and BankShare.objects.get().contributed == 3
    before = row_counts()
    again = client.post(url, {"spectator": spectator.pk, "amount": 4}, **HTMX)
    page = unescape(again.content.decode())
    assert again.status_code == 400 and row_counts() == before
    assert f"<p>{ALREADY_SHARED[lang]}</p>" in page
    assert ALREADY_SHARED["en"] not in page
    assert BankShare.objects.get().contributed == 3  # the first share stands


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_a_share_taken_out_that_was_never_put_up_is_refused_in_the_screens_language(
    croupier, club_table, lang
) -> None:
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    client = _client(croupier, lang)
    before = row_counts()
    refused = client.post(
        reverse("floor:bank_share_out", args=[club_table.pk]), {"spectator": spectator.pk}, **HTMX
    )
    page = unescape(refused.content.decode())
    assert refused.status_code == 400 and row_counts() == before
    assert f"<p>{NO_SHARE[lang]}</p>" in page and NO_SHARE["en"] not in page


def test_the_service_keeps_the_english_sentence(croupier, club_table) -> None:
    """What the API answers and the tests read: the English, as before; a screen reads its pattern."""
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=3)
    with pytest.raises(ValidationError) as refused:
        services.bank_share_contribute(actor=croupier, session=floor.session, spectator=spectator, amount=3)
    [message] = validation_messages(refused.value)
    assert message == ALREADY_SHARED["en"] and str(message) == ALREADY_SHARED["en"]
    assert isinstance(message, Sentence) and message.pattern == ALREADY_SHARED["en"]
    assert refused.value.messages == [ALREADY_SHARED["en"]]
