"""Accounting's pages (docs/review.md): the exports page and an export's download. Thin: parse,
check who may, record the export (audited), stream it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from audit.anchors import anchor_publish
from reports.exports import EXPORTS
from reports.services import can_export, export_record
from review.forms import PeriodForm
from review.pages import allow_page, nav_context
from review.period import Period


@login_required
@require_GET
def exports_page(request: HttpRequest) -> HttpResponse:
    allow_page(can_export(request.user))
    week = Period.last_days()
    form = PeriodForm(initial={"start": week.start, "end": week.end}, auto_id=False)
    return render(
        request,
        "review/exports.html",
        {"form": form, "exports": EXPORTS.values(), "active": "exports", **nav_context(request)},
    )


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
