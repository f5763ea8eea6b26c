"""``GET /api/v1/tables/{id}/players/``: the casino's players free to sit or stand at a table, the
device's seat picker (the croupier's screen lists the same players): seated and standing players,
the house and other casinos' players are left out; ``?search=`` matches a name or a membership
number. Read by whoever reads the table."""

from __future__ import annotations

from typing import Any

import pytest

from tables import services
from tables.models import Seat
from tables.services.banks import house_player
from tests.factories import PlayerFactory
from tests.problems import problem_body

from .conftest import Api

pytestmark = pytest.mark.django_db


def names(answer: Any) -> list[str]:
    assert answer.status_code == 200, answer.content
    return [p["display_name"] for p in answer.json()["results"]]


def test_the_players_free_to_sit_down(croupier, table, other_table, pit_boss, accountant) -> None:
    casino = table.casino
    dupont = PlayerFactory(casino=casino, display_name="M. Dupont", membership_number="M-1001")
    leroy = PlayerFactory(casino=casino, display_name="Mme Leroy", membership_number="M-1002")
    orlov = PlayerFactory(casino=casino, display_name="Comte Orlov", membership_number="M-1003")
    PlayerFactory(display_name="Elsewhere")  # another casino's
    house_player(casino=casino)  # the house banks; it never sits down
    session = services.table_session_open(actor=croupier, table=table)
    services.seat_take(actor=croupier, session=session, player=dupont, number=1)
    services.spectator_join(actor=croupier, session=session, player=leroy)
    api = Api(croupier)
    path = f"/tables/{table.pk}/players/"
    answer = api.get(path)
    assert answer.json() == {
        "count": 1,
        "next": None,
        "previous": None,
        "results": [{"id": orlov.pk, "display_name": "Comte Orlov", "membership_number": "M-1003"}],
    }
    # seated and standing at *this* table only: at another table of the casino all three are free
    assert names(Api(pit_boss).get(f"/tables/{other_table.pk}/players/")) == [
        "Comte Orlov",
        "M. Dupont",
        "Mme Leroy",
    ]
    assert names(Api(accountant).get(path)) == ["Comte Orlov"]
    services.seat_leave(actor=croupier, seat=Seat.objects.get(session=session, number=1))
    assert names(api.get(path)) == ["Comte Orlov", "M. Dupont"]
    assert names(api.get(path + "?search=dup")) == ["M. Dupont"]
    assert names(api.get(path + "?search=m-1003")) == ["Comte Orlov"]
    assert names(api.get(path + "?search=M-10")) == []  # a membership number is matched whole
    assert names(api.get(path + "?search=nobody")) == []


def test_only_who_reads_the_table_lists_its_players(
    croupier, table, other_croupier, cashier, outsider
) -> None:
    PlayerFactory(casino=table.casino, display_name="M. Dupont")
    path = f"/tables/{table.pk}/players/"
    for user in (other_croupier, cashier, outsider):
        answer = Api(user).get(path)
        assert answer.status_code == 403
        assert problem_body(answer) == {"code": "permission_denied", "detail": "You may not see this table."}
    assert Api().get(path).status_code == 401
    assert Api(croupier).get("/tables/999999/players/").status_code == 404


def test_the_list_is_in_the_schema(croupier, table) -> None:
    schema = Api(croupier).client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/tables/{table_id}/players/"]["get"]
    assert operation["operationId"] == "tables_players_list"
    assert "search" in [p["name"] for p in operation["parameters"] if p["in"] == "query"]
    assert "200" in operation["responses"] and "403" in operation["responses"]
