"""After a pit boss voids a coup, on the croupier's tablet at 1024x768 (QA sweep):

- the notice of the void, the last coup's result and the next declare: "<banker> passes the bank"
  ended at y 776 in English and 810 in Russian (below the fold of a 768 px screen, and in French
  too). The notice is one compact line, the result's hands compact: the bank, "Declare the bank"
  and the pass are wholly in the first viewport in English, French and Russian, the notice and
  the result still shown above them;
- the Content-Security-Policy (style-src 'self') refused an inline style on every htmx swap: htmx
  settled the ``style`` attribute, copying the old element's onto the new one (an input that
  Playwright's screenshot, an extension or devtools had given a ``style``). base.html's htmx-config
  settles no ``style`` now: swaps on the croupier's screen and on the pit boss's coup review and
  live dashboard, each after a screenshot, raise no violation.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.urls import reverse

from casino.management.commands.load_demo import DEMO_STAFF
from tables import services
from tables.models import Coup
from tests.browser.test_default_night import CSP_LISTENER
from tests.browser.test_tablet import MEASURE_JS
from tests.browser.test_tablet_next_action import SETTLED_JS
from tests.browser.test_tablet_rows import LANGUAGES, SCREENSHOTS, VIEWPORT, _open, _seated, _tablet
from tests.tables.play import Floor, coup_with_bets, play

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REASON = "Игрок не может оплатить ставку"
DECLARE = [
    ("bank", "[data-testid=bank-amount]"),
    ("declare", "[data-testid=declare-bank]"),
    ("pass", "[data-testid=pass-bank]"),
]
#: every element with an id in ``selector`` gets an inline style through the CSSOM (which the
#: policy allows), as an extension or devtools would: htmx settling ``style`` would copy it
STYLED_JS = """(selector) => { for (const e of document.querySelectorAll(`${selector}, ${selector} [id]`)) {
    e.style.outlineOffset = '0px'; } }"""


def _played_then_voiding() -> tuple[Floor, Coup]:
    """At the casino table, M. Dupont banks (seat 1): a stand-off, 7 to 7, against Mme Leroy and
    Comte Orlov; then a bank of 975 with Mme Leroy's bet, open: the coup a pit boss voids."""
    floor = _seated("Casino table")
    cards = ("5S", "4H", "2D", "3C")
    play(floor, bank=400, bets=[(2, 200), (3, 200)], cards=cards, player="stand", banker="stand")
    coup = coup_with_bets(floor, (2, 100), bank=975)
    return floor, coup


def _pit_boss() -> Any:
    return get_user_model().objects.get(username="pitboss")


def _violations(page: Any, found: list[str]) -> None:
    page.on(
        "console",
        lambda m: (
            found.append(m.text)
            if m.type == "error" and ("Content-Security-Policy" in m.text or "inline style" in m.text)
            else None
        ),
    )


def test_the_declare_stays_on_screen_after_a_void(demo, live_server, browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    floor, coup = _played_then_voiding()
    services.coup_void(actor=_pit_boss(), coup=coup, reason=REASON)
    base = live_server.url
    url = f"{base}{reverse('floor:table', args=[floor.table.pk])}"
    context, page = _tablet(browser, base)
    problems: list[str] = []
    shown: list[tuple[str, bool, bool]] = []
    try:
        for lang in LANGUAGES:
            _open(page, base, url, lang)
            page.screenshot(path=str(SCREENSHOTS / f"after-void-declare-{lang}.png"))
            problems += [f"{lang}: {p}" for p in page.evaluate(MEASURE_JS, [DECLARE, []])]
            voided = page.get_by_test_id("voided")
            result = page.get_by_test_id("result")
            shown.append((lang, voided.is_visible() and REASON in voided.inner_text(), result.is_visible()))
            # the notice in one line: no taller than the line's height and its padding
            height = voided.evaluate("e => e.getBoundingClientRect().height")
            line = voided.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
            assert height < 2 * line, f"{lang}: the void's notice is {height} px high, a line is {line}"
    finally:
        context.close()
        connections.close_all()  # see test_croupier_flow: the ORM's second connection
    assert problems == []
    assert shown == [(lang, True, True) for lang in LANGUAGES]


def test_no_swap_applies_an_inline_style(demo, live_server, browser) -> None:
    floor, coup = _played_then_voiding()
    base = live_server.url
    violations: list[str] = []
    # the pit boss voids the coup from its review page, then his live dashboard polls
    boss = browser.new_context(viewport=VIEWPORT)
    boss.set_default_timeout(10_000)
    boss.add_init_script(CSP_LISTENER)
    try:
        page = boss.new_page()
        _violations(page, violations)
        page.goto(f"{base}{reverse('login')}")
        page.fill("#id_username", "pitboss")
        page.fill("#id_password", DEMO_STAFF["pitboss"][0])
        page.click("main button[type=submit]")
        page.wait_for_url(f"{base}/")
        page.goto(f"{base}{reverse('review:coup', args=[coup.pk])}")
        page.get_by_test_id("void-open").click()
        page.fill("#void-reason", REASON)
        page.screenshot()  # Playwright's screenshot leaves style="" on every input
        page.evaluate(STYLED_JS, "#coup-review")
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.locator("[data-testid=void-form] button[type=submit]").click()
        page.wait_for_function(SETTLED_JS)
        assert Coup.objects.get(pk=coup.pk).state == Coup.State.VOID
        page.goto(f"{base}{reverse('review:dashboard')}")
        page.wait_for_selector("#live")
        page.screenshot()
        page.evaluate(STYLED_JS, "#live")
        with page.expect_response(lambda r: reverse("review:dashboard_live") in r.url):
            page.evaluate("document.dispatchEvent(new Event('pitvisible'))")
        page.wait_for_function(SETTLED_JS)
        page.wait_for_timeout(100)
    finally:
        boss.close()
    # the croupier, in Russian: a refused bank, the bank declared, a refused bet, a bet, each
    # swap after a screenshot
    context, page = _tablet(browser, base)
    context.add_init_script(CSP_LISTENER)
    _violations(page, violations)
    bet = "[data-testid=bettor-seat-2] .bet-form button:not([name])"
    swaps = [
        ("[data-testid=bank-amount]", "5", "[data-testid=declare-bank]", "[data-testid=error]"),
        ("[data-testid=bank-amount]", "975", "[data-testid=declare-bank]", "[data-testid=coup]"),
        ("[data-testid=amount-seat-2]", "5000", bet, "[data-testid=error]"),
        ("[data-testid=amount-seat-2]", "200", bet, "[data-testid=staked-seat-2]"),
    ]
    try:
        _open(page, base, f"{base}{reverse('floor:table', args=[floor.table.pk])}", "ru")
        for field, value, button, then in swaps:
            page.evaluate("document.querySelectorAll('form').forEach(f => f.noValidate = true)")
            page.fill(field, value)
            page.screenshot()
            page.evaluate(STYLED_JS, "#coup-panel")
            with page.expect_response(lambda r: r.request.method == "POST"):
                page.click(button)
            page.wait_for_selector(then)
            page.wait_for_function(SETTLED_JS)
            page.wait_for_timeout(100)
    finally:
        context.close()
        connections.close_all()
    assert violations == []
