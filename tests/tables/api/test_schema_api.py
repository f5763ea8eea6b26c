"""The OpenAPI schema documents the table API without a warning from drf-spectacular."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from drf_spectacular.drainage import GENERATOR_STATS

from .conftest import Api

pytestmark = pytest.mark.django_db


def test_the_schema_generates_without_warnings(tmp_path) -> None:
    GENERATOR_STATS.reset()
    # --fail-on-warn turns any warning or error of the generator into a failure; --validate checks
    # the result against the OpenAPI 3 meta-schema
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yaml"))
    assert not GENERATOR_STATS


def test_the_schema_describes_every_endpoint(pit_boss) -> None:
    api = Api(pit_boss)
    response = api.client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    # /api/v1/auth/token/ is asked before there is a user to key an Idempotency-Key on
    outside = {"/api/v1/me/", "/api/v1/auth/token/"}
    table_api = {p: ops for p, ops in paths.items() if p.startswith("/api/v1/") and p not in outside}
    # with the club bank share (bank/share/, bank/share/out/) and coups/{id}/void/, the cage's
    # five (cage/buy-in/, cage/cash-out/, cage/players/, players/{id}/balance/,
    # players/{id}/history/), a typo's
    # amendment (coups/{id}/steps/{index}/amend/), a bank nobody bet on withdrawn
    # (coups/{id}/withdraw/, RULES.md §7), the house bank (bank/house/, RULES.md §2) and the
    # report runs (reports/runs/, reports/runs/{id}/, reports/runs/{id}/file), and the older games'
    # seven (tables/{id}/game/, tables/{id}/game-coups/, game-coups/, game-coups/{id}/,
    # game-coups/{id}/steps/, game-coups/{id}/void/, sessions/{id}/fund-dues/), and the voids
    # waiting for a second pit boss (void-requests/, void-requests/{id}/approve/, …/refuse/), and a
    # player's rating slip (players/{id}/rating/) and his cash in and out of the gaming day at the
    # cage (players/{id}/cash-today/)
    assert len(table_api) == 53
    rating = paths["/api/v1/players/{player_id}/rating/"]["get"]
    assert [p["name"] for p in rating["parameters"] if p["in"] == "query"] == ["from", "to"]
    assert {"200", "400", "403", "404"} <= set(rating["responses"])
    assert "/api/v1/coups/{coup_id}/withdraw/" in table_api
    assert {
        "/api/v1/void-requests/",
        "/api/v1/void-requests/{request_id}/approve/",
        "/api/v1/void-requests/{request_id}/refuse/",
    } <= set(table_api)
    # a void above the casino's limit answers 202 and the request that waits
    void = paths["/api/v1/coups/{coup_id}/void/"]["post"]["responses"]["202"]
    assert void["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/VoidRequestOut"}
    for path, operations in table_api.items():
        for method, operation in operations.items():
            if method == "post":
                headers = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
                assert headers == ["Idempotency-Key"], path
                assert {"400", "401", "403", "404", "409", "422"} <= set(operation["responses"]), path
    step = paths["/api/v1/coups/{coup_id}/steps/"]["post"]
    assert step["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/StepIn"
    }
    assert "201" in step["responses"]
    amend = paths["/api/v1/coups/{coup_id}/steps/{index}/amend/"]["post"]
    assert amend["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/AmendIn"
    }
    assert "201" in amend["responses"]
    game_step = paths["/api/v1/game-coups/{coup_id}/steps/"]["post"]
    assert game_step["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GameStepIn"
    }
    assert game_step["responses"]["201"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/GameCoupOut"
    }
    assert paths["/api/v1/tables/{table_id}/game/"]["get"]["operationId"] == "tables_game_read"
    assert paths["/api/v1/game-coups/"]["get"]["operationId"] == "game_coups_list"
