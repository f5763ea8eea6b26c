"""The croupier's next action on the tablet, 1024x768 landscape, without scrolling (QA sweep):

- Macao with draw, discard and stand offered: "Stand" was under two full card pickers (y 1102 on a
  1436 px page); the decisions now come before the pickers, every one of them on screen, 44x44 px;
- chemin de fer, in French, a bet amended ("Corriger" on step 2): its submit opened at y 1048-1092,
  below the fold, and a refused amount ("il ne reste que ...") showed its reason further down while
  the focus went to a bet field and the amount and reason typed were lost. The opened amendment is a
  sheet at the foot of the screen (app.css); refused, it stays open with the reason above its
  submit, the amount, bettor and reason as typed, the focus in its amount field.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections
from django.urls import reverse

from tables.models import CoupStep
from tests.browser.test_tablet import _seated as _game_seated
from tests.browser.test_tablet import _steps
from tests.browser.test_tablet_rows import VIEWPORT, _open, _tablet
from tests.browser.test_tablet_rows import _seated as _cdf_seated
from tests.tables.play import coup_with_bets

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: each element of ``selector``: its box in the page (scroll offsets added), its label
BOXES_JS = """(selector) => [...document.querySelectorAll(selector)]
    .filter(e => e.getClientRects().length > 0)
    .map(e => { const r = e.getBoundingClientRect();
        return {text: (e.innerText || e.value || '').trim(), top: r.top + scrollY, bottom: r.bottom + scrollY,
                left: r.left + scrollX, right: r.right + scrollX, width: r.width, height: r.height}; })"""


def _boxes(page: Any, selector: str) -> list[dict[str, Any]]:
    boxes: list[dict[str, Any]] = page.evaluate(BOXES_JS, selector)
    return boxes


def _on_screen(box: dict[str, Any]) -> bool:
    return (
        box["top"] >= -0.5
        and box["bottom"] <= VIEWPORT["height"] + 0.5
        and box["left"] >= -0.5
        and box["right"] <= VIEWPORT["width"] + 0.5
        and box["width"] >= 43.99
        and box["height"] >= 43.99
    )


def test_macao_s_decisions_are_on_screen_above_the_card_pickers(demo, live_server, browser) -> None:
    base = live_server.url
    table, who, keys = _game_seated("Macao 1")
    # the deal: the first punter holds a ten, so he may stand, draw or throw the ten aside
    _steps(who, [{"kind": "deal", "card": c} for c in ("TD", "4S", "3C", "5H")])
    context, page = _tablet(browser, base)
    try:
        for lang in ("en", "fr", "ru"):
            _open(page, base, f"{base}{reverse('floor:game', args=[table.pk])}", lang)
            pickers = page.locator("#game-panel form.card-form")
            assert sorted(pickers.evaluate_all("fs => fs.map(f => f.dataset.kind)")) == ["discard", "draw"]
            stand = _boxes(page, f"[data-testid=step-stand-{keys[1]}] .button")
            assert page.evaluate("[scrollX, scrollY]") == [0, 0], f"{lang}: the page opened scrolled"
            assert len(stand) == 1 and _on_screen(stand[0]), f"{lang}: Stand at {stand}"
            # the typed card's field of the first picker still has the focus, on screen
            typed = _boxes(page, "#game-panel form.card-form [data-testid=card-input]")
            assert typed and _on_screen(typed[0]), f"{lang}: the card field at {typed}"
    finally:
        context.close()
        connections.close_all()


#: where the focus is, the page's scroll offset
FOCUS_JS = "() => [document.activeElement && document.activeElement.id, scrollY]"
#: no request out, no swap under way
SETTLED_JS = "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"


def test_a_refused_amendment_stays_on_screen_with_what_was_typed(demo, live_server, browser) -> None:
    base = live_server.url
    floor = _cdf_seated("Casino table")
    # a bank of 500: Mme Leroy's 100 (step 2), then Comte Orlov's 300: 200 of the bank left to cover
    coup = coup_with_bets(floor, (2, 100), (3, 300), bank=500)
    index = CoupStep.objects.get(coup=coup, payload__amount=100).index
    url = f"{base}{reverse('floor:table', args=[floor.table.pk])}"
    context, page = _tablet(browser, base)
    try:
        _open(page, base, url, "fr")
        page.locator("[data-testid=history] > summary").click()
        page.get_by_test_id(f"amend-{index}").click()
        submit = page.get_by_test_id(f"amend-submit-{index}")
        # the croupier taps "Corriger" where it is: the form opens on the screen as it is scrolled
        page.get_by_test_id(f"amend-{index}").scroll_into_view_if_needed()
        box = _boxes(page, f"[data-testid=amend-submit-{index}]")[0]
        scrolled = page.evaluate("scrollY")
        print("opened: submit", box, "scrollY", scrolled)
        assert box["bottom"] - scrolled <= VIEWPORT["height"] + 0.5, f"the submit at {box}, at {scrolled}"
        page.fill(f"#amend-{index}-amount", "400")
        page.fill(f"#amend-{index}-reason", "typed 100 for 400")
        with page.expect_response(lambda r: r.request.method == "POST"):
            submit.click()
        page.wait_for_selector(f"[data-testid=history-{index}] [data-testid=error]")
        page.wait_for_function(SETTLED_JS)
        page.wait_for_timeout(100)
        error = _boxes(page, f"[data-testid=history-{index}] [data-testid=error]")[0]
        box = _boxes(page, f"[data-testid=amend-submit-{index}]")[0]
        focus, scrolled = page.evaluate(FOCUS_JS)
        print("refused: error", error, "submit", box, "focus", focus, "scrollY", scrolled)
        assert "il ne reste que" in error["text"]
        for what, b in (("the refusal", error), ("the submit", box)):
            assert scrolled - 0.5 <= b["top"] and b["bottom"] <= scrolled + VIEWPORT["height"] + 0.5, (
                f"{what} at {b}, the page scrolled to {scrolled}"
            )
        assert focus == f"amend-{index}-amount"
        assert page.input_value(f"#amend-{index}-amount") == "400"
        assert page.input_value(f"#amend-{index}-reason") == "typed 100 for 400"
        assert page.locator(f"#amend-{index}-punter").evaluate("s => s.selectedOptions[0].value") == (
            page.locator(f"#amend-{index}-punter option[selected]").get_attribute("value")
        )
    finally:
        context.close()
        connections.close_all()
