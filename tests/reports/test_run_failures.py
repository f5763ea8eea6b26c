"""What a failed run and a refused download say (reports/wording.py): English where it is stored,
audited and answered, whatever the language of the request that wrote the run (with no broker the
run is written inside the web request that asked for it); the reader's language on the page; the
exception's details (a server path, its message) in the log only."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from audit.models import AuditEvent
from core.models import OutboxMessage
from reports import services
from reports.models import ReportRun
from reports.services import ReportRunNotReady, report_run_download, report_run_execute, report_run_request
from reports.wording import run_error
from tables.wording import say
from tests.reports.runs import day, fake_writer, levy_request
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db

NOT_WRITTEN = (
    "The report's file could not be written. Ask for it again; if it fails again, tell the administrator."
)
NOT_WRITTEN_FR = (
    "Le fichier du rapport n'a pas pu être écrit. Demandez-le à nouveau ; s'il échoue encore, "
    "prévenez l'administrateur."
)
GAVE_UP = "Gave up after attempt 3: its worker stopped each time (out of memory?)."
GAVE_UP_FR = (
    "Abandonné après la tentative 3 : son processus de traitement s'est arrêté à chaque fois "
    "(mémoire insuffisante ?)."
)
#: where the storage failed, as the exception says it: the log's, never the run's
SERVER_PATH = "/srv/casino/var/reports/2026/12"


def _file_exists(**kwargs: Any) -> Any:
    raise FileExistsError(17, "File exists", SERVER_PATH)


def _counts() -> tuple[int, int, int]:
    return ReportRun.objects.count(), AuditEvent.objects.count(), OutboxMessage.objects.count()


def test_a_run_failing_in_a_french_request_is_stored_and_audited_in_english(
    accountant, monkeypatch, caplog
) -> None:
    monkeypatch.setattr(services, "report_write", _file_exists)
    with translation.override("fr"), caplog.at_level(logging.ERROR, logger="reports.services"):
        run = report_run_request(actor=accountant, request=levy_request())
        failed = report_run_execute(run_id=run.pk)
    assert failed is not None
    assert (failed.status, failed.error) == ("failed", NOT_WRITTEN)
    event = AuditEvent.objects.get(action="reports.reportrun.fail")
    assert event.after == {"error": NOT_WRITTEN, "attempts": 1}
    # the exception, its type, message and path, went to the log with the traceback
    (record,) = [r for r in caplog.records if r.name == "reports.services"]
    assert record.getMessage() == f"report run {run.pk} failed (attempt 1)"
    assert record.exc_info is not None and record.exc_info[0] is FileExistsError
    assert SERVER_PATH in caplog.text


def test_the_page_says_a_failed_run_s_reason_in_the_reader_s_language_and_no_path(
    client, accountant, settings, monkeypatch
) -> None:
    monkeypatch.setattr(services, "report_write", _file_exists)
    run = report_run_request(actor=accountant, request=levy_request())
    report_run_execute(run_id=run.pk)
    client.force_login(accountant)
    url = reverse("review:report_run", args=[run.pk])
    english = client.get(url).content.decode()
    assert '<strong class="broken">Failed</strong>: The report&#x27;s file could not be written.' in english
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    french = client.get(url).content.decode()
    assert NOT_WRITTEN_FR.replace("'", "&#x27;") in french
    for page in (english, french):
        assert SERVER_PATH not in page and "FileExistsError" not in page and "File exists" not in page
    # the API says it in English, as stored, and no more than that
    assert Api(accountant).get(f"/reports/runs/{run.pk}/").json()["error"] == NOT_WRITTEN


def test_a_run_given_up_in_a_french_request_is_stored_in_english_and_shown_in_french(
    accountant, settings, monkeypatch
) -> None:
    settings.REPORTS_MAX_ATTEMPTS = 3
    run = report_run_request(actor=accountant, request=levy_request())
    ReportRun.objects.filter(pk=run.pk).update(status="running", attempts=3, started_at=run.requested_at)
    monkeypatch.setattr(services, "report_write", fake_writer())
    with translation.override("fr"):
        done = report_run_execute(run_id=run.pk)
    assert done is not None and (done.status, done.error) == ("failed", GAVE_UP)
    assert AuditEvent.objects.get(action="reports.reportrun.fail").after == {"error": GAVE_UP, "attempts": 3}
    with translation.override("fr"):
        row = render_to_string("review/_report_run_row.html", {"run": done})
        assert say(run_error(done.error), translation.gettext) == GAVE_UP_FR
    assert GAVE_UP_FR.replace("'", "&#x27;") in row


def test_an_older_run_s_reason_is_shown_as_stored() -> None:
    """A reason worded otherwise (a run failed before these words, a writer's own refusal)."""
    older = "No levy report for a casino that charges none."
    with translation.override("fr"):
        assert say(run_error(older), translation.gettext) == older


# ------------------------------------------------------------------------ no file to download
NOT_READY = {
    "queued": "This report is waiting for a worker: there is no file to download yet.",
    "running": "This report is still being written: there is no file to download yet.",
    "failed": "This report failed: it has no file to download. Generate it again.",
}


@pytest.mark.parametrize("status", ["queued", "running", "failed"])
def test_the_download_of_an_unfinished_run_says_why_for_its_status(accountant, status) -> None:
    run = report_run_request(actor=accountant, request=levy_request())
    changes: dict[str, Any] = {"status": status}
    if status != "queued":
        changes["started_at"] = run.requested_at
    if status == "failed":
        changes |= {"error": NOT_WRITTEN, "finished_at": run.requested_at}
    ReportRun.objects.filter(pk=run.pk).update(**changes)
    run.refresh_from_db()
    before = _counts()
    with translation.override("fr"), pytest.raises(ReportRunNotReady) as refused:
        report_run_download(actor=accountant, run=run)
    assert refused.value.message == NOT_READY[status]
    assert _counts() == before  # nothing audited


def test_the_page_s_409_for_a_failed_run_is_in_the_reader_s_language(
    client, accountant, settings, monkeypatch
) -> None:
    monkeypatch.setattr(services, "report_write", _file_exists)
    run = report_run_request(actor=accountant, request=levy_request())
    report_run_execute(run_id=run.pk)
    client.force_login(accountant)
    before = _counts()
    url = reverse("review:report_run_file", args=[run.pk])
    refused = client.get(url)
    assert (refused.status_code, refused.content.decode()) == (409, NOT_READY["failed"])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    refused = client.get(url)
    assert (refused.status_code, refused.content.decode()) == (
        409,
        "Ce rapport a échoué : il n'a pas de fichier à télécharger. Générez-le à nouveau.",
    )
    api = Api(accountant).get(f"/reports/runs/{run.pk}/file")
    problem = api.json()
    assert (api.status_code, problem["code"]) == (409, "report_not_ready")
    assert problem["detail"] == NOT_READY["failed"]
    assert _counts() == before


# ------------------------------------------------------------- refusals raised in English
def test_a_refused_request_is_refused_in_english_in_any_language(accountant, croupier) -> None:
    before = _counts()
    with translation.override("fr"):
        with pytest.raises(ValidationError) as backwards:
            report_run_request(actor=accountant, request=levy_request(start=day(1), end=day()))
        assert backwards.value.message_dict == {"start": ["The period starts after it ends."]}
        with pytest.raises(ValidationError) as no_casino:
            report_run_request(actor=accountant, request=levy_request(casino_id=987654))
        assert no_casino.value.message_dict == {"casino": ["No casino 987654."]}
        with pytest.raises(PermissionDenied) as not_his:
            report_run_request(actor=croupier, request=levy_request())
        assert str(not_his.value) == "Only a pit boss or an accountant may ask for reports."
    assert _counts() == before
