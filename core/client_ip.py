"""The client's address, as every part of the site sees it: the lockout (django-axes), the API
throttles and the audit trail ask here, so they can never disagree about who is knocking.

``TRUSTED_PROXIES`` (settings, env ``TRUSTED_PROXIES``) is the number of reverse proxies in front
of the application that append the address they received to ``X-Forwarded-For``. With 0 (the
default) the header is ignored and ``REMOTE_ADDR`` is the client: a client cannot choose its own
address by sending the header. With n > 0 the client is the n-th address from the right, the one
the outermost trusted proxy wrote; whatever the client put to the left of it is not believed.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _valid(address: str) -> str | None:
    try:
        return str(ipaddress.ip_address(address.strip()))
    except ValueError:
        return None


def client_ip(request: HttpRequest) -> str:
    """The client's address ("" when unknown: a request built by hand, a malformed header)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = int(getattr(settings, "TRUSTED_PROXIES", 0))
    if proxies <= 0:
        return remote
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    hops = [hop for hop in (part.strip() for part in forwarded.split(",")) if hop]
    if len(hops) < proxies:
        # fewer hops than proxies: the request did not come through all of them (a direct
        # connection to an inner proxy or to the app): the peer is all we know for sure
        return remote
    return _valid(hops[-proxies]) or remote


def client_ip_or_none(request: HttpRequest) -> str | None:
    """``client_ip`` for django-axes (``AXES_CLIENT_IP_CALLABLE``), whose column wants None, not ""."""
    return client_ip(request) or None
