"""How the REST API answers a refusal: :func:`api_exception_handler` (configured in
``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) renders every exception the services raise through the
one mapping of core.errors, so no refusal becomes a 500."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.http import Http404
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.errors import error_answer

logger = logging.getLogger(__name__)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """One mapping from the services' exceptions to HTTP, on top of DRF's own (401, 403, 404, 400)."""
    if isinstance(exc, (PermissionDenied, Http404)):
        # DRF answers these itself (the same body as core.errors), marking the request's
        # transaction for rollback as it does for its own exceptions
        return drf_exception_handler(exc, context)
    answer = error_answer(exc)
    if answer is None:
        return drf_exception_handler(exc, context)
    if isinstance(exc, IntegrityError):
        # a database constraint refused a write that raced another one: nothing was written
        logger.warning("API write refused by a database constraint: %s", exc)
    response = Response(answer.body, status=answer.status)
    if answer.status == 503:
        response["Retry-After"] = "1"
    return response
