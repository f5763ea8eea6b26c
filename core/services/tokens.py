"""API tokens: a device (a tablet, a smart shoe) trades a username and password for its token.

Both outcomes are audited: a refusal by Django's ``user_login_failed`` signal (the audit receiver
writes ``auth.login_failed`` with the username and the client's address, never the password), a
token handed out here as ``auth.token.issue``.
"""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from audit.services import audit_record, request_client

REFUSED = "Unable to log in with the username and password given."


def api_token_issue(*, username: str, password: str, request: HttpRequest | None = None) -> Token:
    """The user's API token (created on first use; the same one afterwards). ValidationError when
    the credentials do not name an active user."""
    user = authenticate(request, username=username, password=password)
    if user is None:  # audited by the user_login_failed receiver (audit/receivers.py)
        raise ValidationError(REFUSED)
    with transaction.atomic():
        token, created = Token.objects.get_or_create(user=user)
        # the event says a token was handed out, never the token itself
        after = {"created": created, **request_client(request)}
        audit_record(actor=user, action="auth.token.issue", target=user, after=after)
    return token
