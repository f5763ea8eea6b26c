"""How the REST API answers a refusal: :func:`api_exception_handler` (configured in
``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) renders every exception the services raise through the
one mapping of core.errors, and REST framework's own, as RFC 9457 problem details
(core.problems), so no refusal becomes a 500 and none is HTML; and none quotes back more than the
first characters of what the request sent (:func:`echo_bounded`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import IntegrityError
from django.http import Http404, HttpResponse
from rest_framework.exceptions import APIException, ErrorDetail
from rest_framework.request import Empty
from rest_framework.views import exception_handler as drf_exception_handler

from core.api.inputs import QUOTED_MAX, clipped
from core.errors import ErrorAnswer, error_answer
from core.parsers import body_limit, too_large_detail
from core.problems import body_detail, problem_response

logger = logging.getLogger(__name__)

#: headers of REST framework's answer a problem keeps (authentication scheme, throttle wait, Allow)
KEPT_HEADERS = ("WWW-Authenticate", "Retry-After", "Allow")
#: the longest message of a refusal (characters): longer, it quotes something it was sent
MESSAGE_MAX = 500


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
    return _from_answer(request, answer)


def _from_answer(request: Any, answer: ErrorAnswer) -> HttpResponse:
    """core.errors' answer to a refusal, as problem details (core.problems.answer_response), its
    messages bounded."""
    given = _given(request)
    body = echo_bounded(answer.body, given)
    detail = body_detail(body, echo_bounded(answer.message, given))
    return problem_response(request, status=answer.status, code=answer.code, detail=detail, extra=body)


def _from_drf(response: Any, request: Any, code: str) -> HttpResponse:
    data = echo_bounded(response.data, _given(request))
    detail = body_detail(data, "")
    problem = problem_response(request, status=response.status_code, code=code, detail=detail, extra=data)
    for header in KEPT_HEADERS:
        if header in response:
            problem[header] = response[header]
    return problem


# ------------------------------------------------------------------------------- what is echoed
def _given(request: Any) -> Any:
    """The request's data as it was parsed, None if it was not: parsing it now could raise again
    (a body too large, not JSON) or wait for a slow client's body."""
    data = getattr(request, "_full_data", None)  # rest_framework.request.Request's, once parsed
    return None if data is Empty else data


def echo_bounded(errors: Any, given: Any) -> Any:
    """A refusal's body ``errors`` as the API answers it: a long string of ``given`` (the request's
    data at the same place: a field's value under the field's name, an item's under its index)
    that a message quotes is quoted by its first characters (core.api.inputs.clipped), and a
    message is at most MESSAGE_MAX characters. The fields of core.api.inputs quote little already;
    this bounds any other message (a service's, DRF's own fields) that would say back the
    megabyte it was sent, under the field and again in ``detail``. A message left as it was keeps
    its type (an ErrorDetail's code, a core.sentence.Sentence)."""
    if isinstance(errors, Mapping):
        return {key: echo_bounded(value, _member(given, key)) for key, value in errors.items()}
    if isinstance(errors, (list, tuple)):
        # a list of messages about ``given``, or the errors of a list's items, index by index
        items = given if isinstance(given, list) and len(given) == len(errors) else None
        return [
            echo_bounded(error, items[i] if items is not None and not isinstance(error, str) else given)
            for i, error in enumerate(errors)
        ]
    if isinstance(errors, str):
        return _message_bounded(errors, given)
    return errors


def _member(given: Any, key: Any) -> Any:
    """What ``given`` holds under an error's ``key``: a field's value, a list's item; the whole
    of it for a message about no field of it (``detail``, ``non_field_errors``)."""
    if isinstance(given, Mapping):
        return given.get(key, given)
    if isinstance(given, list) and str(key).isdigit() and int(key) < len(given):
        return given[int(key)]
    return None


def _message_bounded(message: str, given: Any) -> str:
    if len(message) <= QUOTED_MAX:
        return message  # too short to quote a value longer than that: most messages, read no further
    if isinstance(given, Mapping):
        quotable = [value for value in given.values() if isinstance(value, str)]
    elif isinstance(given, list):
        quotable = [value for value in given if isinstance(value, str)]
    else:
        quotable = [given] if isinstance(given, str) else []
    bounded = message
    for value in quotable:
        if QUOTED_MAX < len(value) <= len(bounded) and value in bounded:
            bounded = bounded.replace(value, clipped(value))
    if len(bounded) > MESSAGE_MAX:
        bounded = bounded[:MESSAGE_MAX] + "…"
    return message if bounded == message else bounded
