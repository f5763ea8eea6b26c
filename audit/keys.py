"""The keys of the audit chain's HMACs, read from settings (the environment), never the database.

``AUDIT_HMAC_KEY_ID`` / ``AUDIT_HMAC_KEY`` sign new events and anchors; ``AUDIT_HMAC_RETIRED_KEYS``
(id → key) keep verifying what older keys signed after a rotation (docs/audit.md, "Keys").
"""

from __future__ import annotations

import re

from django.conf import settings

#: what a key id may look like (it is stored on every event and anchor)
KEY_ID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")


class UnknownAuditKey(LookupError):
    """An event or anchor names a key id that is not configured."""


def audit_key_current() -> tuple[str, bytes]:
    """``(key id, key)`` that signs what is written now."""
    return settings.AUDIT_HMAC_KEY_ID, settings.AUDIT_HMAC_KEY.encode("utf-8")


def audit_keys() -> dict[str, bytes]:
    """Every configured key by id: the retired ones and the current one (which wins a clash)."""
    keys = {kid: key.encode("utf-8") for kid, key in settings.AUDIT_HMAC_RETIRED_KEYS.items()}
    kid, key = audit_key_current()
    keys[kid] = key
    return keys


def audit_key(key_id: str) -> bytes:
    """The key named ``key_id``; ``UnknownAuditKey`` if it is not configured."""
    current_id, current = audit_key_current()
    if key_id == current_id:
        return current
    retired = settings.AUDIT_HMAC_RETIRED_KEYS.get(key_id)
    if retired is None:
        raise UnknownAuditKey(
            f"key id {key_id!r} is not configured (AUDIT_HMAC_KEY_ID, AUDIT_HMAC_RETIRED_KEYS)"
        )
    return str(retired).encode("utf-8")
