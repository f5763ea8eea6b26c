"""Compliance's page a page at a time (the day's log and the reports to file, each its own pages,
the day kept), a supplementary report marked as such, and the reports page titled for its reader."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from cage import services as cage
from compliance import services as compliance
from compliance.models import CashLogEntry, CashReport
from review.selectors.compliance import COMPLIANCE_PAGE_SIZE, compliance_page
from tests.cage.conftest import key, new_player
from tests.cage.conftest import superuser as superuser  # the persona fixture
from tests.review.test_compliance import PASSPORT, _as  # a signed-in client, the document

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy_night(cashier, table):
    """One more player than a page holds each buys 10,001: as many log entries, as many reports."""
    casino = table.casino
    for n in range(COMPLIANCE_PAGE_SIZE + 1):
        player = new_player(casino=casino, display_name=f"Player {n:02d}")
        cage.cage_buy_in(
            actor=cashier, casino=casino, player=player, amount=10_001, key=key(), document=PASSPORT
        )
    return CashLogEntry.objects.earliest("pk").gaming_day


def test_the_page_shows_a_page_of_each_list_with_its_pager(compliance_officer, busy_night) -> None:
    day = busy_night.isoformat()
    html = _as(compliance_officer).get(reverse("review:compliance"), {"day": day}).content.decode()
    assert len(re.findall(r'data-testid="log-\d+"', html)) == COMPLIANCE_PAGE_SIZE
    assert len(re.findall(r'data-testid="report-\d+"', html)) == COMPLIANCE_PAGE_SIZE
    count = COMPLIANCE_PAGE_SIZE + 1
    assert html.count(f"Page 1 of 2 · {count} in all") == 2
    # each pager's Next keeps the day and the other list's page; a button: 44px high (--touch)
    button = 'class="button button-secondary" href='
    assert f'{button}"?day={day}&amp;log_page=1&amp;to_file_page=2#to-file"' in html
    assert f'{button}"?day={day}&amp;to_file_page=1&amp;log_page=2#log"' in html


def test_each_list_turns_its_own_pages(busy_night) -> None:
    second = compliance_page(casinos=None, day=busy_night, log_page="2")
    assert (len(second.log), second.log.number, len(second.to_file), second.to_file.number) == (
        1, 2, COMPLIANCE_PAGE_SIZE, 1,
    )  # fmt: skip
    assert second.to_file_query == f"day={busy_night.isoformat()}&log_page=2"
    # the oldest entry last (newest first), the oldest report first
    assert [e.pk for e in second.log] == [CashLogEntry.objects.earliest("pk").pk]
    past = compliance_page(casinos=None, day=busy_night, to_file_page="99", log_page="nonsense")
    assert (past.to_file.number, [r.pk for r in past.to_file], past.log.number) == (
        2, [CashReport.objects.latest("pk").pk], 1,
    )  # fmt: skip
    assert past.log_query == f"day={busy_night.isoformat()}&to_file_page=2"


def test_the_second_page_of_the_log_is_reached_from_the_address(compliance_officer, busy_night) -> None:
    response = _as(compliance_officer).get(
        reverse("review:compliance"), {"day": busy_night.isoformat(), "log_page": "2"}
    )
    assert response.context["page"].log.number == 2


def test_a_supplementary_report_is_marked_with_what_was_filed(cashier, compliance_officer, table) -> None:
    casino = table.casino
    dupont = new_player(casino=casino, display_name="M. Dupont")
    cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=10_500, key=key(), document=PASSPORT)
    first = CashReport.objects.get()
    client = _as(compliance_officer)
    day = first.gaming_day.isoformat()
    html = client.get(reverse("review:compliance"), {"day": day}).content.decode()
    assert "10,500" in html and 'data-testid="supplementary-' not in html
    compliance.cash_report_file(actor=compliance_officer, report=first)
    cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=3_001, key=key())
    second = CashReport.objects.get(status="open")
    html = client.get(reverse("review:compliance"), {"day": day}).content.decode()
    row = html[html.index(f'data-testid="report-{second.pk}"') :].split("</tr>")[0]
    assert "Supplementary (filed earlier: 10,500)" in row and '<td class="num">13,501</td>' in row
    assert f'data-testid="filed-{first.pk}"' in html


@pytest.mark.parametrize(
    ("persona", "heading"),
    [
        ("compliance_officer", "Compliance reports"),
        ("accountant", "Accounting reports"),
        ("pit_boss", "Accounting reports"),
        ("superuser", "Reports"),
    ],
)
def test_the_reports_page_is_titled_for_its_reader(request, persona, heading) -> None:
    html = _as(request.getfixturevalue(persona)).get(reverse("review:exports")).content.decode()
    assert re.search(r"<h1>\s*(.*?)\s*</h1>", html, re.S).group(1) == heading  # type: ignore[union-attr]
