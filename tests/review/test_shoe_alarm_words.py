"""A shoe closed with its session (tables.services.floor) stores why in English, in its alarm's
detail and the alert's summary (the audit trail's words); the pit boss's pages say that reason in
their language (tables.wording.SHOE_CLOSE_REASONS), a reason a croupier typed as typed, and a detail
worded otherwise (an older row) as stored."""

from __future__ import annotations

import datetime as dt
from html import unescape

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.models import Alert, AlertKind
from review.services import alerts_raise
from tables import services
from tables.models import ShoeAlarm
from tests.tables.play import open_floor

pytestmark = pytest.mark.django_db

#: the detail as stored, and as each page says it: the floor's own reason in the page's words
DETAIL = "closed after 3 of 312 cards (session closed)"
SAID = {
    "en": DETAIL,
    "fr": "fermé après 3 cartes sur 312 (table fermée)",
    "ru": "закрыт после 3 карт из 312 (стол закрыт)",
}
#: the alert's summary around it, said in each language ({table}, {started}: the table's, the shoe's)
SUMMARY = {
    "fr": "{table} · sabot 1 du {started} : sabot rebattu avant les 5/6 ({detail})",
    "ru": "{table} · шуз 1 от {started}: перетасован до 5/6 ({detail})",
}


@pytest.fixture
def closed_with_its_session(croupier, table) -> ShoeAlarm:
    """A table closed after its shoe's three burnt cards: the shoe closes with the session, early."""
    floor = open_floor(croupier, table)
    services.table_session_close(actor=croupier, session=floor.session)
    alarm = ShoeAlarm.objects.get(shoe=floor.shoe)
    alerts_raise(now=timezone.now())
    return alarm


def _page(user, url: str, lang: str) -> str:
    client = Client()
    client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    response = client.get(url)
    assert response.status_code == 200
    return unescape(response.content.decode())


def test_the_reason_is_stored_in_english(closed_with_its_session) -> None:
    assert closed_with_its_session.detail == DETAIL
    assert closed_with_its_session.shoe.close_reason == "session closed"
    alert = Alert.objects.get(kind=AlertKind.SHOE_ALARM)
    assert alert.summary.endswith(f"reshuffled before 5/6 dealt ({DETAIL})")


@pytest.mark.parametrize("lang", ["fr", "ru"])
def test_the_dashboard_and_the_alerts_say_the_reason_in_their_language(
    pit_boss, table, closed_with_its_session, lang
) -> None:
    dashboard = _page(pit_boss, reverse("review:dashboard"), lang)
    assert f">{SAID[lang]}</td>" in dashboard
    started = timezone.localtime(closed_with_its_session.shoe.shuffled_at, dt.UTC)  # the casino's zone
    summary = SUMMARY[lang].format(table=table.name, started=f"{started:%Y-%m-%d %H:%M}", detail=SAID[lang])
    assert summary in _page(pit_boss, reverse("review:alerts"), lang)
    assert summary in dashboard  # the open alerts, on the dashboard too
    assert "session closed" not in dashboard


def test_a_reason_typed_by_the_croupier_is_shown_as_typed(croupier, pit_boss, table) -> None:
    floor = open_floor(croupier, table)
    services.shoe_close(actor=croupier, shoe=floor.shoe, reason="session closed early, wet cards")
    page = _page(pit_boss, reverse("review:dashboard"), "fr")
    assert ">fermé après 3 cartes sur 312 (session closed early, wet cards)</td>" in page


def test_a_detail_worded_otherwise_is_shown_as_stored(croupier, pit_boss, closed_with_its_session) -> None:
    """An older row, worded before the pattern: said as it is stored, not half translated."""
    ShoeAlarm.objects.filter(pk=closed_with_its_session.pk).update(detail="reshuffled early: session closed")
    page = _page(pit_boss, reverse("review:dashboard"), "fr")
    assert ">reshuffled early: session closed</td>" in page
