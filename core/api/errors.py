"""How the REST API answers a refusal: :func:`api_exception_handler` (configured in
``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) renders every exception the services raise through the
one mapping of core.errors, and REST framework's own, as RFC 9457 problem details
(core.problems), so no refusal becomes a 500 and none is HTML."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import IntegrityError
from django.http import Http404, HttpResponse
from rest_framework.exceptions import APIException, ErrorDetail
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import error_answer
from core.parsers import body_limit, too_large_detail
from core.problems import answer_response, body_detail, problem_response

logger = logging.getLogger(__name__)

#: headers of REST framework's answer a problem keeps (authentication scheme, throttle wait, Allow)
KEPT_HEADERS = ("WWW-Authenticate", "Retry-After", "Allow")


def drf_code(exc: Exception) -> str:
    """The stable code of a REST framework exception: its detail's own code, else its class's."""
    detail = getattr(exc, "detail", None)
    if isinstance(detail, ErrorDetail) and detail.code:
        return str(detail.code)
    return str(getattr(exc, "default_code", "error"))


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> HttpResponse | None:
    """One mapping from the services' exceptions to HTTP, on top of DRF's own (401, 403, 404, 400),
    answered as problem details."""
    request = context.get("request")
    if isinstance(exc, RequestDataTooBig):
        return problem_response(
            request, status=413, code="payload_too_large", detail=too_large_detail(body_limit())
        )
    if isinstance(exc, (PermissionDenied, Http404)):
        # DRF answers these itself (the same body as core.errors), marking the request's
        # transaction for rollback as it does for its own exceptions
        answer = error_answer(exc)
        assert answer is not None
        return _from_drf(drf_exception_handler(exc, context), request, answer.code)
    answer = error_answer(exc)
    if answer is None:
        response = drf_exception_handler(exc, context)
        if response is None:
            return None  # a bug: Django's handler500 answers it (core.views.server_error)
        return _from_drf(response, request, drf_code(exc) if isinstance(exc, APIException) else "error")
    if isinstance(exc, IntegrityError):
        # a database constraint refused a write that raced another one: nothing was written
        logger.warning("API write refused by a database constraint: %s", exc)
    elif answer.code == "database_unavailable":
        logger.error("API request refused, the database cannot be reached: %s", exc)
    return answer_response(request, answer)


def _from_drf(response: Any, request: Any, code: str) -> HttpResponse:
    detail = body_detail(response.data, "")
    problem = problem_response(
        request, status=response.status_code, code=code, detail=detail, extra=response.data
    )
    for header in KEPT_HEADERS:
        if header in response:
            problem[header] = response[header]
    return problem
