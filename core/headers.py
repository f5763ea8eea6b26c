"""Content-Security-Policy and Permissions-Policy on every response.

A small middleware rather than django-csp: the policy is one fixed string (no inline script
anywhere, so no nonce or hash to compute per response), and the settings mirror the names and
shape of Django 6.0's built-in CSP (``SECURE_CSP`` / ``SECURE_CSP_REPORT_ONLY``: a dict of directive
→ sources), so moving to Django 6 means deleting this module, not rewriting the policy.

The policy (casino/settings/base.py) allows scripts, styles, fonts, images and requests from this
site only: an injected ``<script>`` or ``onclick=`` does not run, a page cannot be framed, forms post
nowhere else. htmx is configured to match (templates/base.html: no eval, no inline indicator style).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.conf import settings
from django.http import HttpRequest, HttpResponse


def policy_header(policy: Mapping[str, Sequence[str] | bool]) -> str:
    """``{"default-src": ["'self'"], "upgrade-insecure-requests": True}`` → the header's value."""
    parts = []
    for directive, sources in policy.items():
        if sources is True:
            parts.append(directive)
        elif sources:
            parts.append(f"{directive} {' '.join(sources)}")
    return "; ".join(parts)


def permissions_header(policy: Mapping[str, Sequence[str]]) -> str:
    """``{"camera": [], "fullscreen": ["self"]}`` → ``camera=(), fullscreen=(self)``."""
    return ", ".join(f"{feature}=({' '.join(allow)})" for feature, allow in policy.items())


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        # computed once: the policy does not change while the process runs
        self.headers: dict[str, str] = {}
        csp = getattr(settings, "SECURE_CSP", None)
        if csp:
            self.headers["Content-Security-Policy"] = policy_header(csp)
        csp_report_only = getattr(settings, "SECURE_CSP_REPORT_ONLY", None)
        if csp_report_only:
            self.headers["Content-Security-Policy-Report-Only"] = policy_header(csp_report_only)
        permissions = getattr(settings, "PERMISSIONS_POLICY", None)
        if permissions:
            self.headers["Permissions-Policy"] = permissions_header(permissions)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        for name, value in self.headers.items():
            if name not in response:  # a view that set its own keeps it
                response[name] = value
        return response
