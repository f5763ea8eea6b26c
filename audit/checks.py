"""System checks of the audit chain's key settings (``manage.py check``; ``--deploy`` for length)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from audit.keys import KEY_ID

#: an HMAC key shorter than SHA-256's output gives away strength for nothing
MIN_KEY_LENGTH = 32


@register()
def audit_keys_check(app_configs: Any, **kwargs: Any) -> list[Error]:
    errors = []
    ids = [settings.AUDIT_HMAC_KEY_ID, *settings.AUDIT_HMAC_RETIRED_KEYS]
    for kid in ids:
        if not KEY_ID.match(str(kid)):
            errors.append(Error(f"audit key id {kid!r} is not 1-32 of A-Z a-z 0-9 _ . -", id="audit.E001"))
    if not settings.AUDIT_HMAC_KEY:
        errors.append(Error("AUDIT_HMAC_KEY is empty: the audit chain would not be keyed.", id="audit.E002"))
    return errors


@register(Tags.security, deploy=True)
def audit_keys_deploy_check(app_configs: Any, **kwargs: Any) -> list[Warning]:
    keys = {settings.AUDIT_HMAC_KEY_ID: settings.AUDIT_HMAC_KEY, **settings.AUDIT_HMAC_RETIRED_KEYS}
    warnings = [
        Warning(
            f"audit key {kid!r} is shorter than {MIN_KEY_LENGTH} characters.",
            hint="Use e.g. `python -c 'import secrets; print(secrets.token_hex(32))'`.",
            id="audit.W001",
        )
        for kid, key in keys.items()
        if len(str(key)) < MIN_KEY_LENGTH
    ]
    if settings.AUDIT_HMAC_KEY == settings.SECRET_KEY:
        warnings.append(
            Warning("AUDIT_HMAC_KEY equals SECRET_KEY: give the audit chain its own key.", id="audit.W002")
        )
    return warnings
