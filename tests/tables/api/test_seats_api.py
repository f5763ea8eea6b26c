"""The API for the rules of issue 9 §4: the house bank (RULES.md §2), spectators after the seated
round and the club's consent (§2), a passed bank's terms (§7), the stop card (§8)."""

from __future__ import annotations

import pytest

from tables.models import Player
from tests.problems import field_errors
from tests.tables.play import open_floor

from .conftest import Api

pytestmark = pytest.mark.django_db


def test_the_house_banks_through_the_api(croupier, table) -> None:
    """RULES.md §2: POST bank/house/; the table and the coup show House as the banker, from no seat."""
    api = Api(croupier)
    t = f"/tables/{table.pk}"
    open_floor(croupier, table, banker_seat=None)
    assert api.refuse(f"{t}/bank/house/", status=400) == {
        "code": "invalid",
        "detail": "The house does not bank this table (the table's house-bank setting is off).",
    }
    table.house_bank = True
    table.save()
    state = api.ok(api.post(f"{t}/bank/house/"))
    assert state["house_bank"] is True and state["bank_rotation"] is None
    house = Player.objects.get(house=True)
    assert state["bank"]["player"] == {"id": house.pk, "display_name": "House", "membership_number": ""}
    assert (state["bank"]["seat"], state["bank"]["house"], state["bank"]["started_how"]) == (
        None,
        True,
        "house",
    )
    coup = api.ok(api.post(f"{t}/coups/", {"bank": 100}))["coup"]
    assert (coup["banker"], coup["banker_seat"], coup["house_bank"]) == (house.pk, None, True)
    body = api.ok(api.step(coup["id"], "bet", seat=1, amount=100))
    assert body["coup"]["bets"] == [{"punter": "seat-1", "amount": 100, "spectator": False}]


def test_a_spectators_bet_through_the_api(croupier, table) -> None:
    """RULES.md §2: refused before the seated round; ``seated_round_over`` says it is over."""
    api = Api(croupier)
    floor = open_floor(croupier, table, spectators=1)
    spectator = floor.spectators[0].pk
    cid = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    step = api.seen[cid]
    body = {"step": step, "kind": "bet", "spectator": spectator, "amount": 100}
    assert field_errors(api.refuse(f"/coups/{cid}/steps/", body, status=400)) == {
        "spectator": [
            "Spectators bet only on what is left once every seated punter has had a turn: "
            "seats 4, 3, 2 to go (or say the seated round is over)."
        ]
    }
    assert field_errors(
        api.refuse(f"/coups/{cid}/steps/", {"step": step, "kind": "bets_closed", "consent": True}, status=400)
    ) == {"consent": ["A bets_closed step does not take this field."]}
    done = api.ok(api.step(cid, "bet", spectator=spectator, amount=100, seated_round_over=True))
    assert done["coup"]["uncovered"] == 0


def test_a_club_spectators_bet_needs_consent_through_the_api(croupier, club_table) -> None:
    """RULES.md §2 (seed 002)."""
    api = Api(croupier)
    floor = open_floor(croupier, club_table, seats=(1, 2), spectators=1)
    spectator = floor.spectators[0].pk
    cid = api.ok(api.post(f"/tables/{club_table.pk}/coups/", {"bank": 10}))["coup"]["id"]
    body = {
        "step": api.seen[cid],
        "kind": "bet",
        "spectator": spectator,
        "amount": 5,
        "seated_round_over": True,
    }
    assert field_errors(api.refuse(f"/coups/{cid}/steps/", body, status=400)) == {
        "consent": ["Under the club profile a spectator bets only with the banker's consent."]
    }
    api.ok(api.step(cid, "bet", spectator=spectator, amount=5, seated_round_over=True, consent=True))


def test_a_passed_bank_shows_its_terms_through_the_api(croupier, table) -> None:
    """RULES.md §7: the taker sets his own bank from the minimum up to the house limit."""
    table.casino.house_limit = 5000
    table.casino.save()
    api = Api(croupier)
    open_floor(croupier, table)
    state = api.ok(api.post(f"/tables/{table.pk}/bank/pass/"), 200)
    rotation = state["bank_rotation"]
    assert (rotation["how"], rotation["required_minimum"], rotation["maximum"], rotation["auction_bank"]) == (
        "passed",
        1,
        5000,
        None,
    )


def test_a_stop_card_outside_7_to_10_is_refused_through_the_api(croupier, table) -> None:
    """RULES.md §8."""
    api = Api(croupier)
    t = f"/tables/{table.pk}"
    api.ok(api.post(f"{t}/session/open/"))
    shoe = {"decks": 6, "burnt_cards": ["2C", "3C", "4C"]}
    assert field_errors(api.refuse(f"{t}/shoe/", {**shoe, "stop_card_position": 3}, status=400)) == {
        "stop_card_position": [
            "The stop card goes 7 to 10 cards from the bottom of the shoe "
            "(in this 312-card shoe: after card 302 to 305), not 3."
        ]
    }
    assert (
        api.ok(api.post(f"{t}/shoe/", {**shoe, "stop_card_position": 7}))["shoe"]["stop_card_position"] == 7
    )
