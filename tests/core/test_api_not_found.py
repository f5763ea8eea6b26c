"""A 404 under /api/ is problem JSON with ``DEBUG`` on too (core.middleware.ApiNotFoundMiddleware):
``make run`` runs with ``DEBUG=1``, where Django answered a URL no view resolves with its HTML debug
page, though docs/api.md says every error under /api/ is ``application/problem+json`` whoever
answers. With ``DEBUG`` off handler404 (core.views.page_not_found) already answered it."""

from __future__ import annotations

import json

import pytest
from django.test import Client, override_settings

from core.errors import NOT_FOUND_MESSAGE

pytestmark = pytest.mark.django_db


def _problem(answer, path: str) -> None:
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/problem+json"
    assert json.loads(answer.content) == {
        "type": "urn:chemin:problem:not_found",
        "title": "Not Found",
        "status": 404,
        "detail": NOT_FOUND_MESSAGE,
        "instance": path,
        "code": "not_found",
    }


@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("path", ["/api/v1/nothing/", "/api/nothing", "/api/v2/coups/1/", "/api/"])
def test_an_unknown_api_url_is_a_404_problem_whatever_debug_says(debug, path) -> None:
    with override_settings(DEBUG=debug):
        for method in ("get", "post", "delete"):
            _problem(getattr(Client(), method)(path), path)


@override_settings(DEBUG=True)
def test_a_view_s_own_404_stays_its_problem(croupier) -> None:
    client = Client()
    client.force_login(croupier)
    answer = client.get("/api/v1/coups/999999/")
    assert answer.status_code in (401, 403, 404)
    assert answer["Content-Type"] == "application/problem+json"


@override_settings(DEBUG=True)
def test_a_url_without_its_slash_is_still_redirected() -> None:
    answer = Client().get("/api/v1/me")
    assert answer.status_code == 301 and answer["Location"] == "/api/v1/me/"


@override_settings(DEBUG=True)
def test_a_screen_s_404_is_left_to_django_in_debug() -> None:
    answer = Client().get("/no-such-page/")
    assert answer.status_code == 404 and answer["Content-Type"].startswith("text/html")
