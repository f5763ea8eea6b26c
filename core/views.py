"""Site-wide views: health probes, home page, error pages. Thin: they call selectors only."""

from __future__ import annotations

import sys

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.errors import NOT_FOUND_MESSAGE, PERMISSION_DENIED_MESSAGE, error_answer, unavailable_refusal
from core.health import IN_PROCESS, broker_status, database_status, outbox_status
from core.parsers import body_limit, too_large_detail
from core.problems import RETRY_AFTER, answer_response, is_api, problem_response


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``, which browsers ask for before they read a page's ``<link rel="icon">`` (and
    for answers that are not pages): the static icon. Resolved per request, not when the URLs load,
    since the static files' manifest exists only once ``collectstatic`` has run."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers requests. Nothing else is asked — neither the database nor
    the broker — so an outage of either never takes every web node out of a load balancer at once
    (the API answers such an outage itself: 503 problem JSON; Celery work waits in the outbox)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: the database and the broker answer (503 naming whichever does not). The outbox
    backlog (Celery work committed but not yet handed to the broker) is reported, not judged."""
    database, broker = database_status(), broker_status()
    ready = database == "ok" and broker in ("ok", IN_PROCESS)
    body: dict[str, object] = {"status": "ok" if ready else "error", "database": database, "broker": broker}
    if database == "ok":
        body["outbox"] = outbox_status()
    response = JsonResponse(body, status=200 if ready else 503)
    if not ready:
        response["Retry-After"] = RETRY_AFTER
    return response



# Error handlers: our templates, never a stack trace; under /api/ problem JSON (core.problems),
# never HTML. 500 gets no request context on purpose: the failure may be in whatever a context
# processor would touch.
def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        if isinstance(exception, RequestDataTooBig):
            detail = too_large_detail(body_limit())
            return problem_response(request, status=413, code="payload_too_large", detail=detail)
        return problem_response(request, status=400, code="bad_request", detail="The request is malformed.")
    return render(request, "400.html", status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return problem_response(
            request, status=403, code="permission_denied", detail=PERMISSION_DENIED_MESSAGE
        )
    return render(request, "403.html", status=403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return problem_response(request, status=404, code="not_found", detail=NOT_FOUND_MESSAGE)
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: called while the exception is being handled. The database out of reach is
    503 (with ``Retry-After``): the request may be sent again; anything else is a bug, 500."""
    exception = sys.exc_info()[1]
    unavailable = unavailable_refusal(exception) if exception is not None else None
    if is_api(request):
        if unavailable is not None:
            answer = error_answer(unavailable)
            assert answer is not None
            return answer_response(request, answer)
        return problem_response(
            request, status=500, code="server_error", detail="The server failed; the error has been logged."
        )
    if unavailable is not None:
        response = HttpResponse(loader.get_template("503.html").render(), status=503)
        response["Retry-After"] = RETRY_AFTER
        return response
    return HttpResponse(loader.get_template("500.html").render(), status=500)
