"""The evidence of a money-flow alert in a real browser (headless Chromium): a night where player 2
loses 100 chips six times to player 1's bank, standing on 5 each time (the worse choice); the scan
raises the alert; the pit boss opens it from his alerts, compliance from its page, on the 1024x768
tablet in English and French and on a phone in Russian. On every view: no sideways scroll, every
control at least 44 px high, the page's words in the reader's language; the pit boss follows a
coup's link to its review page.

tests/browser/test_layout.py leaves this page to this test: its floor has no pair of players to
flag. On failure the page is saved as a screenshot in test-artifacts/.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.urls import reverse
from django.utils import timezone

from review.models import Alert, AlertKind, AlertSettings
from review.services import alerts_raise
from tests.browser.test_croupier_flow import ARTIFACTS, Screen
from tests.browser.test_layout import OPEN_DETAILS_JS, SMALL_CONTROLS_JS, TOUCH_CONTROLS, WIDTH_JS
from tests.review.test_flows import _launder
from tests.tables.play import open_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: (width, height, language, words the evidence page shows in it)
VIEWS = (
    (1024, 768, "en", ("Money passed between players", "Player 2 to Player 1", "Flows by gaming day")),
    (1024, 768, "fr", ("Argent passé entre joueurs", "Flux par jour de jeu")),
    (390, 844, "ru", ("Деньги, переданные между игроками", "Потоки по игровым дням")),
)


@pytest.fixture
def flagged(transactional_db, croupier, table, pit_boss, compliance_officer) -> dict[str, Any]:
    floor = open_floor(croupier, table, seats=(1, 2, 3), chips=5_000)
    coups = _launder(floor)
    AlertSettings.objects.create(casino=table.casino, flow_threshold=500)
    alerts_raise(now=timezone.now())
    [alert] = Alert.objects.filter(kind=AlertKind.MONEY_FLOW)
    return {"alert": alert, "coups": coups}


def _checked(screen: Screen, words: tuple[str, ...], where: str) -> None:
    page = screen.page
    page.evaluate(OPEN_DETAILS_JS)
    scroll_width, inner_width, out = page.evaluate(WIDTH_JS)
    assert scroll_width <= inner_width, (where, scroll_width, inner_width, out)
    assert page.evaluate(SMALL_CONTROLS_JS, TOUCH_CONTROLS) == [], where
    text = page.inner_text("body")
    assert all(word in text for word in words), (where, [w for w in words if w not in text])


def test_the_pit_boss_and_compliance_read_the_evidence_on_a_tablet_and_a_phone(
    flagged, live_server, browser
) -> None:
    alert, coups = flagged["alert"], flagged["coups"]
    evidence = reverse("review:flow_alert", args=[alert.pk])
    for persona, start, link in (
        ("pitboss", reverse("review:alerts"), "[data-testid=alert-flow-evidence]"),
        ("compliance", reverse("review:compliance"), f"[data-testid=flow-alert-{alert.pk}] a"),
    ):
        for width, height, lang, words in VIEWS:
            where = f"{persona} {width}x{height} {lang}"
            context = browser.new_context(viewport={"width": width, "height": height})
            cookie = {"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "url": live_server.url}
            context.add_cookies([cookie])
            screen = Screen(context.new_page(), live_server.url, persona)
            try:
                screen.login(persona)
                screen.page.goto(f"{live_server.url}{start}")
                screen.page.click(link)
                screen.page.wait_for_url(f"{live_server.url}{evidence}")
                assert screen.text("flow") == "600", where
                assert [screen.by(f"flow-coup-{pk}").count() for pk in coups] == [1] * 6, where
                _checked(screen, words, where)
                links = screen.page.locator("[data-testid=flow-coups] a")
                if persona == "compliance":
                    assert links.count() == 0, where  # a coup's review page is the pit boss's
                    continue
                assert links.count() == 6, where
                with screen.page.expect_navigation():
                    links.first.click()
                assert screen.page.url == f"{live_server.url}{reverse('review:coup', args=[coups[0]])}", where
            except BaseException:
                ARTIFACTS.mkdir(exist_ok=True)
                shot = ARTIFACTS / f"flow-alert-{persona}-{width}x{height}-{lang}.png"
                screen.page.screenshot(path=str(shot), full_page=True)
                raise
            finally:
                context.close()
    assert Alert.objects.get(pk=alert.pk).is_open  # reading the evidence acknowledges nothing
    connections.close_all()
