"""Compliance's page under /review/compliance/: the day's cash-transaction log, the reports to
file, marking one filed (who and when, audited); only the compliance role, in its casinos."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from audit.models import AuditEvent
from cage import services as cage
from compliance.models import CashReport
from compliance.services import DocumentIn
from tests.cage.conftest import key, new_player
from tests.factories import TableFactory, UserFactory

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
    response = _as(compliance_officer).get(
        reverse("review:compliance"), {"day": report.gaming_day.isoformat()}
    )
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
