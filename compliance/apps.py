"""App config of cash-transaction compliance."""

from __future__ import annotations

from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Compliance"
