"""Accounting's pages (docs/reports.md, docs/review.md): the reports page (ask for a report run,
watch its progress, download it from the history), and the old immediate downloads' URL, which now
asks for a run too. Thin: parse, check who may, call one service or selector, render."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseRedirect,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from core.errors import DomainError, validation_messages
from core.sentence import Word
from reports.forms import EXPORT_KINDS, ExportRunForm, ReportRunForm
from reports.kinds import CONTENT_TYPES, KINDS
from reports.models import ReportRun
from reports.selectors import report_run_get, report_runs
from reports.services import (
    check_may_take_run,
    kinds_taken,
    may_take,
    report_run_download,
    report_run_request,
    uses_reports,
)
from reports.storage import reports_storage
from review.pages import allow_page, nav_context
from tables.permissions import can_export, casino_scope, reads_every_casino
from tables.wording import say

#: runs a page of the history shows
RUNS_PER_PAGE = 20


def _casinos(request: HttpRequest) -> frozenset[int] | None:
    """The casinos whose reports the reader sees (None: every casino)."""
    return casino_scope(request.user).casino_ids


def _run_form(request: HttpRequest, data: Any = None) -> ReportRunForm:
    """The form asking for a run, offering the kinds the reader may take (compliance: its own)."""
    return ReportRunForm(
        data,
        casinos=_casinos(request),
        every_casino=reads_every_casino(request.user),
        kinds=kinds_taken(request.user),
        works=casino_scope(request.user).works,
    )


def _page_context(request: HttpRequest, run_form: forms.Form | None = None) -> dict[str, Any]:
    runs = report_runs(casinos=_casinos(request), kinds=kinds_taken(request.user))
    return {
        "run_form": run_form or _run_form(request),
        "runs": Paginator(runs, RUNS_PER_PAGE).get_page(request.GET.get("page")),
        "active": "exports",
        **nav_context(request),
    }


@login_required
@require_GET
def exports_page(request: HttpRequest) -> HttpResponse:
    """The reports page: the form asking for a run and the history of runs (of the kinds the
    reader may take: the exporters' or compliance's)."""
    allow_page(uses_reports(request.user))
    return render(request, "review/exports.html", _page_context(request))


@login_required
@require_POST
def report_run_create(request: HttpRequest) -> HttpResponse:
    """ "Generate": the run asked for (or the identical one being written); htmx gets the history
    panel with it on top, a plain post is redirected to the page."""
    allow_page(uses_reports(request.user))
    # a kind his role never takes: 403, as the service would say (not a form error)
    allow_page(may_take(request.user, request.POST.get("kind", "")) or request.POST.get("kind") not in KINDS)
    # the posted casino is judged by the service (another casino's: 403), not hidden by the form
    form = ReportRunForm(request.POST, kinds=kinds_taken(request.user))
    _request_run(request, form)
    if form.is_valid() and not getattr(request, "htmx", False):
        return redirect(reverse("review:exports") + "#report-runs")
    status = 200 if form.is_valid() else 400
    context = _page_context(request, form if status == 400 else None)
    template = "review/_report_runs.html" if getattr(request, "htmx", False) else "review/exports.html"
    return render(request, template, context, status=status)


def _request_run(request: HttpRequest, form: ReportRunForm | ExportRunForm) -> None:
    """Ask for the form's run; the service's refusal (a request no run could produce) becomes the
    form's errors, nothing written."""
    if not form.is_valid():
        return
    try:
        report_run_request(actor=request.user, request=form.report_request)
    except ValidationError as exc:
        # each message as raised (exc.message_dict would copy a said() sentence into plain English)
        fields = exc.error_dict if hasattr(exc, "error_dict") else {None: exc.error_list}
        for field, errors in fields.items():
            messages = [report_refusal_said(m) for m in validation_messages(ValidationError(errors))]
            form.add_error(field if field in form.fields else None, messages)


def report_refusal_said(message: str) -> str:
    """A refusal of reports.services in the page's language (docs/i18n.md, the screen's edge): a
    report named by its title, as the form offers it, where the service's English names its slug
    (the API's and the management command's word), and a format as the form writes it (``CSV``)."""
    names: dict[str, Any] = {fmt: fmt.upper() for info in KINDS.values() for fmt in info.formats}
    names |= {slug: Word(info.title, "msgid") for slug, info in KINDS.items()}
    return say(message, gettext, names)


def _run_exported(request: HttpRequest, run_id: int) -> ReportRun:
    """A run of the casinos the user reads, for one who uses reports (else 403; its file is
    refused to one who may not take its kind); 404 for another's."""
    allow_page(uses_reports(request.user))
    check_may_take_run(request.user, run_id)
    run = report_run_get(run_id, casinos=_casinos(request))
    if run is None:
        raise Http404("No such report run.")
    return run


@login_required
@require_GET
def report_run_row(request: HttpRequest, run_id: int) -> HttpResponse:
    """One run's row of the history: what htmx polls while the run is queued or running."""
    run = _run_exported(request, run_id)
    return render(request, "review/_report_run_row.html", {"run": run})


@login_required
@require_GET
def report_run_file(request: HttpRequest, run_id: int) -> HttpResponseBase:
    """A finished run's file, as often as asked (each download audited); 409 before it finished."""
    run = _run_exported(request, run_id)
    try:
        report_run_download(actor=request.user, run=run)
    except DomainError as exc:  # raised in English (the API's words): said in the reader's language
        said_here = say(exc.message, gettext)
        return HttpResponse(said_here, status=exc.status, content_type="text/plain; charset=utf-8")
    return run_file_response(run)


def run_file_response(run: ReportRun) -> FileResponse:
    """The stored file, streamed from the reports storage (the page's and the API's download)."""
    stored = reports_storage().open(str(run.file.name), "rb")
    # the format's own type, with its charset (guessed from the name, a CSV would lose it)
    response = FileResponse(
        stored, as_attachment=True, filename=run.filename, content_type=CONTENT_TYPES.get(str(run.format))
    )
    response["Cache-Control"] = "no-store"
    response["X-Report-SHA256"] = run.sha256
    return response


@login_required
@require_POST
def export_download(request: HttpRequest, kind: str) -> HttpResponse:
    """The old immediate download's URL (POST /review/exports/<kind>/: bookmarks, scripts). It no
    longer streams the report: a stream cut mid-way by a database hiccup still ended in a 200 and a
    file that could not be told from a whole one. It asks for the equivalent run instead (the
    identical run already queued or running if there is one), written whole, hashed and moved into
    place by a worker, and sends the browser to the reports page (303) where it is downloaded;
    htmx gets the history panel, as from "Generate". A request no run could produce: 400, saying why,
    nothing written."""
    allow_page(can_export(request.user))
    if kind not in EXPORT_KINDS:
        raise Http404("No such export.")
    form = ExportRunForm(request.POST, export=kind, auto_id=False)
    _request_run(request, form)
    htmx = getattr(request, "htmx", False)
    if form.is_valid():
        if htmx:
            return render(request, "review/_report_runs.html", _page_context(request))
        see_other = HttpResponseRedirect(reverse("review:exports") + "#report-runs")
        see_other.status_code = 303  # after a POST: GET the page (a 302 may repeat the POST)
        return see_other
    if htmx:
        return render(request, "review/_report_runs.html", _page_context(request, form), status=400)
    return HttpResponse(form.error_text(), status=400, content_type="text/plain; charset=utf-8")
