"""The pit boss's wide tables at the tablet's 1024x768, in English, French and Russian: every cell
in sight, none hidden past its table's scroll box (nothing said there is more).

- the dashboard's "Croupier error rates" and "Hold against the expected levy" (side by side, their
  Rate and Difference columns were cut in every language: now one card a row);
- the dashboard's open tables (ten columns, 1,084 px in Russian in a 934 px box: the link to the
  coup in play was out of sight; now tighter, headings in sentence case);
- a player's rating slip (eleven figures: from "Largest stake" on out of sight in Russian; now two
  tables on the same lines, what he played and what the house made of him).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from review.models import Alert
from review.services import alert_acknowledge, alerts_raise
from tables import services
from tables.models import Coup
from tests.factories import CroupierAssignmentFactory, TableFactory, UserFactory
from tests.review.history import play_clean, play_flagged
from tests.tables.play import coup_with_bets, open_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's

#: each cell of the table (by test id) measured against its scroll box and the window: the px by
#: which the widest one runs past either, and the cells that do
OUT_OF_SIGHT = """(testid) => {
  const table = document.querySelector(`[data-testid="${testid}"]`);
  if (!table) return null;
  const box = table.closest('.table-scroll') || table.parentElement;
  const right = Math.min(box.getBoundingClientRect().right, window.innerWidth);
  const cut = [...table.querySelectorAll('th, td, a')]
    .filter(cell => cell.getBoundingClientRect().right > right + 0.5)
    .map(cell => cell.innerText.trim().slice(0, 30));
  return {scroll: box.scrollWidth - box.clientWidth, cut};
}"""


def _at_the_bank_due(start: Callable[[int], Coup]) -> Coup:
    """``start(bank)`` with the bank the banker must go on with (it grows as the bank wins)."""
    try:
        return start(400)
    except ValidationError as refusal:
        due = re.search(r"at least (\d+)", str(refusal))
        assert due is not None, refusal
        return start(int(due.group(1)))


@pytest.fixture
def pit() -> dict[str, Any]:
    """A table open with a coup in play and one awaiting approval, two settled coups (error
    rates, hold), the alerts raised (the croupier's error rate among them)."""
    table = TableFactory()
    croupier = UserFactory(username="croupier", roles=["croupier"], casinos=[table.casino])
    CroupierAssignmentFactory(user=croupier, table=table)
    boss = UserFactory(username="pitboss", roles=["pit_boss"], casinos=[table.casino])
    floor = open_floor(croupier, table)
    play_clean(floor)
    first = play_flagged(floor)
    services.correction_submit(actor=croupier, coup=first, cards=["4C"])
    services.correction_approve(actor=boss, coup=first)
    second = _at_the_bank_due(lambda bank: play_flagged(floor, bank=bank))
    services.correction_submit(actor=croupier, coup=second, cards=["4C"])
    _at_the_bank_due(lambda bank: coup_with_bets(floor, (2, 50), (3, 20), bank=bank))
    alerts_raise(now=timezone.now())
    return {"banker": floor.players[1]}


def _pit_boss_tablet(browser: Any, base: str, lang: str) -> tuple[Any, Any]:
    """The pit boss signed in on the tablet (1024x768) in ``lang``: its context and page."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page = context.new_page()
    page.goto(f"{base}{reverse('login')}")
    page.fill("#id_username", "pitboss")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/")
    return context, page


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_every_column_is_in_sight_at_1024(browser, live_server, pit, lang: str) -> None:
    context, page = _pit_boss_tablet(browser, live_server.url, lang)

    page.goto(f"{live_server.url}{reverse('review:dashboard')}")
    for testid in ("error-rates", "hold", "open-tables"):
        measured = page.evaluate(OUT_OF_SIGHT, testid)
        assert measured == {"scroll": 0, "cut": []}, (lang, testid, measured)
    assert page.get_by_test_id("coup-in-play").first.is_visible()
    assert page.get_by_test_id("awaiting-approval").first.is_visible()

    page.goto(f"{live_server.url}{reverse('review:player', args=[pit['banker'].pk])}")
    for testid in ("rating", "rating-revenue"):
        measured = page.evaluate(OUT_OF_SIGHT, testid)
        assert measured == {"scroll": 0, "cut": []}, (lang, testid, measured)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    context.close()


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_a_long_unbroken_note_stays_in_the_alerts_history(browser, live_server, pit, lang: str) -> None:
    """A 500-character acknowledgement note with no space made the alerts history 9,115 px wide:
    it now breaks inside its cell."""
    boss = get_user_model().objects.get(username="pitboss")
    alert = Alert.objects.filter(acknowledged_at__isnull=True).order_by("pk").first()
    assert alert is not None
    alert_acknowledge(actor=boss, alert=alert, note="N" * 500, now=timezone.now())
    context, page = _pit_boss_tablet(browser, live_server.url, lang)
    page.goto(f"{live_server.url}{reverse('review:alerts')}")
    assert page.get_by_test_id(f"alert-history-{alert.pk}").is_visible()
    assert page.evaluate(OUT_OF_SIGHT, "alert-history") == {"scroll": 0, "cut": []}
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    context.close()


#: each "By" cell of the coup's steps: its text's lines (its height over its line height)
BY_LINES = """() => [...document.querySelectorAll('[data-testid=step-by]')].map(cell => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  return range.getClientRects().length;
})"""


@pytest.mark.parametrize("lang", ["en", "fr", "ru"])
def test_the_steps_say_who_entered_each_in_one_piece(browser, live_server, pit, lang: str) -> None:
    """The coup's steps, step by step: "By" showed "croupie / r" in Russian at 1024 px (every cell
    could break anywhere, so the narrow column broke the username); a username now stays whole."""
    coup = Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL).order_by("pk").first()
    assert coup is not None
    context, page = _pit_boss_tablet(browser, live_server.url, lang)
    page.goto(f"{live_server.url}{reverse('review:coup', args=[coup.pk])}")
    lines = page.evaluate(BY_LINES)
    assert lines and set(lines) == {1}, (lang, lines)
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    context.close()
