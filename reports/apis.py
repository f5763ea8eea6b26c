"""Report runs over the REST API (thin; docs/api.md, docs/reports.md): ask for a run (idempotent:
the identical run being written is returned, and the POST takes an Idempotency-Key like every POST
of the API), list and read runs, download a finished run's file. Pit bosses and accountants."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseBase
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.idempotency import idempotent
from core.api.inputs import MAX_ID, StrictSerializer, TextChoiceField, TextField, optional_number
from core.api.outputs import ErrorOut, PageOut
from core.api.views import ApiView, valid
from core.types import request_staff
from core.widgets import day_supported
from reports.kinds import KINDS, ReportRequest
from reports.models import ReportRun
from reports.selectors import report_run_get, report_runs
from reports.services import (
    check_may_take_run,
    kinds_taken,
    report_run_download,
    report_run_request,
    uses_reports,
)
from reports.views import run_file_response
from tables.permissions import casino_scope


# ------------------------------------------------------------------------------------ shapes
class ReportRunIn(StrictSerializer):
    kind = TextChoiceField(choices=[], help_text="a report kind: levy, fees, audit-trail, …")
    format = TextField(max_length=10, help_text="csv, xlsx, pdf or jsonl, as the kind offers")
    start = serializers.DateField(help_text="first gaming day, inclusive", validators=[day_supported])
    end = serializers.DateField(help_text="last gaming day, inclusive", validators=[day_supported])
    casino = optional_number(min_value=1, max_value=MAX_ID)
    table = optional_number(min_value=1, max_value=MAX_ID)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = list(KINDS)  # type: ignore[attr-defined]  # the kinds known now


class ReportRunOut(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    format = serializers.CharField()
    start = serializers.DateField()
    end = serializers.DateField()
    casino = serializers.IntegerField(allow_null=True)
    table = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=ReportRun.Status.values)
    rows_done = serializers.IntegerField(help_text="progress: rows written so far")
    rows_expected = serializers.IntegerField(allow_null=True)
    row_count = serializers.IntegerField(allow_null=True, help_text="data rows of the finished file")
    sha256 = serializers.CharField(help_text="the finished file's SHA-256 (hex), as audited; empty before")
    filename = serializers.CharField()
    file = serializers.CharField(allow_null=True, help_text="the download's path, once finished")
    requested_by = serializers.CharField(help_text="a user's name, or scheduler / command")
    requested_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    error = serializers.CharField(help_text="why it failed (ask again: a new run)")
    attempts = serializers.IntegerField()


class ReportRunPageOut(PageOut):
    results = ReportRunOut(many=True)


def run_data(run: ReportRun) -> dict[str, Any]:
    return {
        "id": run.pk,
        "kind": run.kind,
        "format": run.format,
        "start": run.start.isoformat(),
        "end": run.end.isoformat(),
        "casino": run.casino_id,
        "table": run.table_id,
        "status": run.status,
        "rows_done": run.rows_done,
        "rows_expected": run.rows_expected,
        "row_count": run.row_count,
        "sha256": run.sha256,
        "filename": run.filename,
        "file": f"/api/v1/reports/runs/{run.pk}/file" if run.status == ReportRun.Status.FINISHED else None,
        "requested_by": run.requested_label,
        "requested_at": run.requested_at.isoformat(),
        "started_at": run.started_at.isoformat() if run.started_at else None,
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "error": run.error,
        "attempts": run.attempts,
    }


def _check(request: Request) -> None:
    if not uses_reports(request.user):
        raise PermissionDenied("Only a pit boss or an accountant may use reports.")


def _run(request: Request, run_id: int) -> ReportRun:
    check_may_take_run(request.user, run_id)
    run = report_run_get(run_id, casinos=casino_scope(request.user).casino_ids)
    if run is None:
        raise Http404("No such report run.")
    return run


# ------------------------------------------------------------------------------------ views
class ReportRunsView(ApiView):
    """POST: ask for a report (202; the identical run already queued or running is returned, not
    doubled). GET: every run, newest first, paginated."""

    input = ReportRunIn
    output = ReportRunOut
    status_code = http.HTTP_202_ACCEPTED

    @idempotent
    def post(self, request: Request) -> Response:
        _check(request)
        data = valid(self.input, request)
        run = report_run_request(
            actor=request_staff(request),
            request=ReportRequest(
                kind=data["kind"],
                fmt=data["format"],
                start=data["start"],
                end=data["end"],
                casino_id=data["casino"],
                table_id=data["table"],
            ),
        )
        return Response(run_data(run), status=self.status_code)

    @extend_schema(operation_id="v1_reports_runs_list", responses=ReportRunPageOut)
    def get(self, request: Request) -> Response:
        _check(request)
        paginator = PageNumberPagination()
        page = (
            paginator.paginate_queryset(
                report_runs(casinos=casino_scope(request.user).casino_ids, kinds=kinds_taken(request.user)),
                request,
                view=self,
            )
            or []
        )
        return paginator.get_paginated_response([run_data(r) for r in page])


class ReportRunView(ApiView):
    """One run: its status and progress, poll it until finished or failed."""

    @extend_schema(
        operation_id="v1_reports_runs_retrieve", responses={200: ReportRunOut, 403: ErrorOut, 404: ErrorOut}
    )
    def get(self, request: Request, run_id: int) -> Response:
        _check(request)
        return Response(run_data(_run(request, run_id)))


class ReportRunFileView(ApiView):
    """A finished run's file (audited at each download); 409 ``report_not_ready`` before."""

    @extend_schema(
        operation_id="v1_reports_runs_file",
        responses={
            (200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY, description="the report"),
            403: ErrorOut,
            404: ErrorOut,
            409: ErrorOut,
        },
    )
    def get(self, request: Request, run_id: int) -> HttpResponseBase:
        _check(request)
        run = _run(request, run_id)
        report_run_download(actor=request_staff(request), run=run)
        return run_file_response(run)
