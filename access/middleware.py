"""The login budget at the door: a sign-in beyond the site's, the address's or the username's
budget is a 429 before the view hashes anything (access.services.login_budget)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_noop

from access.services.login_budget import login_budget_take
from access.services.logins import login_username
from core.client_ip import client_ip
from core.problems import is_api, problem_response

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
    if request.content_type == "application/json":
        if int(request.META.get("CONTENT_LENGTH") or 0) > _LOGIN_BODY_MAX:
            return ""  # the view refuses it without a password check
        try:
            data = json.loads(request.body or b"{}")
        except (ValueError, RecursionError):  # a few thousand "[" recurse past the stack: the
            return ""  # view's parser (core.parsers) refuses the body with its 400, checked by nobody
        username = data.get("username") if isinstance(data, dict) else None
        return login_username(None, {"username": username}) or "" if isinstance(username, str) else ""
    if is_api(request):  # the token endpoint reads JSON only: anything else is a 415, unchecked
        return ""
    return login_username(request, None) or ""


class LoginBudgetMiddleware:
    """A password check is refused with 429 and Retry-After, before the view hashes anything, when
    the login budget (access.services.login_budget) ran out for its username, its address or the
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
