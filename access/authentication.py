"""``Authorization: Token <token>`` against the hashed tokens of core.models.ApiToken.

DRF's own TokenAuthentication, with the lookup by the token's digest instead of the token: the
header, the 401 with ``WWW-Authenticate: Token`` and the messages stay what devices already know.
"""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from access.services.tokens import token_digest
from core.models import ApiToken


class HashedTokenAuthentication(TokenAuthentication):
    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        # an indexed equality on the digest: comparing digests leaks nothing about the token
        token = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
