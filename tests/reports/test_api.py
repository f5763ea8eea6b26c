"""Report runs over the REST API: ask (idempotent), list, read, download; problem JSON refusals."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from audit.models import AuditEvent
from reports import services
from reports.models import ReportRun
from reports.services import report_run_execute
from tests.problems import problem_body
from tests.reports.runs import day, fake_bytes, fake_writer, reports_casino_id
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db


def _body(**changes: Any) -> dict[str, Any]:
    return {"kind": "levy", "format": "csv", "start": day().isoformat(), "end": day().isoformat(), **changes}


def _valid(**changes: Any) -> dict[str, Any]:
    """A request the levy report can produce: it is per casino."""
    return _body(casino=reports_casino_id(), **changes)


def test_ask_read_list_and_download(accountant, pit_boss, monkeypatch) -> None:
    monkeypatch.setattr(services, "report_write", fake_writer(lines=3))
    api = Api(accountant)
    response = api.post("/reports/runs/", _valid())
    assert response.status_code == 202, response.content
    run = ReportRun.objects.get()
    created = response.json()
    assert created == {
        "id": run.pk,
        "kind": "levy",
        "format": "csv",
        "start": day().isoformat(),
        "end": day().isoformat(),
        "casino": reports_casino_id(),
        "table": None,
        "status": "queued",
        "rows_done": 0,
        "rows_expected": None,
        "row_count": None,
        "sha256": "",
        "filename": f"levy_{day()}_{day()}_casino-{reports_casino_id()}.csv",
        "file": None,
        "requested_by": "accountant",
        "requested_at": run.requested_at.isoformat(),
        "started_at": None,
        "finished_at": None,
        "error": "",
        "attempts": 0,
    }
    # another client (another key) asking for the same report gets the same run
    again = Api(pit_boss).post("/reports/runs/", _valid())
    assert again.status_code == 202 and again.json()["id"] == run.pk
    assert ReportRun.objects.count() == 1
    # the file: not yet
    early = api.get(f"/reports/runs/{run.pk}/file")
    assert early.status_code == 409
    assert problem_body(early)["code"] == "report_not_ready"
    report_run_execute(run_id=run.pk)
    detail = api.get(f"/reports/runs/{run.pk}/").json()
    sha = hashlib.sha256(fake_bytes(lines=3)).hexdigest()
    assert (detail["status"], detail["row_count"], detail["sha256"], detail["file"]) == (
        "finished",
        3,
        sha,
        f"/api/v1/reports/runs/{run.pk}/file",
    )
    listed = api.get("/reports/runs/").json()
    assert (listed["count"], [r["id"] for r in listed["results"]]) == (1, [run.pk])
    download = api.get(f"/reports/runs/{run.pk}/file")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == fake_bytes(lines=3)
    assert download["Cache-Control"] == "no-store"
    name = f"levy_{day()}_{day()}_casino-{reports_casino_id()}.csv"
    assert download["Content-Disposition"] == f'attachment; filename="{name}"'
    assert AuditEvent.objects.filter(action="reports.reportrun.download", actor=accountant).count() == 1


def test_the_same_key_replays_the_answer(accountant) -> None:
    api = Api(accountant)
    first = api.post("/reports/runs/", _valid(), key="k-1")
    replay = api.post("/reports/runs/", _valid(), key="k-1")
    assert replay.json() == first.json() and replay["Idempotent-Replayed"] == "true"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (_body(kind="payroll"), "kind"),
        (_body(format="docx"), "format"),
        (_body(start="2026-13-01"), "start"),
        (_body(casino=999999), "casino"),
        (_body(casino="1"), "casino"),
        (_body(kind=5), "kind"),  # was read as the kind "5"
        (_body(format=5), "format"),
        ({**_body(), "colour": "red"}, "colour"),
    ],
)
def test_a_bad_request_is_a_problem_and_writes_nothing(accountant, body, field) -> None:
    response = Api(accountant).post("/reports/runs/", body)
    assert response.status_code == 400
    problem = problem_body(response)
    assert problem["code"] == "invalid" and field in problem
    assert not ReportRun.objects.exists()


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"start": "0001-01-01"}, "start"), ({"end": "9999-12-31", "start": "9999-12-31"}, "start")],
)
def test_a_day_at_the_calendars_ends_is_refused_not_a_failed_run(accountant, changes, field) -> None:
    """The period's bounds (the day after its end, the gaming day's first instant) fall off Python's
    calendar there: the run was queued and then failed with an OverflowError."""
    response = Api(accountant).post("/reports/runs/", _body(**changes))
    assert response.status_code == 400
    assert problem_body(response)[field] == ["Enter a date from 1900-01-01 to 9998-12-31."]
    assert not ReportRun.objects.exists()


@pytest.mark.parametrize("persona", ["croupier", "outsider", "cashier"])
def test_other_roles_are_refused(request, persona, accountant) -> None:
    run = Api(accountant).post("/reports/runs/", _valid()).json()
    api = Api(request.getfixturevalue(persona))
    before = (ReportRun.objects.count(), AuditEvent.objects.count())
    for response in (
        api.post("/reports/runs/", _valid(start=day(-1).isoformat())),
        api.get("/reports/runs/"),
        api.get(f"/reports/runs/{run['id']}/"),
        api.get(f"/reports/runs/{run['id']}/file"),
    ):
        assert response.status_code == 403
        assert problem_body(response)["code"] == "permission_denied"
    assert (ReportRun.objects.count(), AuditEvent.objects.count()) == before


def test_an_unknown_run_is_a_404_problem(accountant) -> None:
    response = Api(accountant).get("/reports/runs/999999/")
    assert response.status_code == 404 and problem_body(response)["code"] == "not_found"


def test_anonymous_is_401() -> None:
    assert Api().get("/reports/runs/").status_code == 401
