"""Compliance's page under /review/compliance/: the day's cash-transaction log, the reports to
file, marking one filed (who and when, audited); only the compliance role, in its casinos."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from cage import services as cage
from compliance.models import CashLogEntry, CashReport
from compliance.services import DocumentIn
from review.selectors.compliance import compliance_today
from tables.models import Casino
from tests.cage.conftest import key, new_player
from tests.factories import CasinoFactory, TableFactory, UserFactory

pytestmark = pytest.mark.django_db
PASSPORT = DocumentIn("passport", "12AB34567")


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def night(cashier, table):
    """M. Dupont bought 10,001 chips (logged, a report to file), Mme Roy 3,000 (not logged)."""
    casino = table.casino
    dupont = new_player(casino=casino, display_name="M. Dupont")
    roy = new_player(casino=casino, display_name="Mme Roy")
    cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=10_001, key=key(), document=PASSPORT)
    cage.cage_buy_in(actor=cashier, casino=casino, player=roy, amount=3_000, key=key())
    return dupont


def test_compliance_sees_the_day_s_log_and_the_reports_to_file(compliance_officer, night) -> None:
    report = CashReport.objects.get()
    # the report's own gaming day: the night may have been written just before midnight
    day = report.gaming_day.isoformat()
    response = _as(compliance_officer).get(reverse("review:compliance"), {"day": day})
    html = response.content.decode()
    assert response.status_code == 200
    log = html[html.index('data-testid="cash-log"') :]
    rows = re.findall(r'data-testid="log-\d+"><td class="nowrap">[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>'
                      r'<td class="num">([^<]*)</td><td>([^<]*)</td>', log)  # fmt: skip
    assert rows == [("M. Dupont", "cash in", "10,001", "cashier")]
    assert f'data-testid="report-{report.pk}"' in html and 'data-testid="file-' in html
    assert "12AB34567" not in html  # no identification on this page


def test_marking_filed_records_who_and_when_and_is_audited(compliance_officer, night) -> None:
    client = _as(compliance_officer)
    report = CashReport.objects.get()
    done = client.post(reverse("review:cash_report_file", args=[report.pk]))
    assert done.status_code == 302
    assert done["Location"] == f"{reverse('review:compliance')}?day={report.gaming_day.isoformat()}"
    report.refresh_from_db()
    assert (report.status, report.filed_by) == ("filed", compliance_officer)
    assert (
        AuditEvent.objects.filter(action="compliance.cash_report.file", actor=compliance_officer).count() == 1
    )
    html = client.get(done["Location"]).content.decode()
    assert "The report on M. Dupont is marked filed." in html
    assert 'data-testid="nothing-to-file"' in html and f'data-testid="filed-{report.pk}"' in html
    again = client.post(reverse("review:cash_report_file", args=[report.pk]))
    assert again.status_code == 409 and b"Already filed by compliance" in again.content
    assert AuditEvent.objects.filter(action="compliance.cash_report.file").count() == 1


@pytest.mark.parametrize("persona", ["cashier", "pit_boss", "accountant", "croupier", "outsider"])
def test_nobody_else_sees_the_page_or_files(request, night, persona) -> None:
    client = _as(request.getfixturevalue(persona))
    report = CashReport.objects.get()
    events = AuditEvent.objects.count()
    assert client.get(reverse("review:compliance")).status_code == 403
    assert client.post(reverse("review:cash_report_file", args=[report.pk])).status_code == 403
    report.refresh_from_db()
    assert (report.status, report.filed_by, AuditEvent.objects.count()) == ("open", None, events)


def test_compliance_sees_only_the_casinos_it_works_for(night) -> None:
    elsewhere = TableFactory().casino
    officer = UserFactory(username="compliance-elsewhere", roles=["compliance"], casinos=[elsewhere])
    client = _as(officer)
    report = CashReport.objects.get()
    html = client.get(reverse("review:compliance")).content.decode()
    assert 'data-testid="nothing-to-file"' in html and 'data-testid="no-log"' in html
    assert client.post(reverse("review:cash_report_file", args=[report.pk])).status_code == 403
    report.refresh_from_db()
    assert report.status == "open"


# ------------------------------------------------------------------ the day the page opens on
def _before_the_cut_off(monkeypatch, day: dt.date) -> dt.datetime:
    """Freeze the clock at 05:50 UTC the calendar day after ``day``: ten minutes before the 06:00
    cut-off of a casino on UTC, still its gaming day ``day``; the UTC calendar's next day."""
    at = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(5, 50), tzinfo=dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: at)
    return at


def test_the_page_opens_on_the_casino_s_gaming_day_before_its_cut_off(
    compliance_officer, night, monkeypatch
) -> None:
    client = _as(compliance_officer)
    entry = CashLogEntry.objects.get()
    _before_the_cut_off(monkeypatch, entry.gaming_day)
    response = client.get(reverse("review:compliance"))
    assert response.status_code == 200
    assert response.context["page"].day == entry.gaming_day
    assert [e.pk for e in response.context["page"].log] == [entry.pk]
    html = response.content.decode()
    assert f'data-testid="log-{entry.pk}"' in html and 'data-testid="no-log"' not in html
    assert f'name="day" value="{entry.gaming_day.isoformat()}"' in html


def test_casinos_sharing_one_boundary_open_on_their_gaming_day(night, table, monkeypatch) -> None:
    """A reader of two casinos of three (Paris and Brussels keep the same hours; Tokyo does not)."""
    paris, brussels = table.casino, CasinoFactory(time_zone="Europe/Brussels")
    tokyo = CasinoFactory(time_zone="Asia/Tokyo")
    Casino.objects.filter(pk=paris.pk).update(time_zone="Europe/Paris")
    officer = UserFactory(username="compliance-two", roles=["compliance"], casinos=[paris, brussels])
    winter = dt.date(2026, 12, 6)
    # 04:50 UTC on the 7th: 05:50 in Paris and Brussels, still their gaming day of the 6th
    at = dt.datetime(2026, 12, 7, 4, 50, tzinfo=dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: at)
    assert _as(officer).get(reverse("review:compliance")).context["page"].day == winter
    assert compliance_today(casinos=frozenset({paris.pk, brussels.pk}), now=at) == winter
    # with Tokyo (13:50 there: its gaming day of the 7th) the days differ: the UTC calendar's day
    assert compliance_today(casinos=frozenset({paris.pk, tokyo.pk}), now=at) == dt.date(2026, 12, 7)
    assert compliance_today(casinos=None, now=at) == dt.date(2026, 12, 7)
    # one casino alone: its own day, whatever the others'
    assert compliance_today(casinos=frozenset({tokyo.pk}), now=at) == dt.date(2026, 12, 7)
    assert compliance_today(casinos=frozenset({paris.pk}), now=at) == winter
    # after the cut-off (06:10 in Paris) every casino is on the 7th
    later = at + dt.timedelta(minutes=20)
    assert compliance_today(casinos=None, now=later) == dt.date(2026, 12, 7)
    # a reader of no casino: the UTC calendar's day
    assert compliance_today(casinos=frozenset(), now=at) == dt.date(2026, 12, 7)


def test_every_casino_on_one_boundary_opens_on_that_gaming_day(night, table, monkeypatch) -> None:
    """The group's compliance reads every casino (None); two casinos on UTC with the 06:00 cut-off."""
    CasinoFactory()
    every = list(Casino.objects.all())
    officer = UserFactory(username="compliance-group", roles=["compliance"], casinos=every)
    entry = CashLogEntry.objects.get()
    _before_the_cut_off(monkeypatch, entry.gaming_day)
    page = _as(officer).get(reverse("review:compliance")).context["page"]
    assert (page.day, [e.pk for e in page.log]) == (entry.gaming_day, [entry.pk])
