"""A coup's result on the pit boss's pages is said in sentence case, as the tablet says it: the
queue's "As played: … → restored: …" and a coup's "Outcome:", in French "La banque gagne" (a
capitalize rule made it "La Banque Gagne": every word raised), the first letter alone raised."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from tables import services
from tables.wording import OUTCOME_LABELS
from tests.browser.test_croupier_flow import PASSWORD
from tests.review.history import play_clean, play_flagged
from tests.tables.play import open_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: each result on the page: its words as the page shows them (the text with the CSS's case: the
#: first letter as ::first-letter styles it, the rest as the element does), and its text
OUTCOMES_JS = """() => [...document.querySelectorAll('.outcome')].map(e => {
    const text = e.textContent.trim();
    const whole = getComputedStyle(e).textTransform;
    const first = getComputedStyle(e, '::first-letter').textTransform;
    const cased = (s, how) => how === 'uppercase' ? s.toUpperCase()
        : how === 'capitalize' ? s.replace(/(^|\\s)(\\p{L})/gu, (m, a, b) => a + b.toUpperCase())
        : how === 'lowercase' ? s.toLowerCase() : s;
    const rest = cased(text, whole);
    return [text, cased(rest.slice(0, 1), first === 'none' ? whole : first) + rest.slice(1)];
})"""


@pytest.fixture
def restored(croupier, table) -> Any:
    """A clean coup, then a flagged one (as played: the player wins) restored (the banker wins)."""
    floor = open_floor(croupier, table)
    play_clean(floor)
    flagged = play_flagged(floor)
    services.correction_submit(actor=croupier, coup=flagged, cards=["4C"])
    return flagged


def test_results_are_in_sentence_case(restored, pit_boss, live_server, browser) -> None:
    base = live_server.url
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    shown: dict[tuple[str, str], list[list[str]]] = {}
    try:
        page.goto(f"{base}{reverse('login')}")
        page.fill("#id_username", pit_boss.username)
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_url(f"{base}/")
        for lang in ("fr", "en", "ru"):
            context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": lang, "url": base}])
            pages = (("queue", reverse("review:queue")), ("coup", reverse("review:coup", args=[restored.pk])))
            for name, url in pages:
                page.goto(base + url)
                shown[(lang, name)] = page.evaluate(OUTCOMES_JS)
    finally:
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection
    # the words are the translations' ("La banque gagne"); only their case is the page's
    said = {}
    for lang in ("fr", "en", "ru"):
        with translation.override(lang):
            said[lang] = [gettext(OUTCOME_LABELS[o]) for o in ("player", "banker")]
    # as played, the player wins; restored, the banker: in the queue's row and the coup's columns
    assert shown == {(lang, name): [[w, w[0].upper() + w[1:]] for w in said[lang]] for lang, name in shown}
    assert said["fr"] == ["Le joueur gagne", "La banque gagne"]
    assert sorted(shown) == sorted((lang, name) for lang in ("fr", "en", "ru") for name in ("queue", "coup"))
