"""Accounting's pages (docs/reports.md, docs/review.md): the reports page (ask for a report run,
watch its progress, download it from the history), and the streamed exports' immediate downloads.
Thin: parse, check who may, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.anchors import anchor_publish
from core.errors import DomainError
from reports.exports import EXPORTS
from reports.forms import ReportRunForm
from reports.models import ReportRun
from reports.selectors import report_run_get, report_runs
from reports.services import can_export, export_record, report_run_download, report_run_request
from reports.storage import reports_storage
from review.forms import PeriodForm
from review.pages import allow_page, nav_context
from review.period import Period

#: runs a page of the history shows
RUNS_PER_PAGE = 20


def _page_context(request: HttpRequest, run_form: ReportRunForm | None = None) -> dict[str, Any]:
    week = Period.last_days()
    return {
        "form": PeriodForm(initial={"start": week.start, "end": week.end}, auto_id=False),
        "run_form": run_form or ReportRunForm(),
        "runs": Paginator(report_runs(), RUNS_PER_PAGE).get_page(request.GET.get("page")),
        "exports": EXPORTS.values(),
        "active": "exports",
        **nav_context(request),
    }


@login_required
@require_GET
def exports_page(request: HttpRequest) -> HttpResponse:
    """The reports page: the form asking for a run, the history of runs, the immediate exports."""
    allow_page(can_export(request.user))
    return render(request, "review/exports.html", _page_context(request))


@login_required
@require_POST
def report_run_create(request: HttpRequest) -> HttpResponse:
    """ "Generate": the run asked for (or the identical one being written); htmx gets the history
    panel with it on top, a plain post is redirected to the page."""
    allow_page(can_export(request.user))
    form = ReportRunForm(request.POST)
    status = 200
    if form.is_valid():
        try:
            report_run_request(actor=request.user, request=form.report_request)
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, messages)
    if not form.is_valid():
        status = 400
    elif not getattr(request, "htmx", False):
        return redirect(reverse("review:exports") + "#report-runs")
    context = _page_context(request, form if status == 400 else None)
    template = "review/_report_runs.html" if getattr(request, "htmx", False) else "review/exports.html"
    return render(request, template, context, status=status)


@login_required
@require_GET
def report_run_row(request: HttpRequest, run_id: int) -> HttpResponse:
    """One run's row of the history: what htmx polls while the run is queued or running."""
    allow_page(can_export(request.user))
    run = report_run_get(run_id)
    if run is None:
        raise Http404("No such report run.")
    return render(request, "review/_report_run_row.html", {"run": run})


@login_required
@require_GET
def report_run_file(request: HttpRequest, run_id: int) -> HttpResponseBase:
    """A finished run's file, as often as asked (each download audited); 409 before it finished."""
    allow_page(can_export(request.user))
    run = report_run_get(run_id)
    if run is None:
        raise Http404("No such report run.")
    try:
        report_run_download(actor=request.user, run=run)
    except DomainError as exc:
        return HttpResponse(exc.message, status=exc.status, content_type="text/plain; charset=utf-8")
    return run_file_response(run)


def run_file_response(run: ReportRun) -> FileResponse:
    """The stored file, streamed from the reports storage (the page's and the API's download)."""
    stored = reports_storage().open(str(run.file.name), "rb")
    response = FileResponse(stored, as_attachment=True, filename=run.filename)
    response["Cache-Control"] = "no-store"
    response["X-Report-SHA256"] = run.sha256
    return response


@login_required
@require_POST
def export_download(request: HttpRequest, kind: str) -> HttpResponseBase:
    allow_page(can_export(request.user))
    export = EXPORTS.get(kind)
    if export is None:
        raise Http404("No such export.")
    form = PeriodForm(request.POST, auto_id=False)
    if not form.is_valid():
        context = {
            "form": form,
            "exports": EXPORTS.values(),
            "failed": export,
            "active": "exports",
            **nav_context(request),
        }
        return render(request, "review/exports.html", context, status=400)
    period, table = form.period, form.selected_table
    export_record(actor=request.user, export=export, period=period, table=table)  # audited before streaming
    # Every report carries the audit chains' signed heads, also appended to the anchor file: a tail
    # deleted later contradicts the reports already handed out (docs/audit.md, "Anchors").
    anchors = anchor_publish()
    response = StreamingHttpResponse(export.rows(period, table, anchors), content_type=export.content_type)
    response["Content-Disposition"] = f'attachment; filename="{export.filename(period, table)}"'
    # the global chain's (the audit-trail file itself ends with every chain's)
    response["X-Audit-Anchor"] = anchors[0].line()
    response["Cache-Control"] = "no-store"
    return response
