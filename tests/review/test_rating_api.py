"""GET /api/v1/players/{id}/rating/: the played night's slip, the period's errors, who may read it."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.factories import PlayerFactory
from tests.problems import field_errors, problem_body
from tests.review.test_rating import PER_CHIP, played_night, whole_night
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db

OUT_OF_RANGE = "Enter a date from 1900-01-01 to 9998-12-31."


def rating_path(player_id: int, query: str = "") -> str:
    return f"/players/{player_id}/rating/{query}"


def test_the_slip_of_a_played_night(pit_boss, croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    banker = floor.players[1]
    response = Api(pit_boss).get(rating_path(banker.pk, f"?from={first}&to={last}"))
    assert response.status_code == 200, response.content[:500]
    body = response.json()
    expected = f"{round(PER_CHIP * 300 * 10**6) / 10**6:.6f}"  # 300 covered chips at 5 %
    total = {
        "seconds_seated": 8652,  # 2 h 41 min 17 s less a pause of 17 min 05 s
        "coups": 2,
        "coups_banked": 2,
        "staked": 0,
        "average_stake": None,
        "largest_stake": 0,
        "net": 90,
        "levy": 10,
        "fees": 0,
        "expected_levy": expected,
        "theoretical": expected,
        "actual": 10,
    }
    assert body["total"] == total
    assert (body["player"]["id"], body["from"], body["to"]) == (
        banker.pk,
        first.isoformat(),
        last.isoformat(),
    )
    [session] = body["sessions"]
    assert {k: session[k] for k in ("session", "table", "table_name")} == {
        "session": floor.session.pk,
        "table": table.pk,
        "table_name": table.name,
    }
    assert {k: v for k, v in session.items() if k in total} == total
    assert sum(d["seconds_seated"] for d in body["days"]) == 8652
    assert sum(d["coups"] for d in body["days"]) == 2

    punter = Api(pit_boss).get(rating_path(floor.players[2].pk, f"?from={first}&to={last}")).json()["total"]
    assert (punter["staked"], punter["average_stake"], punter["largest_stake"], punter["net"]) == (
        220,
        "110.00",
        120,
        -20,
    )


def test_the_period_defaults_to_the_last_seven_gaming_days(accountant, croupier, table) -> None:
    floor, _t0 = played_night(croupier, table)
    body = Api(accountant).get(rating_path(floor.players[1].pk)).json()
    from_, to = (dt.date.fromisoformat(body[k]) for k in ("from", "to"))
    assert (to - from_).days == 6
    assert body["total"]["coups"] == 2


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        (
            "?from=2026-13-01",
            {"from": ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."]},
        ),
        ("?to=yesterday", {"to": ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."]}),
        ("?from=2026-12-05&to=2026-12-01", {"non_field_errors": ["The period starts after it ends."]}),
        ("?from=2025-01-01&to=2026-12-01", {"non_field_errors": ["A period covers at most 367 days."]}),
        ("?since=2026-12-01", {"since": ["Unknown field."]}),
        # days off the calendar the product supports (core.widgets): each was an OverflowError, a 500
        ("?to=0001-01-01", {"to": [OUT_OF_RANGE]}),
        ("?to=9999-12-31", {"to": [OUT_OF_RANGE]}),
        ("?from=9999-12-31&to=9999-12-31", {"from": [OUT_OF_RANGE], "to": [OUT_OF_RANGE]}),
        ("?from=0001-01-01&to=0001-01-07", {"from": [OUT_OF_RANGE], "to": [OUT_OF_RANGE]}),
        ("?from=1899-12-31", {"from": [OUT_OF_RANGE]}),
        ("?to=9999-01-01", {"to": [OUT_OF_RANGE]}),
    ],
)
def test_a_bad_period_is_a_400(pit_boss, table, query, errors) -> None:
    player = PlayerFactory(casino=table.casino)
    response = Api(pit_boss).get(rating_path(player.pk, query))
    assert response.status_code == 400
    assert field_errors(problem_body(response)) == errors


@pytest.mark.parametrize(
    ("persona", "status"), [("croupier", 403), ("cashier", 403), ("outsider", 403), (None, 401)]
)
def test_who_may_not_read_a_slip(request, croupier, table, persona, status) -> None:
    floor, _t0 = played_night(croupier, table)
    user = request.getfixturevalue(persona) if persona else None
    response = Api(user).get(rating_path(floor.players[1].pk))
    assert response.status_code == status
    body = problem_body(response)
    assert "total" not in body and "sessions" not in body


def test_another_casinos_player_does_not_exist(pit_boss, table) -> None:
    stranger = PlayerFactory()  # a casino of his own
    response = Api(pit_boss).get(rating_path(stranger.pk))
    assert response.status_code == 404
    assert problem_body(response)["code"] == "not_found"
    assert Api(pit_boss).get(rating_path(999_999)).status_code == 404
