"""The core app's configuration."""

import os
import sys

from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from django.urls import register_converter

        from core import embedded_beat
        from core.converters import IdConverter

        register_converter(IdConverter, "id")  # before any URLconf is read: the routes' <id:pk>

        # `make run` without a broker: the development server runs beat's floor work itself
        if embedded_beat.wanted(sys.argv, os.environ):
            embedded_beat.start()
