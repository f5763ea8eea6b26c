"""Our 400/403/404/500 templates, never a stack trace."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.core.urls_errors")]


def test_404(client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "<h1>Not found</h1>" in response.content.decode()


def test_400_for_a_bad_host_header(client) -> None:
    response = client.get("/accounts/login/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in response.content.decode()


def test_403(client) -> None:
    response = client.get("/forbidden/")
    assert response.status_code == 403
    assert "<h1>Not allowed</h1>" in response.content.decode()


@override_settings(DEBUG=False)
def test_500_uses_our_template_without_details() -> None:
    client = Client(raise_request_exception=False)
    response = client.get("/boom/")
    html = response.content.decode()
    assert response.status_code == 500
    assert "<h1>Something went wrong</h1>" in html
    assert "deliberate failure" not in html and "Traceback" not in html
