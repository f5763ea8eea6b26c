"""Fixtures for accounting's reports: the known history the review tests use (tests/review/history.py),
and every test's report runs stored in its own folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tables.models import CasinoStaff
from tests.reports.runs import reports_casino_id
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


# The reports' personas work for the casino these tests' requests are of (tests/reports/runs.py)
# as well as their table's: a report is of a casino the asker works for (issue 20).
@pytest.fixture
def pit_boss(pit_boss: Any) -> Any:
    CasinoStaff.objects.get_or_create(user=pit_boss, casino_id=reports_casino_id())
    return pit_boss


@pytest.fixture
def accountant(accountant: Any) -> Any:
    CasinoStaff.objects.get_or_create(user=accountant, casino_id=reports_casino_id())
    return accountant
