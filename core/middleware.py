"""The last word on a transaction the database broke off (deadlock, lock timeout), and on a
database out of reach under ``/api/``.

The REST API and the croupier's screens run such a transaction once more and then refuse it
themselves (core.transient); any other page that meets one answers here with the same refusal
(``core.errors.busy_refusal``: 409 ``retry`` / 503 ``lock_timeout``), problem JSON under /api/
(core.problems), JSON or plain text elsewhere, never the 500 page. A database out of reach
(``core.errors.unavailable_refusal``) is 503 problem JSON under /api/; elsewhere handler500
(core.views.server_error) answers it with the 503 page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from core.errors import busy_refusal, error_answer, unavailable_refusal
from core.problems import RETRY_AFTER, answer_response, is_api, problem_response

logger = logging.getLogger(__name__)


class DatabaseBusyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        refusal = busy_refusal(exception)
        if refusal is None and is_api(request):
            refusal = unavailable_refusal(exception)
        if refusal is None:
            return None
        logger.warning(
            "request refused, the database broke its transaction off or is out of reach: %s", exception
        )
        answer = error_answer(refusal)
        assert answer is not None
        if is_api(request):
            return answer_response(request, answer)
        response: HttpResponse
        if "json" in request.headers.get("Accept", ""):
            response = JsonResponse(answer.body, status=answer.status)
        else:
            response = HttpResponse(
                answer.message, status=answer.status, content_type="text/plain; charset=utf-8"
            )
        if answer.status == 503:
            response["Retry-After"] = RETRY_AFTER
        return response


#: C0 control characters and DEL: no query parameter of this product holds one, and PostgreSQL
#: refuses NUL in any text (a search for it was a 500); tab, newline and carriage return included
_CONTROL = frozenset(chr(c) for c in (*range(0x20), 0x7F))
CONTROL_CHARACTER_DETAIL = (
    "A query parameter holds a control character (such as NUL): send printable text only. "
    "Nothing was changed."
)


def control_character_in_query(request: HttpRequest) -> bool:
    """Whether a name or a value of the query string holds a control character (decoded)."""
    return any(
        not _CONTROL.isdisjoint(key) or any(not _CONTROL.isdisjoint(value) for value in values)
        for key, values in request.GET.lists()
    )


class ControlCharactersMiddleware:
    """A query string with a control character is refused before any view reads it: 400 problem
    JSON under /api/, the 400 page elsewhere (issue 20: a NUL in ``?search=`` or ``?q=`` was a 500)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if control_character_in_query(request):
            if is_api(request):
                return problem_response(
                    request, status=400, code="bad_request", detail=CONTROL_CHARACTER_DETAIL
                )
            from django.shortcuts import render

            return render(request, "400.html", status=400)
        return self.get_response(request)
