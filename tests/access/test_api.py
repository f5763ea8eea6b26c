"""REST API: authentication required (session or token), schema served, /api/v1/me/ exact."""

from __future__ import annotations

import pytest

from access.services.tokens import api_token_create
from tests.factories import CasinoFactory

pytestmark = pytest.mark.django_db


def test_api_needs_authentication(client) -> None:
    response = client.get("/api/v1/me/")
    assert (response.status_code, response["WWW-Authenticate"]) == (401, "Token")
    assert client.get("/api/schema/").status_code == 401


def test_me_with_token_authentication(client, croupier, table) -> None:
    token = api_token_create(user=croupier)
    response = client.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 200
    body = response.json()
    assignment = croupier.assignments.get()
    assert body == {
        "username": "croupier",
        "full_name": "",
        "roles": ["croupier"],
        "is_superuser": False,
        "current_assignments": [
            {
                "table_id": table.pk,
                "table": str(table),
                "shift_start": assignment.shift_start.isoformat().replace("+00:00", "Z"),
                "shift_end": assignment.shift_end.isoformat().replace("+00:00", "Z"),
            }
        ],
        # he works for the only casino there is: what is "every casino" shows him nobody else's
        "casinos": [{"id": table.casino_id, "name": table.casino.name}],
        "group_wide": True,
    }


def test_me_names_the_casinos_of_one_who_works_for_some_of_them(client, croupier, table) -> None:
    CasinoFactory(name="Across the road")
    client.force_login(croupier)
    body = client.get("/api/v1/me/").json()
    assert (body["casinos"], body["group_wide"]) == (
        [{"id": table.casino_id, "name": table.casino.name}],
        False,
    )


def test_me_of_the_group_auditor_is_group_wide_with_no_casino(client, group_auditor, table) -> None:
    client.force_login(group_auditor)
    body = client.get("/api/v1/me/").json()
    assert (body["roles"], body["casinos"], body["group_wide"]) == (["group_auditor"], [], True)


def test_me_with_session_authentication(client, accountant) -> None:
    client.force_login(accountant)
    body = client.get("/api/v1/me/").json()
    assert (body["username"], body["roles"], body["current_assignments"]) == (
        "accountant",
        ["accountant"],
        [],
    )


def test_bad_token_is_refused(client) -> None:
    assert client.get("/api/v1/me/", HTTP_AUTHORIZATION="Token nope").status_code == 401


def test_schema_and_docs_for_staff(client, pit_boss) -> None:
    client.force_login(pit_boss)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    spec = schema.json()
    assert spec["info"]["title"] == "Chemin de Fer back-office API"
    assert "/api/v1/me/" in spec["paths"]
    assert client.get("/api/docs/").status_code == 200


def test_swagger_ui_loads_its_assets_from_this_server(client, pit_boss) -> None:
    """No CDN: the machines the back-office runs on need not reach the internet."""
    import re

    from django.contrib.staticfiles import finders

    client.force_login(pit_boss)
    page = client.get("/api/docs/").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css|png))"', page)
    assert assets, page[:500]
    assert all(a.startswith("/static/") for a in assets), assets
    for asset in assets:
        assert finders.find(asset.removeprefix("/static/")), asset
