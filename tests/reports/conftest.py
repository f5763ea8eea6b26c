"""Fixtures for accounting's reports: the known history the review tests use (tests/review/history.py),
and every test's report runs stored in its own folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.review.history import awaiting, history  # noqa: F401  (fixtures)


@pytest.fixture(autouse=True)
def reports_root(settings: Any, tmp_path: Path) -> Path:
    """The "reports" storage in the test's own folder (changing STORAGES resets django's storages)."""
    root = tmp_path / "reports"
    settings.STORAGES = {
        **settings.STORAGES,
        "reports": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(root)},
        },
    }
    return root
