"""The core app's configuration."""

import os
import sys

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from core import embedded_beat

        # `make run` without a broker: the development server runs beat's floor work itself
        if embedded_beat.wanted(sys.argv, os.environ):
            embedded_beat.start()
