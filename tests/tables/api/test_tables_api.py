"""Tables through the REST API: who reads which table, and the floor run from a client — session,
pause, players, seats, spectators, shoe, every way the bank changes hands."""

from __future__ import annotations

import pytest

from audit.selectors import audit_chains_verify
from ledger import services as ledger
from tables.models import BankTurn, Player, ShoeAlarm, TableSession
from tests.problems import field_errors, problem_body
from tests.tables.play import row_counts

from .conftest import Api

pytestmark = pytest.mark.django_db


def test_the_table_list_follows_the_role(
    croupier, other_croupier, table, other_table, pit_boss, accountant, outsider
):
    def ids(user) -> list[int]:
        api = Api(user)
        return [t["id"] for t in api.ok(api.get("/tables/"), 200)["results"]]

    assert ids(pit_boss) == ids(accountant) == sorted([table.pk, other_table.pk])
    assert ids(croupier) == [table.pk]
    assert ids(other_croupier) == [other_table.pk]
    assert ids(outsider) == []
    assert Api().get("/tables/").status_code == 401
    first = Api(pit_boss).get("/tables/").json()["results"][0]
    assert first == {
        "id": table.pk, "name": table.name, "game": "chemin-de-fer", "casino": table.casino.name,
        "profile": "casino",
        "seat_count": 12, "state": "closed", "first_banker_method": "lot",
        "house_bank": False, "passed_bank_auction": False,
    }  # fmt: skip


def test_reading_one_table(croupier, other_croupier, table, pit_boss, accountant, outsider) -> None:
    assert Api(croupier).get(f"/tables/{table.pk}/").status_code == 200
    assert Api(pit_boss).get(f"/tables/{table.pk}/").status_code == 200
    assert Api(accountant).get(f"/tables/{table.pk}/").status_code == 200
    assert Api(other_croupier).get(f"/tables/{table.pk}/").status_code == 403
    assert Api(outsider).get(f"/tables/{table.pk}/").status_code == 403
    assert Api().get(f"/tables/{table.pk}/").status_code == 401
    assert Api(pit_boss).get("/tables/999999/").status_code == 404
    closed = Api(croupier).get(f"/tables/{table.pk}/").json()
    assert (closed["session"], closed["seats"], closed["shoe"], closed["bank"]) == (None, [], None, None)


def test_the_floor_run_through_the_api(croupier, table) -> None:
    api = Api(croupier)
    t = f"/tables/{table.pk}"
    state = api.ok(api.post(f"{t}/session/open/"))
    assert state["state"] == "open" and state["session"]["opened_by"] == "croupier"
    assert not state["session"]["paused"]
    again = api.refuse(f"{t}/session/open/", status=400)
    assert again == {"code": "invalid", "detail": "This table already has an open session."}

    players = []
    for n in range(1, 5):
        player = api.ok(
            api.post(f"{t}/players/", {"display_name": f"Guest {n}", "membership_number": f"M{n}"})
        )
        assert player["display_name"] == f"Guest {n}"
        players.append(player["id"])
        p = Player.objects.get(pk=player["id"])
        ledger.cage_buy_in(casino=table.casino, player=p, amount=1000, actor=croupier, key=f"buyin:{p.pk}")
    for n, pid in enumerate(players[:3], 1):
        state = api.ok(api.post(f"{t}/seats/", {"player": pid, "number": n}))
    assert [(s["number"], s["player"]["id"]) for s in state["seats"]] == list(
        zip([1, 2, 3], players[:3], strict=True)
    )
    assert api.refuse(f"{t}/seats/", {"player": players[3], "number": 2}, status=400) == {
        "code": "invalid",
        "detail": "Seat 2 is taken.",
    }
    unknown = api.refuse(f"{t}/seats/", {"player": 999999, "number": 5}, status=400)
    assert list(field_errors(unknown)) == ["player"]

    state = api.ok(api.post(f"{t}/spectators/", {"player": players[3]}))
    spectator = state["spectators"][0]["id"]
    state = api.ok(api.post(f"{t}/spectators/{spectator}/leave/"), 200)
    assert state["spectators"] == []
    api.refuse(f"{t}/spectators/{spectator}/leave/", status=400)  # already left
    api.refuse(f"{t}/spectators/999999/leave/", status=404)
    state = api.ok(api.post(f"{t}/seats/", {"player": players[3], "number": 4}))

    bad_burn = api.refuse(f"{t}/shoe/", {"decks": 6, "burnt_cards": ["2C", "3C", "1X"]}, status=400)
    assert list(field_errors(bad_burn)) == ["burnt_cards"]
    five_decks = api.refuse(f"{t}/shoe/", {"decks": 5, "burnt_cards": ["2C", "3C", "4C"]}, status=400)
    assert list(field_errors(five_decks)) == ["decks"]
    state = api.ok(
        api.post(f"{t}/shoe/", {"decks": 6, "burnt_cards": ["2c", "3C", "4C"], "stop_card_position": 8})
    )
    assert {k: state["shoe"][k] for k in ("number", "decks", "cards_dealt", "cards_left")} == {
        "number": 1, "decks": 6, "cards_dealt": 3, "cards_left": 309,
    }  # fmt: skip

    # nobody banks yet: the first banker is drawn by lot at this table
    assert state["bank"] is None and state["bank_rotation"]["how"] == "acceptance"
    state = api.ok(api.post(f"{t}/bank/first/", {"seat": 1}))
    assert (state["bank"]["seat"], state["bank"]["started_how"], state["bank"]["required_minimum"]) == (
        1,
        "lot",
        1,
    )
    assert state["bank_rotation"] is None

    state = api.ok(api.post(f"{t}/session/pause/"))
    assert state["session"]["paused"]
    assert api.refuse(f"{t}/coups/", {"bank": 100}, status=400) == {
        "code": "invalid",
        "detail": "The table is paused.",
    }
    state = api.ok(api.post(f"{t}/session/resume/"), 200)
    assert not state["session"]["paused"]

    # the banker passes; this table auctions a passed bank (a table setting, RULES.md §7) at the
    # bank just played: he passed before playing one, so at the bank he had to declare
    table.passed_bank_auction = True
    table.save()
    state = api.ok(api.post(f"{t}/bank/pass/"), 200)
    assert state["bank"] is None and state["bank_rotation"]["how"] == "passed"
    assert {k: state["bank_rotation"][k] for k in ("required_minimum", "maximum", "auction_bank")} == {
        "required_minimum": 1, "maximum": None, "auction_bank": 1,
    }  # fmt: skip
    auction = api.refuse(f"{t}/bank/auction/", {"seat": 3, "amount": 0}, status=400)
    assert list(field_errors(auction)) == ["amount"]
    assert field_errors(api.refuse(f"{t}/bank/auction/", {"seat": 9, "amount": 1}, status=400)) == {
        "seat": ["Nobody sits at seat 9."]
    }
    assert field_errors(api.refuse(f"{t}/bank/auction/", {"seat": 3, "amount": 500}, status=400)) == {
        "amount": ["The bank goes to whoever puts up 1, the bank just played."]
    }
    state = api.ok(api.post(f"{t}/bank/auction/", {"seat": 3, "amount": 1}))
    assert (state["bank"]["seat"], state["bank"]["started_how"], state["bank"]["required_minimum"]) == (
        3, "auction", 1,
    )  # fmt: skip

    # the banker leaves: the bank goes round; when everybody refuses, the first neighbour opens a
    # new bank from the minimum
    state = api.ok(api.post(f"{t}/seats/3/leave/"), 200)
    assert [s["number"] for s in state["seats"]] == [1, 2, 4]
    rotation = state["bank_rotation"]
    assert rotation["how"] == "rotation"
    early = api.refuse(f"{t}/bank/new/", {"seat": rotation["order"][0]}, status=400)
    assert "still being offered" in early["detail"]
    for seat in rotation["order"]:
        state = api.ok(api.post(f"{t}/bank/offer/", {"seat": seat, "accept": False}))
    assert state["bank_rotation"]["offer_to"] is None
    state = api.ok(api.post(f"{t}/bank/new/", {"seat": rotation["order"][0]}))
    assert (state["bank"]["seat"], state["bank"]["started_how"]) == (rotation["order"][0], "new_bank")

    state = api.ok(api.post(f"{t}/shoe/close/", {"reason": "shuffle"}), 200)
    assert state["shoe"] is None
    assert ShoeAlarm.objects.filter(kind="early_reshuffle").count() == 1
    assert api.refuse(f"{t}/shoe/close/", status=400) == {
        "code": "invalid",
        "detail": "This table has no shoe in play.",
    }

    state = api.ok(api.post(f"{t}/session/close/", {"reason": "end of the night"}), 200)
    assert (state["state"], state["session"], state["seats"]) == ("closed", None, [])
    session = TableSession.objects.get(table=table)
    assert (session.close_reason, session.closed_by) == ("end of the night", croupier)
    assert BankTurn.objects.filter(session=session, ended_at__isnull=True).count() == 0
    assert api.refuse(f"{t}/session/pause/", status=400) == {
        "code": "invalid",
        "detail": "This table has no open session.",
    }
    assert all(report.ok for report in audit_chains_verify())  # every chain


TABLE_POSTS = [
    ("session/open/", {}),
    ("session/close/", {}),
    ("session/pause/", {}),
    ("session/resume/", {}),
    ("players/", {"display_name": "Mallory"}),
    ("seats/", {"player": 1, "number": 5}),
    ("seats/2/leave/", {}),
    ("spectators/", {"player": 1}),
    ("spectators/1/leave/", {}),
    ("shoe/", {"decks": 6, "burnt_cards": ["2C", "3C", "4C"]}),
    ("shoe/close/", {}),
    ("bank/first/", {"seat": 2}),
    ("bank/offer/", {"seat": 2, "accept": True}),
    ("bank/pass/", {}),
    ("bank/auction/", {"seat": 2, "amount": 100}),
    ("bank/new/", {"seat": 2}),
    ("bank/house/", {}),
    ("coups/", {"bank": 100}),
]


@pytest.mark.parametrize(("path", "body"), TABLE_POSTS, ids=[p for p, _ in TABLE_POSTS])
def test_only_the_tables_croupier_acts_there(
    croupier, other_croupier, pit_boss, accountant, outsider, table, path, body
) -> None:
    from tests.tables.play import open_floor

    open_floor(croupier, table, spectators=1)
    before = row_counts()
    for user in (other_croupier, pit_boss, accountant, outsider):
        response = Api(user).post(f"/tables/{table.pk}/{path}", body)
        assert response.status_code == 403, (user, response.content)
        assert problem_body(response) == {
            "code": "permission_denied",
            "detail": "Only the croupier assigned to this table for the current shift may do this.",
        }
    assert Api().post(f"/tables/{table.pk}/{path}", body).status_code == 401
    assert Api(croupier).post(f"/tables/999999/{path}", body).status_code == 404
    assert row_counts() == before


def test_a_club_spectator_shares_the_bank_through_the_api(croupier, club_table) -> None:
    from tests.tables.play import open_floor, play

    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0]
    api = Api(croupier)
    t = f"/tables/{club_table.pk}"
    api.refuse(f"{t}/bank/share/", {"spectator": spectator.pk, "amount": 0}, status=400)
    api.refuse(f"{t}/bank/share/", {"spectator": 999999, "amount": 3}, status=404)
    api.ok(api.post(f"{t}/bank/share/", {"spectator": spectator.pk, "amount": 3}))
    play(floor, bank=10, bets=[(2, 10)], cards=("2H", "4D", "3C", "5S"), player="stand", banker="natural")
    state = api.ok(api.post(f"{t}/bank/share/out/", {"spectator": spectator.pk}), 200)
    assert state["bank"]["required_minimum"] == 14  # the bank of 20 less his 6 (20 x 3/10)
    api.refuse(f"{t}/bank/share/out/", {"spectator": spectator.pk}, status=400)  # taken already
