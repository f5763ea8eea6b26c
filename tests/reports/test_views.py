# ruff: noqa: RUF001  (Russian words: Cyrillic letters that look Latin are meant)
"""The reports page: ask for a run (htmx and plain posts), watch it (the polled row), download it
(audited, no-store), the history's pages; every other role refused with nothing written."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from html import unescape
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditEvent
from core.models import OutboxMessage
from reports import services
from reports.models import ReportRun
from reports.services import report_run_execute, report_run_request
from tables.gaming_day import casino_calendar
from tables.services import casino_staff_grant
from tests.factories import CasinoFactory, UserFactory
from tests.reports.runs import day, fake_bytes, fake_writer, levy_request, reports_casino_id

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def _form(**changes: Any) -> dict[str, Any]:
    return {
        "kind": "levy",
        "preset": "custom",
        "start": day().isoformat(),
        "end": day().isoformat(),
        "casino": reports_casino_id(),  # the levy report is per casino
        "table": "",
        "fmt": "csv",
        **changes,
    }


def _counts() -> tuple[int, int, int]:
    return ReportRun.objects.count(), AuditEvent.objects.count(), OutboxMessage.objects.count()


def test_the_page_has_the_form_and_the_history_and_no_immediate_downloads(client, accountant) -> None:
    report_run_request(actor=accountant, request=levy_request())
    client.force_login(accountant)
    html = client.get(reverse("review:exports")).content.decode()
    assert 'data-testid="report-form"' in html and ">Generate</button>" in html
    assert html.count('data-testid="report-run"') == 1
    # the streamed downloads are gone (a cut stream could not be told from a whole file)
    for kind in ("percentage-tax", "fees", "audit-trail", "coup-records"):
        assert f'action="/review/exports/{kind}/"' not in html
    assert "Immediate downloads" not in html and "data-export=" not in html


def test_generate_with_htmx_answers_the_history_with_the_run_polling(client, pit_boss) -> None:
    client.force_login(pit_boss)
    response = client.post(reverse("review:report_runs"), _form(), **HTMX)
    assert response.status_code == 200
    run = ReportRun.objects.get()
    html = response.content.decode()
    assert html.startswith('<section class="card report-runs" id="report-runs"')
    assert f'hx-get="{reverse("review:report_run", args=[run.pk])}" hx-trigger="every 2s"' in html
    assert "Waiting for a worker" in html
    # asked again: the same run
    client.post(reverse("review:report_runs"), _form(), **HTMX)
    assert ReportRun.objects.count() == 1


def test_generate_without_javascript_redirects_to_the_page(client, accountant) -> None:
    client.force_login(accountant)
    response = client.post(reverse("review:report_runs"), _form())
    assert response.status_code == 302 and response["Location"] == "/review/exports/#report-runs"
    assert ReportRun.objects.count() == 1


def test_the_page_offers_today_first_and_chooses_it(client, accountant) -> None:
    client.force_login(accountant)
    page = client.get(reverse("review:exports")).content.decode()
    preset = page.split('name="preset"')[1].split("</select>")[0]
    options = re.findall(r'<option value="(\w+)"( selected)?>', preset)
    assert options == [("today", " selected"), ("yesterday", ""), ("mtd", ""), ("ytd", ""), ("custom", "")]


def test_today_is_the_casinos_gaming_day_being_played(client, accountant) -> None:
    casino = CasinoFactory(time_zone="Asia/Tokyo", gaming_day_cutoff=dt.time(4, 0))
    casino_staff_grant(actor=None, user=accountant, casino=casino)
    client.force_login(accountant)
    client.post(
        reverse("review:report_runs"), _form(preset="today", start="", end="", casino=casino.pk), **HTMX
    )
    run = ReportRun.objects.get()
    today = casino_calendar(casino).today(timezone.now())
    assert (run.start, run.end, run.casino_id) == (today, today, casino.pk)


def test_a_preset_is_the_chosen_casinos_gaming_days(client, accountant) -> None:
    casino = CasinoFactory(time_zone="Asia/Tokyo", gaming_day_cutoff=dt.time(4, 0))
    casino_staff_grant(actor=None, user=accountant, casino=casino)
    client.force_login(accountant)
    client.post(
        reverse("review:report_runs"), _form(preset="mtd", start="", end="", casino=casino.pk), **HTMX
    )
    run = ReportRun.objects.get()
    closed = casino_calendar(casino).today(timezone.now()) - dt.timedelta(days=1)
    assert (run.start, run.end, run.casino_id) == (closed.replace(day=1), closed, casino.pk)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"start": "", "end": ""}, "Give the first and the last gaming day."),
        # the page names the report by its title (the API by its slug: tests/reports/test_api.py)
        ({"fmt": "jsonl"}, "The Levy (percentage tax) report comes in CSV, XLSX, PDF, not JSONL."),
        ({"kind": "payroll"}, "Select a valid choice. payroll is not one of the available choices."),
    ],
)
def test_a_bad_request_is_answered_400_and_nothing_is_written(client, accountant, changes, message) -> None:
    client.force_login(accountant)
    before = _counts()
    response = client.post(reverse("review:report_runs"), _form(**changes), **HTMX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert _counts() == before


def test_the_polled_row_stops_polling_once_finished(client, accountant, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer(lines=2))
    run = report_run_request(actor=accountant, request=levy_request())
    client.force_login(accountant)
    row = client.get(reverse("review:report_run", args=[run.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in row and 'data-status="queued"' in row
    report_run_execute(run_id=run.pk)
    row = client.get(reverse("review:report_run", args=[run.pk])).content.decode()
    assert "hx-trigger" not in row and 'data-status="finished"' in row
    assert "2 rows" in row and reverse("review:report_run_file", args=[run.pk]) in row


def test_a_failed_run_offers_to_generate_it_again(client, accountant, monkeypatch) -> None:
    def broken(**kwargs: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(services, "report_write", broken)
    run = report_run_request(actor=accountant, request=levy_request())
    report_run_execute(run_id=run.pk)
    client.force_login(accountant)
    row = client.get(reverse("review:report_run", args=[run.pk])).content.decode()
    assert "Failed" in row and "Generate again" in row
    assert "The report&#x27;s file could not be written. Ask for it again; if it fails again" in row
    assert "disk on fire" not in row and "RuntimeError" not in row  # the log's, not the accountant's
    response = client.post(reverse("review:report_runs"), _form(), **HTMX)  # what its button posts
    assert response.status_code == 200
    assert ReportRun.objects.count() == 2


def test_a_finished_run_downloads_as_often_as_asked_each_audited(client, accountant, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer(lines=3))
    run = report_run_request(actor=accountant, request=levy_request())
    client.force_login(accountant)
    url = reverse("review:report_run_file", args=[run.pk])
    before = AuditEvent.objects.count()
    refused = client.get(url)
    assert (refused.status_code, refused.content.decode()) == (
        409,
        "This report is waiting for a worker: there is no file to download yet.",
    )
    assert AuditEvent.objects.count() == before
    report_run_execute(run_id=run.pk)
    for _ in range(2):
        response = client.get(url)
        assert response.status_code == 200
        body = b"".join(response.streaming_content)
        assert body == fake_bytes(lines=3)
        name = f"levy_{day()}_{day()}_casino-{reports_casino_id()}.csv"
        assert response["Content-Disposition"] == f'attachment; filename="{name}"'
        assert response["Cache-Control"] == "no-store"
        assert response["X-Report-SHA256"] == hashlib.sha256(body).hexdigest()
    assert AuditEvent.objects.filter(action="reports.reportrun.download").count() == 2


def test_the_history_is_paginated(client, accountant) -> None:
    for offset in range(23):
        report_run_request(actor=accountant, request=levy_request(start=day(-offset), end=day(-offset)))
    client.force_login(accountant)
    first = client.get(reverse("review:exports")).content.decode()
    second = client.get(reverse("review:exports") + "?page=2").content.decode()
    assert first.count('data-testid="report-run"') == 20 and second.count('data-testid="report-run"') == 3
    assert "Page 1 of 2 · 23 in all" in first


@pytest.mark.parametrize("persona", ["croupier", "outsider", "cashier"])
def test_other_roles_are_refused_and_nothing_is_written(
    client, request, persona, accountant, monkeypatch
) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer())
    run = report_run_request(actor=accountant, request=levy_request(kind="fees"))
    report_run_execute(run_id=run.pk)
    client.force_login(request.getfixturevalue(persona))
    before = _counts()
    assert client.get(reverse("review:exports")).status_code == 403
    assert client.post(reverse("review:report_runs"), _form(), **HTMX).status_code == 403
    assert client.get(reverse("review:report_run", args=[run.pk])).status_code == 403
    assert client.get(reverse("review:report_run_file", args=[run.pk])).status_code == 403
    assert _counts() == before


def test_anonymous_is_sent_to_log_in(client) -> None:
    response = client.get(reverse("review:report_run_file", args=[1]))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_an_unknown_run_is_not_found(client, accountant) -> None:
    client.force_login(accountant)
    assert client.get(reverse("review:report_run", args=[999999])).status_code == 404
    assert client.get(reverse("review:report_run_file", args=[999999])).status_code == 404


# ------------------------------------------------------------------------- the page's language
#: a refusal naming a report, on the page: its title as the form offers it (the API keeps the
#: slug, tests/reports/test_api.py), the formats as the form writes them
REFUSALS = {
    "fr": {
        # the service's "format" is no field of the form (its "fmt"): said on its own
        "format": "Le rapport « Cagnotte (prélèvement au pourcentage) » existe en CSV, XLSX, PDF, "
        "pas en JSONL.",
        "records": "Le rapport « Relevés des coups » existe en JSONL, pas en XLSX.",
        "casino": "Casino : Le rapport « Redevances horaires et droits de cartes » porte sur un seul casino "
        ": choisissez-le.",
    },
    "ru": {
        "format": "Отчёт «Сбор (процентный налог)» выдаётся в формате CSV, XLSX, PDF, а не JSONL.",
        "records": "Отчёт «Записи коупов» выдаётся в формате JSONL, а не XLSX.",
        "casino": "Казино: Отчёт «Почасовая плата и плата за карты» строится по одному казино: выберите его.",
    },
}


@pytest.mark.parametrize("lang", ["fr", "ru"])
@pytest.mark.parametrize(
    ("refusal", "changes"),
    [
        ("format", {"fmt": "jsonl"}),
        ("records", {"kind": "coup-records", "fmt": "xlsx", "casino": ""}),
        ("casino", {"kind": "fees", "casino": ""}),
    ],
)
def test_a_refusal_names_the_report_by_its_title_in_the_page_s_language(
    client, accountant, settings, lang, refusal, changes
) -> None:
    client.force_login(accountant)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    before = _counts()
    response = client.post(reverse("review:report_runs"), _form(**changes), **HTMX)
    assert response.status_code == 400 and _counts() == before
    errors = re.search(r'data-testid="report-form-errors">(.*?)</p>', unescape(response.content.decode()))
    assert errors is not None and errors.group(1).strip() == REFUSALS[lang][refusal]


def _default_form(html: str) -> dict[str, str]:
    """What the browser posts of the page's form untouched: each select's selected option (its
    first when none is), each input's value."""
    start = html.index('data-testid="report-form"')
    form = html[start : html.index("</form>", start)]
    data: dict[str, str] = {}
    for name, options in re.findall(r'<select name="(\w+)"[^>]*>(.*?)</select>', form, re.DOTALL):
        values = re.findall(r'<option value="([^"]*)"( selected)?>', options)
        data[name] = next((v for v, chosen in values if chosen), values[0][0])
    for name, value in re.findall(r'<input type="(?:date|hidden)" name="(\w+)"(?: value="([^"]*)")?', form):
        data[name] = value
    return data


def test_a_one_casino_reader_s_form_starts_with_his_casino_and_generates_as_it_stands(client, db) -> None:
    """A one-casino club's accountant reads "every casino", which is his: the form chooses it, so
    a report of one casino (the levy, first) is not refused on the first "Generate"."""
    casino = CasinoFactory(name="Cercle Unique")
    accountant = UserFactory(username="compta", roles=["accountant"], casinos=[casino])
    client.force_login(accountant)
    html = client.get(reverse("review:exports")).content.decode()
    assert re.search(rf'<option value="{casino.pk}" selected>Cercle Unique</option>', html)
    data = _default_form(html)
    assert (data["kind"], data["casino"], data["fmt"]) == ("levy", str(casino.pk), "csv")
    response = client.post(reverse("review:report_runs"), data, **HTMX)
    assert response.status_code == 200
    assert ReportRun.objects.get().casino_id == casino.pk


def test_a_reader_of_several_casinos_starts_with_the_one_he_works_for(client, db) -> None:
    CasinoFactory(name="Autre Cercle")
    casino = CasinoFactory(name="Son Cercle")
    auditor = UserFactory(username="audit", roles=["group_auditor"], casinos=[casino])
    client.force_login(auditor)
    html = client.get(reverse("review:exports")).content.decode()
    assert re.search(rf'<option value="{casino.pk}" selected>Son Cercle</option>', html)
    assert '<option value="" selected>All casinos</option>' not in html


def test_a_reader_of_several_casinos_of_his_own_chooses_one(client, db) -> None:
    casinos = [CasinoFactory(name="Cercle A"), CasinoFactory(name="Cercle B")]
    accountant = UserFactory(username="compta", roles=["accountant"], casinos=casinos)
    client.force_login(accountant)
    html = client.get(reverse("review:exports")).content.decode()
    casino_select = html.split('name="casino"')[1].split("</select>")[0]
    assert re.findall(r'<option value="(\w*)"( selected)?>', casino_select) == [
        ("", " selected"),
        (str(casinos[0].pk), ""),
        (str(casinos[1].pk), ""),
    ]
