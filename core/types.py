"""Types the whole project shares: who the staff are, and what a logged-in request carries.

``Staff`` is the one type for a logged-in user (a service's ``actor``, a selector's ``user``). The
project keeps Django's default user model (no AUTH_USER_MODEL setting), so it is ``auth.User``:
the type every foreign key to the user (``opened_by``, ``actor``, …) expects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails

if TYPE_CHECKING:
    from rest_framework.request import Request

Staff: TypeAlias = User


class AuthenticatedHttpRequest(HttpRequest):
    """The request a ``login_required`` view receives: its user is logged in, and HtmxMiddleware
    (settings.MIDDLEWARE) has set ``htmx``. For annotations only; Django builds the request."""

    user: Staff
    htmx: HtmxDetails


def request_staff(request: HttpRequest | Request) -> Staff:
    """The user of a request only staff reach (the API's default IsAuthenticated permission, or
    ``login_required``): the type checker cannot see that the permission let no anonymous user in."""
    user = request.user
    assert isinstance(user, User), "an anonymous user got past IsAuthenticated / login_required"
    return user
