"""The core app's configuration."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from core import receivers  # noqa: F401  (connects the signal receivers)
