"""Site-wide views: health probe, home page, error pages. Thin: they call selectors only."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.health import IN_PROCESS, broker_status, database_status
from core.types import AuthenticatedHttpRequest
from tables.selectors import staff_profile


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    database, broker = database_status(), broker_status()
    healthy = database == "ok" and broker in ("ok", IN_PROCESS)
    return JsonResponse(
        {"status": "ok" if healthy else "error", "database": database, "broker": broker},
        status=200 if healthy else 503,
    )


@login_required
@require_GET
def home(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(request, "home.html", {"staff": staff_profile(user=request.user)})


# Error handlers: our templates, never a stack trace. 500 gets no request context on purpose: the
# failure may be in whatever a context processor would touch.
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "400.html", status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "403.html", status=403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)
