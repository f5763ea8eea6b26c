"""The API's throttles (Django REST framework's), keyed by core.client_ip so that they, the
lockout and the audit trail agree on the client's address, and reading their rates when asked (a
test's ``override_settings`` reaches them; DRF's own read them once, at import)."""

from __future__ import annotations

from typing import Any

from rest_framework import throttling
from rest_framework.settings import api_settings

from core.client_ip import client_ip


class _ClientIpMixin:
    scope: Any

    def get_ident(self, request: Any) -> str:
        return client_ip(request._request if hasattr(request, "_request") else request)

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return str(rate) if rate is not None else None


class AnonThrottle(_ClientIpMixin, throttling.AnonRateThrottle):
    """Anonymous API calls, per client address (scope ``anon``)."""


class UserThrottle(_ClientIpMixin, throttling.UserRateThrottle):
    """Authenticated API calls, per user (scope ``user``): a stolen token cannot be run flat out."""


class ScopedThrottle(_ClientIpMixin, throttling.ScopedRateThrottle):
    """A view's own scope (``throttle_scope``), per user or client address."""
