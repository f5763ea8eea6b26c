"""App config of the cage (no models: its postings are the ledger's, its players the floor's)."""

from __future__ import annotations

from django.apps import AppConfig


class CageConfig(AppConfig):
    name = "cage"
    verbose_name = "Cage"
