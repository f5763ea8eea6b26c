"""Acknowledging an alert with htmx: the answer carries, out of band, every part of the alerts page
the acknowledgement changed — the top bar's badge, the page's open count and the history of
acknowledged alerts (the alert in it) — each under an id the page has."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from review.models import Alert
from review.services import alerts_raise

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def raised(history) -> list[Alert]:
    return alerts_raise(now=timezone.now())


def _oob(html: str) -> dict[str, str]:
    """The answer's out-of-band elements: id to the element's whole text."""
    found = {}
    for match in re.finditer(r'<(\w+)[^>]*\bid="([^"]+)"[^>]*\bhx-swap-oob="true"[^>]*>', html):
        tag, ident = match.group(1), match.group(2)
        end = html.index(f"</{tag}>", match.end())
        found[ident] = html[match.start() : end + len(tag) + 3]
    return found


def test_the_answer_carries_the_new_counts_and_the_alert_in_the_history(client, pit_boss, raised) -> None:
    first, second = raised
    client.force_login(pit_boss)
    page = client.get(reverse("review:alerts")).content.decode()
    assert '<section class="card" id="history" aria-labelledby="history-title">' in page
    assert "No alert acknowledged yet." in page

    url = reverse("review:alert_acknowledge", args=[first.pk])
    answer = client.post(url, {"note": "seen at the table"}, **HTMX)
    assert answer.status_code == 200
    html = answer.content.decode()
    oob = _oob(html)
    assert set(oob) == {"nav-alert-count", "alert-open-count", "history"}
    for ident in oob:  # each swaps an element the page has
        assert f'id="{ident}"' in page
    assert oob["nav-alert-count"].endswith(">1</span>")
    assert oob["alert-open-count"].endswith(">1</span>")
    history = oob["history"]
    assert f'data-testid="alert-history-{first.pk}"' in history
    assert "seen at the table" in history and "pitboss" in history
    assert f'data-testid="alert-history-{second.pk}"' not in history
    assert "No alert acknowledged yet." not in history
    # the row itself, swapped in place: acknowledged
    assert f'id="alert-{first.pk}"' in html and 'data-testid="acknowledged"' in html

    # the second one: both counts reach 0, the history holds both, the latest first
    html = client.post(
        reverse("review:alert_acknowledge", args=[second.pk]), {"note": "seen too"}, **HTMX
    ).content.decode()
    oob = _oob(html)
    assert oob["nav-alert-count"].endswith(">0</span>") and oob["alert-open-count"].endswith(">0</span>")
    history = oob["history"]
    assert history.index(f"alert-history-{second.pk}") < history.index(f"alert-history-{first.pk}")
    # the page after a reload shows the same history
    page = client.get(reverse("review:alerts")).content.decode()
    assert f'data-testid="alert-history-{first.pk}"' in page and 'hx-swap-oob="true"' not in page


def test_a_refused_acknowledgement_leaves_the_history_alone(client, pit_boss, raised) -> None:
    client.force_login(pit_boss)
    url = reverse("review:alert_acknowledge", args=[raised[0].pk])
    answer = client.post(url, {"note": ""}, **HTMX)
    assert answer.status_code == 400
    oob = _oob(answer.content.decode())
    assert set(oob) == {"nav-alert-count", "alert-open-count"}
    assert oob["alert-open-count"].endswith(">2</span>")


def test_the_history_sent_back_keeps_the_pages_filter(client, pit_boss, raised) -> None:
    first, second = raised
    assert first.kind != second.kind
    client.force_login(pit_boss)
    url = reverse("review:alert_acknowledge", args=[first.pk])
    client.post(url, {"note": "done", "kind": first.kind}, **HTMX)
    # the page filtered on the other kind: its history holds that kind only
    html = client.post(
        reverse("review:alert_acknowledge", args=[second.pk]), {"note": "ok", "kind": second.kind}, **HTMX
    ).content.decode()
    history = _oob(html)["history"]
    assert f"alert-history-{second.pk}" in history and f"alert-history-{first.pk}" not in history
