"""The pit boss's pages (docs/review.md): the corrections queue, a coup's review, the dashboard, the
audit verification. Thin: parse, check who may, call one service or selector, render.

Approve and reject answer htmx with the re-rendered queue row or coup review (``return=row`` /
``return=detail``), a refusal with the same fragment showing why (status 400/403/409, which
base.html's htmx-config swaps in), and plain form posts with a redirect (or the page again with
the error), so the pages work without JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET, require_POST

from audit.selectors import audit_chain_state
from audit.services import chain_verification_request
from core.errors import DomainError, error_answer
from core.types import AuthenticatedHttpRequest
from review.forms import PeriodForm, RejectForm
from review.pages import allow_page, nav_context
from review.period import Period
from review.selectors.coup_review import coup_review
from review.selectors.dashboard import dashboard
from review.selectors.queue import (
    QUEUE_PAGE_SIZE,
    queue_row_after_decision,
    queue_rows,
    review_queue,
    review_queue_count,
)
from review.services import can_review_corrections, can_see_dashboard, can_verify_audit
from tables import services
from tables.models import Coup
from tables.permissions import can_approve
from tables.wording import VOID_DONE

#: the refusals a decision answers with its page (by their status in core.errors.error_answer, as the
#: croupier's screens and the API do; base.html's htmx-config swaps 400, 403 and 409 answers in)
REFUSALS = (PermissionDenied, ValidationError, DomainError)


# ------------------------------------------------------------------------------- corrections
@login_required
@require_GET
def queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_review_corrections(request.user))
    page = Paginator(review_queue(), QUEUE_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = queue_rows(page.object_list, user=request.user)
    context = {"page": page, "rows": rows, "active": "queue", **nav_context(request)}
    return render(request, "review/queue.html", context)


@login_required
@require_GET
def coup_detail(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    allow_page(can_review_corrections(request.user))
    coup = get_object_or_404(Coup, pk=pk)
    review = coup_review(coup=coup, user=request.user)
    context = {
        "review": review,
        "reject_form": RejectForm(),
        "can_void": can_approve(request.user),
        **nav_context(request),
    }
    return render(request, "review/coup.html", context)


def _decide(
    request: AuthenticatedHttpRequest,
    pk: int,
    decide: Callable[[Coup], Any],
    *,
    done: str,
    form: RejectForm | None = None,
) -> HttpResponse:
    """Run one decision (approve/reject) and answer htmx or the plain form post."""
    allow_page(can_review_corrections(request.user))
    coup = get_object_or_404(Coup, pk=pk)
    as_row = request.POST.get("return") == "row"
    error, status = "", 200
    try:
        if form is not None and not form.is_valid():
            raise ValidationError(list(form.errors["reason"]))
        decide(coup)
    except REFUSALS as exc:
        answer = error_answer(exc)
        assert answer is not None, exc
        error, status = answer.message, answer.status
    if request.htmx:
        waiting = review_queue_count()  # the navigation's counter, swapped out of band
        if as_row:
            row = queue_row_after_decision(coup=coup, user=request.user)
            context = {"row": row, "error": error, "oob_queue_count": waiting}
            return render(request, "review/_queue_row.html", context, status=status)
        review = coup_review(coup=coup, user=request.user)
        context = {
            "review": review,
            "reject_form": form or RejectForm(),
            "error": error,
            "done": "" if error else done,
            "oob_queue_count": waiting,
            "can_void": can_approve(request.user),
        }
        return render(request, "review/_coup_body.html", context, status=status)
    if error:
        review = coup_review(coup=coup, user=request.user)
        context = {
            "review": review,
            "reject_form": form or RejectForm(),
            "error": error,
            "can_void": can_approve(request.user),
            **nav_context(request),
        }
        return render(request, "review/coup.html", context, status=status)
    messages.success(request, done)
    return redirect("review:queue" if as_row else reverse("review:coup", args=[coup.pk]))


@login_required
@require_POST
def coup_approve(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    def approve(coup: Coup) -> Any:
        return services.correction_approve(actor=request.user, coup=coup)

    done = gettext_noop("Correction approved: the restored settlement is final.")
    return _decide(request, pk, approve, done=done)


def _decide_with_reason(
    request: AuthenticatedHttpRequest, pk: int, service: Callable[..., Any], *, done: str
) -> HttpResponse:
    """A decision that needs the pit boss's reason (reject, void): the reason form, then the service."""
    form = RejectForm(request.POST)

    def decide(coup: Coup) -> Any:
        return service(actor=request.user, coup=coup, reason=form.cleaned_data["reason"])

    return _decide(request, pk, decide, form=form, done=done)


@login_required
@require_POST
def coup_reject(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    done = gettext_noop("Correction rejected: the croupier must restore the coup again.")
    return _decide_with_reason(request, pk, services.correction_reject, done=done)


@login_required
@require_POST
def coup_void(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    return _decide_with_reason(request, pk, services.coup_void, done=VOID_DONE)


# ------------------------------------------------------------------------------- dashboard
@login_required
@require_GET
def dashboard_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_see_dashboard(request.user))
    week = Period.last_days()
    form = PeriodForm(request.GET or None, initial={"start": week.start, "end": week.end})
    if form.is_bound and form.is_valid():
        period, table = form.period, form.selected_table
    else:
        period, table = week, None
    data = dashboard(
        period=period,
        table=table,
        flagged_page=request.GET.get("flagged_page", 1),
        alarms_page=request.GET.get("alarms_page", 1),
    )
    context = {
        "form": form,
        "data": data,
        "filter_query": urlencode(
            {k: v for k, v in request.GET.dict().items() if k in ("start", "end", "table")}
        ),
        "active": "dashboard",
        "can_verify": can_verify_audit(request.user),
        **nav_context(request),
    }
    return render(request, "review/dashboard.html", context)


@login_required
@require_POST
def audit_verify(request: AuthenticatedHttpRequest) -> HttpResponse:
    allow_page(can_verify_audit(request.user))
    chain_verification_request(actor=request.user)  # the task runs once this has committed
    if request.htmx:
        return render(request, "review/_audit_panel.html", {"chain": audit_chain_state(), "can_verify": True})
    messages.success(request, "Audit verification requested.")
    return redirect(reverse("review:dashboard") + "#audit")
