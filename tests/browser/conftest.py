"""The demo floor (``load_demo``) for the browser tests that start where a new user starts (the
browser itself, headless Debian Chromium, is ``tests/conftest.py``'s ``browser``)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.fixture
def demo(transactional_db: None) -> None:
    """The demo casino as ``manage.py load_demo`` makes it for a new user."""
    call_command("load_demo", "--force", stdout=io.StringIO())
