"""Signing in: logins, lockouts, the login budget, API tokens, who the user is (/api/v1/me/)."""

from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "access"
    verbose_name = "Access"

    def ready(self) -> None:
        from access import receivers  # noqa: F401  (connects the signal receivers)
