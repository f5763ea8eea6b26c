"""What base.html shows on every page: a pit boss's open-alert count in the navigation."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from review.selectors.alerts import open_alert_count
from review.services import can_handle_alerts
from tables.permissions import casino_scope


def alerts(request: HttpRequest) -> dict[str, Any]:
    """``nav_alert_count`` for a pit boss (one COUNT, once per request however many templates
    render), nothing for anyone else."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not can_handle_alerts(user):
        return {}
    cached = getattr(request, "_nav_alert_count", None)
    if cached is None:
        cached = open_alert_count(casinos=casino_scope(user).casino_ids)
        request._nav_alert_count = cached  # type: ignore[attr-defined]
    return {"nav_alert_count": cached}
