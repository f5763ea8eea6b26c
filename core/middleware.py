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

import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext_noop

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


# ------------------------------------------------------------------------------ the login budget
LOGIN_BUDGET_MESSAGE = gettext_noop(
    "Too many sign-in attempts at the moment: nothing was checked. Try again in a few seconds."
)
#: the most of a JSON login body read for its username (a login is a few dozen bytes)
_LOGIN_BODY_MAX = 16_384


@functools.cache
def _login_paths() -> frozenset[str]:
    """Every view that checks a password (the URLconf is fixed once loaded)."""
    from django.urls import NoReverseMatch, reverse

    paths = set()
    for name in ("login", "api-token", "admin:login"):
        try:
            paths.add(reverse(name))
        except NoReverseMatch:  # pragma: no cover - a deployment without the admin
            continue
    return frozenset(paths)


def _posted_username(request: HttpRequest) -> str:
    from core.services.logins import login_username

    if request.content_type == "application/json":
        if int(request.META.get("CONTENT_LENGTH") or 0) > _LOGIN_BODY_MAX:
            return ""  # the view refuses it without a password check
        try:
            data = json.loads(request.body or b"{}")
        except ValueError:
            return ""
        username = data.get("username") if isinstance(data, dict) else None
        return login_username(None, {"username": username}) or "" if isinstance(username, str) else ""
    if is_api(request):  # the token endpoint reads JSON only: anything else is a 415, unchecked
        return ""
    return login_username(request, None) or ""


class LoginBudgetMiddleware:
    """A password check is refused with 429 and Retry-After, before the view hashes anything, when
    the login budget (core.services.login_budget) ran out for its username, its address or the
    site. Only POSTs to the views that check a password pass here; after CsrfViewMiddleware, so a
    form without its CSRF token is refused first, for nothing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        if request.method != "POST" or request.path not in _login_paths():
            return None
        from core.client_ip import client_ip
        from core.services.login_budget import login_budget_take

        username = _posted_username(request)
        if not username:  # no username, no password check: the view refuses it as it is
            return None
        refusal = login_budget_take(username=username, ip=client_ip(request))
        if refusal is None:
            return None
        response: HttpResponse
        if is_api(request):
            response = problem_response(request, status=429, code="login_budget", detail=LOGIN_BUDGET_MESSAGE)
        else:
            from django.shortcuts import render

            context = {"message": LOGIN_BUDGET_MESSAGE, "retry_after": refusal.retry_after}
            response = render(request, "registration/login_busy.html", context, status=429)
        response["Retry-After"] = str(refusal.retry_after)
        return response
