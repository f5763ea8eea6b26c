"""API tokens: a device (a tablet, a smart shoe) trades a username and password for a new token.

The token is shown once, in that answer, and stored only as its SHA-256 digest (core.models.ApiToken):
neither the database, nor a backup of it, nor the admin can give it back, and nobody can mint one
for someone else (the only way to one is the user's own password). Each issue creates a new token
(one per device); past ``API_TOKEN_MAX_PER_USER`` the user's oldest tokens are revoked.

A token handed out is audited (``auth.token.issue``: which token, from where; never the token). A
refusal is not audited one by one: it goes to the security log (access.services.logins), which the
chain summarises periodically, so a flood of wrong passwords never queues on the audit chain's lock.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from audit.services import audit_record, request_client
from core.models import ApiToken

REFUSED = "Unable to log in with the username and password given."
#: bytes of randomness in a token (43 URL-safe characters)
TOKEN_BYTES = 32
PREFIX_LENGTH = 8


def token_digest(token: str) -> str:
    """The digest a token is stored (and looked up) by."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_issue(*, username: str, password: str, request: HttpRequest | None = None) -> str:
    """A new API token for the user the credentials name, returned in clear this once.

    ValidationError when the credentials do not name an active user (or the user or the client is
    locked out: django-axes refuses before the password is even checked)."""
    user = authenticate(request, username=username, password=password)
    if user is None:  # logged by the user_login_failed receiver (access.services.logins)
        raise ValidationError(REFUSED)
    return api_token_create(user=user, request=request)


@transaction.atomic
def api_token_create(*, user: Any, request: HttpRequest | None = None) -> str:
    """Create a token for ``user`` (already authenticated by the caller) and audit it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row = ApiToken.objects.create(
        user=user, digest=token_digest(token), prefix=token[:PREFIX_LENGTH], created_at=timezone.now()
    )
    keep = max(1, int(getattr(settings, "API_TOKEN_MAX_PER_USER", 5)))
    stale = list(
        ApiToken.objects.filter(user=user).order_by("-created_at", "-pk").values_list("pk", flat=True)[keep:]
    )
    if stale:
        ApiToken.objects.filter(pk__in=stale).delete()
    # the event names the token (its id and prefix), never the token itself
    after = {"token": row.pk, "prefix": row.prefix, "revoked": stale, **request_client(request)}
    audit_record(actor=user, action="auth.token.issue", target=user, after=after)
    return token


@transaction.atomic
def api_token_revoke(*, actor: Any, token: ApiToken) -> None:
    """Revoke a token (its owner's device signs in again): audited with who revoked it."""
    audit_record(
        actor=actor,
        action="auth.token.revoke",
        target=token.user,
        after={"token": token.pk, "prefix": token.prefix},
    )
    token.delete()
