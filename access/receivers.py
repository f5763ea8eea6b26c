"""A refused login goes to the security log, not to the audit chain (access.services.logins says
why). Receivers only call the service."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from access.services.logins import login_failure_record


@receiver(user_login_failed, dispatch_uid="core_user_login_failed")
def _on_login_failed(
    sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
) -> None:
    login_failure_record(credentials=credentials, request=request)
