"""The evidence of a money-flow alert (docs/flows.md): the pair's flows, the coups they met in with
the loser's option points, the expectation he gave up beside its honest spread. For the pit boss
(from the alerts page) and for compliance (from its page), each in the casinos he reads."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from compliance.permissions import is_compliance
from core.types import AuthenticatedHttpRequest
from review.models import Alert, AlertKind
from review.pages import allow_page, page_render
from review.selectors.flows import flow_evidence
from review.services import can_handle_alerts
from tables.flows import HONEST_SLIP
from tables.permissions import check_reads_casino


@login_required
@require_GET
def flow_alert_view(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    allow_page(can_handle_alerts(request.user) or is_compliance(request.user))
    alert = get_object_or_404(Alert, pk=pk, kind=AlertKind.MONEY_FLOW)
    check_reads_casino(request.user, alert.casino_id)
    evidence = flow_evidence(subject=alert.subject_key)
    if evidence is None:
        raise Http404("not a money-flow alert")
    context = {
        "alert": alert,
        "evidence": evidence,
        "slip_percent": int(HONEST_SLIP * 100),
        "coup_links": can_handle_alerts(request.user),  # a coup's review page is the pit boss's
    }
    active = "alerts" if can_handle_alerts(request.user) else "compliance"
    return page_render(request, "review/flow_alert.html", context, active=active)
