"""A control character in a query string (issue 20, §6): refused with 400 before any view reads it,
problem JSON under /api/ and the 400 page elsewhere, where a NUL in ``?search=`` or ``?q=`` was a
500 (PostgreSQL refuses NUL in any text)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from core.middleware import CONTROL_CHARACTER_DETAIL
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query", ["search=%00", "search=du%00p", "search=%01", "search=%7F", "%00=x", "search=a%0Ab"]
)
def test_an_api_query_with_a_control_character_is_a_400_problem(croupier, table, query) -> None:
    answer = Api(croupier).get(f"/tables/{table.pk}/players/?{query}")
    assert answer.status_code == 400 and answer["Content-Type"] == "application/problem+json"
    assert json.loads(answer.content) == {
        "type": "urn:chemin:problem:bad_request",
        "title": "Bad Request",
        "status": 400,
        "detail": CONTROL_CHARACTER_DETAIL,
        "instance": f"/api/v1/tables/{table.pk}/players/",
        "code": "bad_request",
    }


def test_printable_text_still_searches(croupier, table) -> None:
    answer = Api(croupier).get(f"/tables/{table.pk}/players/?search=Dupont%20%C3%A9")
    assert answer.status_code == 200 and answer.json()["count"] == 0


def test_a_screen_query_with_a_nul_is_the_400_page(cashier, table) -> None:
    client = Client()
    client.force_login(cashier)
    page = reverse("cage:players", args=[table.casino_id])
    answer = client.get(page + "?q=or%00lov")
    assert answer.status_code == 400 and answer["Content-Type"].startswith("text/html")
    assert "Bad request" in answer.content.decode()
    assert client.get(page + "?q=orlov").status_code == 200
