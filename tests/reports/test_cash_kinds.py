"""The compliance report kinds, cash-log and cash-reports: their lines exact, in CSV, XLSX and
PDF, asked for and taken by compliance only, written by the report runs like every kind."""

from __future__ import annotations

import io
import re

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from cage import services as cage
from compliance import services as compliance
from compliance.models import CashLogEntry, CashReport
from compliance.services import DocumentIn
from reports.kinds import KINDS, ReportRequest
from reports.models import ReportRun
from reports.services import report_run_download, report_run_execute, report_run_request
from tables.gaming_day import casino_calendar
from tests.cage.conftest import key, new_player
from tests.reports.helpers import csv_parts, run
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db


@pytest.fixture
def night(cashier, compliance_officer, table):
    """M. Dupont buys 10,001 (logged, a report, filed), Mme Roy buys 3,500 and cashes out 3,001
    (both logged), M. Petit buys 3,000 (not logged)."""
    casino = table.casino
    dupont = new_player(casino=casino, display_name="M. Dupont")
    roy = new_player(casino=casino, display_name="Mme Roy")
    petit = new_player(casino=casino, display_name="M. Petit")
    passport = DocumentIn("passport", "12AB34567")
    cage.cage_buy_in(actor=cashier, casino=casino, player=dupont, amount=10_001, key=key(), document=passport)
    cage.cage_buy_in(actor=cashier, casino=casino, player=roy, amount=3_500, key=key())
    cage.cage_cash_out(actor=cashier, casino=casino, player=roy, amount=3_001, key=key())
    cage.cage_buy_in(actor=cashier, casino=casino, player=petit, amount=3_000, key=key())
    compliance.cash_report_file(actor=compliance_officer, report=CashReport.objects.get())
    return casino, dupont, roy


def _when(at, casino) -> str:
    return at.astimezone(casino_calendar(casino).tz).replace(microsecond=0).isoformat()


def test_the_cash_log_s_lines(night) -> None:
    casino, dupont, roy = night
    day = CashLogEntry.objects.earliest("pk").gaming_day
    body, result = run("cash-log", "csv", day, day, casino_id=casino.pk)
    header, table = csv_parts(body)
    assert (header["Policy"], header["Log above"], header["Report above (a day's total)"]) == (
        "US Title 31", "3000 EUR", "10000 EUR"
    )  # fmt: skip
    assert header["One chip"] == "1.00 EUR"
    # no table filter, so no "Table: all tables" (the cage's transactions are no table's)
    assert list(header) == [
        "report", "Casino", "Gaming days", "Gaming day", "Amounts", "Policy", "Log above",
        "Report above (a day's total)", "Identification at or above", "One chip", "Times", "Generated",
    ]  # fmt: skip
    e1, e2, e3 = CashLogEntry.objects.order_by("pk")
    d = day.isoformat()
    heading = ["line", "gaming_day", "logged_at", "player_id", "player", "direction", "amount", "value"]
    assert table[0] == [*heading, "cashier", "table", "transaction_id"]
    assert table[1:] == [
        ["data", d, _when(e1.logged_at, casino), str(dupont.pk), "M. Dupont", "cash in", "10001",
         "10001.00 EUR", "cashier", "", str(e1.transaction_id)],
        ["data", d, _when(e2.logged_at, casino), str(roy.pk), "Mme Roy", "cash in", "3500", "3500.00 EUR",
         "cashier", "", str(e2.transaction_id)],
        ["data", d, _when(e3.logged_at, casino), str(roy.pk), "Mme Roy", "cash out", "3001", "3001.00 EUR",
         "cashier", "", str(e3.transaction_id)],
        ["total", "period", "", "", "all players", "cash in", "13501", "13501.00 EUR", "", "", ""],
        ["total", "period", "", "", "all players", "cash out", "3001", "3001.00 EUR", "", "", ""],
    ]  # fmt: skip
    assert result.rows == 3


def test_the_reports_to_file_s_lines(night, compliance_officer) -> None:
    casino, dupont, _roy = night
    report = CashReport.objects.get()
    day = report.gaming_day
    body, result = run("cash-reports", "csv", day, day, casino_id=casino.pk)
    header, table = csv_parts(body)
    assert "Table" not in header
    heading = ["line", "gaming_day", "player_id", "player", "direction", "total", "value", "opened_at"]
    assert table[0] == [*heading, "status", "filed_by", "filed_at", "transaction_id"]
    assert table[1:] == [
        ["data", day.isoformat(), str(dupont.pk), "M. Dupont", "cash in", "10001", "10001.00 EUR",
         _when(report.opened_at, casino), "filed", "compliance", _when(report.filed_at, casino),
         str(report.transaction_id)],
        ["total", "period", "", "0 report(s)", "", "", "", "", "open", "", "", ""],
        ["total", "period", "", "1 report(s)", "", "", "", "", "filed", "", "", ""],
    ]  # fmt: skip
    assert result.rows == 1


@pytest.mark.parametrize("kind", ["cash-log", "cash-reports"])
def test_both_kinds_write_xlsx_and_pdf(night, kind) -> None:
    casino, _dupont, _roy = night
    day = CashLogEntry.objects.earliest("pk").gaming_day
    xlsx, _ = run(kind, "xlsx", day, day, casino_id=casino.pk)
    sheet = load_workbook(io.BytesIO(xlsx)).active
    assert sheet is not None
    cells = [c for row in sheet.iter_rows(values_only=True) for c in row]
    assert "M. Dupont" in cells and "10001.00 EUR" in cells
    pdf, _ = run(kind, "pdf", day, day, casino_id=casino.pk)
    assert pdf.startswith(b"%PDF-")
    assert KINDS[kind].formats == ("csv", "xlsx", "pdf") and KINDS[kind].audience == "compliance"


def test_compliance_asks_for_them_and_takes_the_file_nobody_else(night, compliance_officer, pit_boss) -> None:
    casino, _dupont, _roy = night
    day = CashLogEntry.objects.earliest("pk").gaming_day
    request = ReportRequest(kind="cash-log", fmt="csv", start=day, end=day, casino_id=casino.pk)
    with pytest.raises(PermissionDenied, match=r"Only compliance may take the cash-transaction reports\."):
        report_run_request(actor=pit_boss, request=request)
    assert ReportRun.objects.count() == 0
    asked = report_run_request(actor=compliance_officer, request=request)
    done = report_run_execute(run_id=asked.pk)
    assert done is not None and (done.status, done.row_count) == ("finished", 3)
    with pytest.raises(PermissionDenied):
        report_run_download(actor=pit_boss, run=done)
    assert report_run_download(actor=compliance_officer, run=done) == done
    levy = ReportRequest(kind="levy", fmt="csv", start=day, end=day, casino_id=casino.pk)
    with pytest.raises(PermissionDenied):
        report_run_request(actor=compliance_officer, request=levy)


def test_the_reports_page_offers_each_reader_the_kinds_he_may_take(
    night, compliance_officer, pit_boss
) -> None:
    casino, _dupont, _roy = night
    mine = Client()
    mine.force_login(compliance_officer)
    page = mine.get(reverse("review:exports")).content.decode()
    offered = re.findall(
        r'<option value="([a-z-]+)"', page[page.index('name="kind"') :].split("</select>")[0]
    )
    assert offered == ["cash-log", "cash-reports"]
    day = CashLogEntry.objects.earliest("pk").gaming_day.isoformat()
    form = {
        "kind": "cash-reports",
        "preset": "custom",
        "start": day,
        "end": day,
        "casino": casino.pk,
        "fmt": "pdf",
    }
    assert mine.post(reverse("review:report_runs"), form).status_code == 302
    assert list(ReportRun.objects.values_list("kind", "format", "requested_label")) == [
        ("cash-reports", "pdf", "compliance")
    ]
    boss = Client()
    boss.force_login(pit_boss)
    theirs = boss.get(reverse("review:exports")).content.decode()
    assert 'value="cash-log"' not in theirs and 'value="levy"' in theirs
    assert 'data-testid="report-run"' not in theirs  # compliance's run is not in his history
    assert boss.post(reverse("review:report_runs"), {**form, "kind": "cash-log"}).status_code == 403
    assert ReportRun.objects.count() == 1


def test_the_api_lists_each_reader_only_the_runs_of_the_kinds_he_takes(
    night, compliance_officer, pit_boss
) -> None:
    """A run's details (who asked, for which casino and days, its file's digest) are for those who
    may take its kind: the API's list, like the page's history, leaves the others' runs out."""
    casino, _dupont, _roy = night
    day = CashLogEntry.objects.earliest("pk").gaming_day
    cash = report_run_request(
        actor=compliance_officer,
        request=ReportRequest(kind="cash-log", fmt="csv", start=day, end=day, casino_id=casino.pk),
    )
    levy = report_run_request(
        actor=pit_boss, request=ReportRequest(kind="levy", fmt="csv", start=day, end=day, casino_id=casino.pk)
    )
    before = list(ReportRun.objects.order_by("pk").values_list("pk", "kind", "status"))
    listed = {}
    for who in (compliance_officer, pit_boss):
        answer = Api(who).get("/reports/runs/")
        assert answer.status_code == 200
        listed[who.username] = [(r["id"], r["kind"]) for r in answer.json()["results"]]
    assert listed == {
        compliance_officer.username: [(cash.pk, "cash-log")],
        pit_boss.username: [(levy.pk, "levy")],
    }
    assert list(ReportRun.objects.order_by("pk").values_list("pk", "kind", "status")) == before
