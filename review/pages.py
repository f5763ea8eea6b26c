"""What every back-office page shares, the pit boss's and accounting's alike (templates/review/
base.html): the navigation (which links the user sees, how many corrections wait), and the refusal
of a user whose role the page is not for."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from review.selectors.queue import review_queue_count
from review.services import can_handle_alerts, can_lift_lockouts, can_review_corrections, can_see_dashboard
from tables.permissions import can_export, casino_scope


def allow_page(allowed: bool) -> None:
    if not allowed:
        raise PermissionDenied("Your role does not allow this page.")


def nav_context(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    return {
        "nav_queue": can_review_corrections(user),
        "nav_dashboard": can_see_dashboard(user),
        "nav_exports": can_export(user),
        "nav_alerts": can_handle_alerts(user),
        "nav_charts": can_see_dashboard(user),
        "nav_lockouts": can_lift_lockouts(user),
        "nav_queue_count": (
            review_queue_count(casinos=casino_scope(user).casino_ids) if can_review_corrections(user) else 0
        ),
    }
