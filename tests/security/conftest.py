"""The known history of the back-office pages (tests/review/history.py), for verify_books; the
application's database role and a history committed for it to attack (tests/security/db_role.py),
for tests/security/test_db_attacks.py and tests/security/test_row_tamper.py."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.review.history import awaiting, history  # noqa: F401  (fixtures)
from tests.security.db_role import AppRole, Played, app_role_setup, played_make


@pytest.fixture(scope="session")
def app_role(django_db_setup: Any, django_db_blocker: Any) -> Iterator[AppRole]:
    yield from app_role_setup(django_db_blocker)


@pytest.fixture
def played(app_role: AppRole, croupier: Any, table: Any) -> Played:
    return played_make(croupier, table)
