"""What every browser test shares: headless Debian Chromium through Playwright's sync API, and the
demo floor (``load_demo``) for the tests that start where a new user starts."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command

from tests.browser.test_croupier_flow import CHROMIUM_ARGS
from tests.conftest import chromium_path


@pytest.fixture
def browser() -> Iterator[Any]:
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # still synchronous and safe (the live server answers from its own thread).
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def demo(transactional_db: None) -> None:
    """The demo casino as ``manage.py load_demo`` makes it for a new user."""
    call_command("load_demo", "--force", stdout=io.StringIO())
