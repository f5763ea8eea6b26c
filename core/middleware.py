"""The last word on a transaction the database broke off (deadlock, lock timeout), and on a
database out of reach under ``/api/``.

The REST API and the croupier's screens run such a transaction once more and then refuse it
themselves (core.transient); any other page that meets one answers here with the same refusal
(``core.errors.busy_refusal``: 409 ``retry`` / 503 ``lock_timeout``), problem JSON under /api/
(core.problems), JSON or plain text elsewhere, never the 500 page. A database out of reach
(``core.errors.unavailable_refusal``) is 503 problem JSON under /api/; elsewhere handler500
(core.views.server_error) answers it with the 503 page.

Also here: text no view may read (a control character in the query string, NUL or a lone surrogate
in a posted form) refused with 400 before any view reads it (``ControlCharactersMiddleware``), and
a 404 under /api/ made problem JSON with ``DEBUG`` on too (``ApiNotFoundMiddleware``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from core.errors import busy_refusal, error_answer, unavailable_refusal
from core.parsers import _UNSTORABLE
from core.problems import CONTENT_TYPE, RETRY_AFTER, answer_response, is_api, problem_response
from core.views import page_not_found

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
#: what the REST API's JSON parser refuses in a string (core.parsers.UnstorableText): NUL, which
#: PostgreSQL cannot store in text (a 500 there, stored as sent on SQLite), and a lone surrogate
#: half, which no encoder writes back out
UNSTORABLE_TEXT = _UNSTORABLE
UNSTORABLE_FIELD_DETAIL = (
    "A form field holds NUL or a lone surrogate (\\ud800-\\udfff): not valid text. Nothing was changed."
)


def control_character_in_query(request: HttpRequest) -> bool:
    """Whether a name or a value of the query string holds a control character (decoded), or a
    lone surrogate."""
    return any(
        not _CONTROL.isdisjoint(key)
        or UNSTORABLE_TEXT.search(key)
        or any(not _CONTROL.isdisjoint(value) or UNSTORABLE_TEXT.search(value) for value in values)
        for key, values in request.GET.lists()
    )


def unstorable_in_form(request: HttpRequest) -> bool:
    """Whether a name or a value of the posted form (urlencoded or multipart; any other body is
    left to its parser) holds NUL or a lone surrogate. A textarea's newline and tab are text."""
    if request.method != "POST":
        return False  # Django parses a form posted, nothing else
    if request.content_type == "multipart/form-data":
        # the body read once and kept (REQUEST_BODY_MAX_BYTES bounds it; no form uploads a file):
        # the form is parsed from a copy, and the REST API's parsers read the body again after
        # (parsed from the stream itself, its JSON-only views lost their 415 to an empty form)
        request.body  # noqa: B018
    return any(
        UNSTORABLE_TEXT.search(key) or any(UNSTORABLE_TEXT.search(value) for value in values)
        for key, values in request.POST.lists()
    )


def _refused(request: HttpRequest, detail: str) -> HttpResponse:
    """400, nothing read further: problem JSON under /api/; the 400 page in the screen's language
    elsewhere (the whole page, not the corner of it an htmx request would swap)."""
    if is_api(request):
        return problem_response(request, status=400, code="bad_request", detail=detail)
    response = render(request, "400.html", status=400)
    if request.headers.get("HX-Request") == "true":
        response["HX-Retarget"] = "body"
        response["HX-Reswap"] = "innerHTML"
    return response


class ControlCharactersMiddleware:
    """Text no view may read is refused before any does, with a 400 and nothing written: a control
    character in the query string (issue 20: a NUL in ``?search=`` or ``?q=`` was a 500), and NUL
    or a lone surrogate in a posted form's fields, the rule of the REST API's JSON parser
    (core.parsers) for every HTML form (a NUL in a reason, a username or a step's decision was a
    500 on PostgreSQL and stored as sent on SQLite). 400 problem JSON under /api/, the 400 page
    elsewhere, in the screen's language: after core.locale.ScreenLocaleMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if control_character_in_query(request):
            return _refused(request, CONTROL_CHARACTER_DETAIL)
        if unstorable_in_form(request):
            return _refused(request, UNSTORABLE_FIELD_DETAIL)
        return self.get_response(request)


class ApiNotFoundMiddleware:
    """A 404 under /api/ answers problem JSON even with ``DEBUG`` on, where Django answers a URL no
    view resolves (or an ``Http404`` a plain view raised) with its HTML debug page instead of
    calling handler404 (core.views.page_not_found, which already answers problem JSON with
    ``DEBUG`` off): docs/api.md promises problem details under /api/ whoever answers."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 404
            and is_api(request)
            and response.get("Content-Type", "").split(";")[0].strip() != CONTENT_TYPE
        ):
            return page_not_found(request)
        return response
