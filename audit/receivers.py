"""Authentication events go to the audit trail. Receivers only call the service."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest

from audit.services import audit_record, request_client


@receiver(user_logged_in, dispatch_uid="audit_user_logged_in")
def _on_login(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    with transaction.atomic():
        audit_record(actor=user, action="auth.login", target=user, after=request_client(request))


@receiver(user_logged_out, dispatch_uid="audit_user_logged_out")
def _on_logout(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if user is None:  # logging out an anonymous session changes nothing
        return
    with transaction.atomic():
        audit_record(actor=user, action="auth.logout", target=user, after=request_client(request))


# A refused login is not an audit event of its own: it goes to the security log (access.receivers,
# access.services.logins), which the chain summarises periodically. Appending one event per failure
# queued every croupier's step behind a password-guessing flood on the chain's lock (issue 10).
