"""What every back-office page shares, the pit boss's and accounting's alike (templates/review/
base.html), a game's own pages included (tables.games: ``review_urls``): the navigation (which
links the user sees, how many corrections wait), the refusal of a user whose role the page is not
for, the casinos the reader sees, a refusal said in the page's language, and the offer to void a
coup (or decide a void waiting for a second pit boss)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from compliance.permissions import is_compliance
from core.errors import DomainError, error_answer
from core.types import AuthenticatedHttpRequest
from review.selectors.queue import review_queue_count
from review.services import can_handle_alerts, can_lift_lockouts, can_review_corrections, can_see_dashboard
from tables.models import Coup, GameCoup
from tables.permissions import can_approve, can_export, casino_scope, recorded_a_step_of
from tables.selectors import void_request_waiting
from tables.wording import RECORDER_VOID_REFUSAL, VOID_ASKER_REFUSAL, say, void_request_detail


def allow_page(allowed: bool) -> None:
    if not allowed:
        raise PermissionDenied("Your role does not allow this page.")


def nav_context(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    return {
        "nav_queue": can_review_corrections(user),
        "nav_dashboard": can_see_dashboard(user),
        "nav_exports": can_export(user) or is_compliance(user),  # compliance: its own kinds
        "nav_alerts": can_handle_alerts(user),
        "nav_charts": can_see_dashboard(user),
        "nav_lockouts": can_lift_lockouts(user),
        "nav_compliance": is_compliance(user),
        "nav_queue_count": (
            review_queue_count(casinos=casino_scope(user).casino_ids) if can_review_corrections(user) else 0
        ),
    }


def page_render(
    request: AuthenticatedHttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    active: str,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    """A back-office page in the frame every page shares: its ``context``, the tab it stands under
    (``active``), the refusal said above it (``error``) and the navigation."""
    return render(
        request,
        template,
        {**context, "error": error, "active": active, **nav_context(request)},
        status=status,
    )


def reader_casinos(request: AuthenticatedHttpRequest) -> frozenset[int] | None:
    """The casinos the reader sees (None: every casino): what every page's selectors are narrowed to."""
    return casino_scope(request.user).casino_ids


#: the refusals a decision answers with its page (by their status in core.errors.error_answer, as the
#: croupier's screens and the API do; base.html's htmx-config swaps 400, 403 and 409 answers in)
REFUSALS = (PermissionDenied, ValidationError, DomainError)


def refusal_text(messages: tuple[str, ...]) -> str:
    """A refusal's messages in the page's language, one built from values (``said``) with its values
    said again too (tables.wording.say); the template shows it as it is."""
    return " ".join(say(m, _) for m in messages)


def refusal_answer(exc: BaseException) -> tuple[str, int]:
    """One of ``REFUSALS`` as a page answers it: its text (``refusal_text``) and its status (by
    core.errors.error_answer: 400, 403, 409)."""
    answer = error_answer(exc)
    assert answer is not None, exc
    return refusal_text(answer.messages), answer.status


def void_context(user: Any, coup: Coup | GameCoup) -> dict[str, Any]:
    """Whether the page offers the pit boss "Void this coup…": never to one who recorded a step of
    it (separation of duties, issue 20), who is told who voids it instead. A void waiting for a
    second pit boss is shown instead of the offer, with Approve and Refuse for a pit boss who
    neither asked for it nor recorded a step (the others are told why not)."""
    casino_id = coup.table.casino_id if isinstance(coup, GameCoup) else coup.shoe.table.casino_id
    waiting = void_request_waiting(coup)
    context: dict[str, Any] = {
        "void_request": waiting,
        "void_request_detail": say(void_request_detail(waiting), _) if waiting else "",
        "can_decide_void": False,
        "void_decide_refusal": "",
    }
    if not can_approve(user, casino_id):
        return {**context, "can_void": False, "void_by_another": ""}
    recorded = recorded_a_step_of(user, coup)
    if waiting is not None:
        refusal = VOID_ASKER_REFUSAL if waiting.requested_by_id == user.pk else ""
        refusal = refusal or (RECORDER_VOID_REFUSAL if recorded else "")
        return {**context, "can_void": False, "void_by_another": "", "can_decide_void": not refusal,
                "void_decide_refusal": refusal}  # fmt: skip
    return {**context, "can_void": not recorded, "void_by_another": RECORDER_VOID_REFUSAL if recorded else ""}
