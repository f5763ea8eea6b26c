"""Strict input through the API (docs/api.md, "Integers must be JSON integers"): an id is a JSON
integer (core.api.inputs.IdField), a free text a JSON string (core.api.inputs.TextField), a flag
a JSON boolean (core.api.inputs.FlagField), each refused rather than converted, with nothing
written; and no refusal quotes back more than the first characters of what it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from tables import services
from tables.models import Player, Seat, Spectator, Table, TableSession, VoidRequest
from tests.factories import PlayerFactory, UserFactory
from tests.problems import field_errors, problem_body
from tests.tables.play import coup_with_bets, open_floor, row_counts, void_limit_set

from .conftest import Api
from .test_coups_api import coup_player_drew_wrongly

pytestmark = pytest.mark.django_db

#: what a player id that is not a JSON integer from 1 to the largest id gets, the id sent first
BAD_PLAYER_IDS: list[tuple[Any, str]] = [
    ("15", "Incorrect type. Expected pk value, received str."),
    (True, "Incorrect type. Expected pk value, received bool."),
    ([1], "Incorrect type. Expected pk value, received list."),
    (0, 'Invalid pk "0" - object does not exist.'),
    (-3, 'Invalid pk "-3" - object does not exist.'),
    (2**63, f'Invalid pk "{2**63}" - object does not exist.'),
]
STRING_REQUIRED = ["A string is required."]
BOOLEAN_REQUIRED = ["Must be a valid boolean."]


@pytest.fixture
def guests(croupier, table) -> list[Player]:
    """An open session at ``table``, no shoe yet; three players of its casino, the first seated."""
    session = services.table_session_open(actor=croupier, table=table)
    players: list[Player] = [PlayerFactory(casino=table.casino) for _ in range(3)]
    services.seat_take(actor=croupier, session=session, player=players[0], number=1)
    return players


# ------------------------------------------------------------------------------------------ ids
def test_a_seats_player_is_a_json_integer(croupier, table, guests) -> None:
    api = Api(croupier)
    seats = f"/tables/{table.pk}/seats/"
    # 1.9 was read as player 1: another player than the one sent, seated
    decimal = guests[1].pk + 0.9
    assert field_errors(api.refuse(seats, {"player": decimal, "number": 2}, status=400)) == {
        "player": ["Incorrect type. Expected pk value, received float."]
    }
    assert field_errors(api.refuse(seats, {"player": float(guests[1].pk), "number": 2}, status=400)) == {
        "player": ["Incorrect type. Expected pk value, received float."]
    }
    for player, message in BAD_PLAYER_IDS:
        assert field_errors(api.refuse(seats, {"player": player, "number": 3}, status=400)) == {
            "player": [message]
        }
    assert Seat.objects.filter(left_at__isnull=True).count() == 1
    # a JSON integer seats him
    state = api.ok(api.post(seats, {"player": guests[1].pk, "number": 2}))
    seated = [(s["number"], s["player"]["id"]) for s in state["seats"]]
    assert seated == [(1, guests[0].pk), (2, guests[1].pk)]


def test_a_spectators_player_is_a_json_integer(croupier, table, guests) -> None:
    api = Api(croupier)
    path = f"/tables/{table.pk}/spectators/"
    assert field_errors(api.refuse(path, {"player": guests[2].pk + 0.5}, status=400)) == {
        "player": ["Incorrect type. Expected pk value, received float."]
    }
    for player, message in BAD_PLAYER_IDS:
        assert field_errors(api.refuse(path, {"player": player}, status=400)) == {"player": [message]}
    assert Spectator.objects.count() == 0
    state = api.ok(api.post(path, {"player": guests[2].pk}))
    assert [s["player"]["id"] for s in state["spectators"]] == [guests[2].pk]


def test_the_player_cutting_the_shoe_is_a_json_integer(croupier, table, guests) -> None:
    api = Api(croupier)
    path = f"/tables/{table.pk}/shoe/"
    shoe = {"decks": 6, "burnt_cards": ["2C", "3C", "4C"]}
    for player, message in [
        *BAD_PLAYER_IDS,
        (str(guests[0].pk), "Incorrect type. Expected pk value, received str."),
        (guests[0].pk + 0.0, "Incorrect type. Expected pk value, received float."),
    ]:
        assert field_errors(api.refuse(path, {**shoe, "cut_by": player}, status=400)) == {"cut_by": [message]}
    state = api.ok(api.post(path, {**shoe, "cut_by": guests[0].pk}))
    assert state["shoe"]["number"] == 1


def test_a_spectators_id_in_a_bank_share_is_at_most_the_largest_id(croupier, club_table) -> None:
    open_floor(croupier, club_table, seats=(1, 2), spectators=1, banker_seat=None)
    api = Api(croupier)
    t = f"/tables/{club_table.pk}/bank"
    too_big = {"spectator": ["Ensure this value is less than or equal to 9223372036854775807."]}
    assert field_errors(api.refuse(f"{t}/share/", {"spectator": 2**63, "amount": 10}, status=400)) == too_big
    assert field_errors(api.refuse(f"{t}/share/out/", {"spectator": 2**63}, status=400)) == too_big
    assert field_errors(api.refuse(f"{t}/share/out/", {"spectator": "7"}, status=400)) == {
        "spectator": ["A whole number is required."]
    }


# ---------------------------------------------------------------------------------------- flags
@pytest.mark.parametrize("flag", ["no", "true", "yes", 0, 1, "1", "on"])
def test_an_answer_to_a_bank_offer_is_a_json_boolean(croupier, table, flag) -> None:
    table.first_banker_method = Table.FirstBanker.ACCEPTANCE  # the bank is offered round
    table.save(update_fields=["first_banker_method"])
    open_floor(croupier, table, banker_seat=None)
    api = Api(croupier)
    offer_to = api.ok(api.get(f"/tables/{table.pk}/"), 200)["bank_rotation"]["offer_to"]
    body = {"seat": offer_to, "accept": flag}
    assert field_errors(api.refuse(f"/tables/{table.pk}/bank/offer/", body, status=400)) == {
        "accept": BOOLEAN_REQUIRED
    }


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        ({"kind": "bet", "seat": 2, "amount": 10, "confirm": 1}, {"confirm": BOOLEAN_REQUIRED}),
        ({"kind": "bet", "seat": 2, "amount": 10, "confirm": "false"}, {"confirm": BOOLEAN_REQUIRED}),
        (
            {"kind": "bet", "spectator": 1, "amount": 10, "seated_round_over": "yes"},
            {"seated_round_over": BOOLEAN_REQUIRED},
        ),
        ({"kind": "bet", "spectator": 1, "amount": 10, "consent": 1}, {"consent": BOOLEAN_REQUIRED}),
        (
            {"kind": "banco", "callers": [{"seat": 2, "suivi": "no"}]},
            {"callers": {"0": {"suivi": BOOLEAN_REQUIRED}}},
        ),
        ({"kind": "card_to_player", "card": 9}, {"card": STRING_REQUIRED}),
        ({"kind": "card_to_player", "card": ["9H"]}, {"card": STRING_REQUIRED}),
    ],
)  # fmt: skip
def test_a_steps_flags_and_card_are_not_converted(croupier, table, fields, errors) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    body = {"step": api.seen[coup], **fields}
    assert field_errors(api.refuse(f"/coups/{coup}/steps/", body, status=400)) == errors


# ----------------------------------------------------------------------------------------- text
def test_a_new_players_name_and_number_are_json_strings(croupier, table) -> None:
    services.table_session_open(actor=croupier, table=table)
    api = Api(croupier)
    path = f"/tables/{table.pk}/players/"
    assert field_errors(api.refuse(path, {"display_name": 5}, status=400)) == {
        "display_name": STRING_REQUIRED
    }
    assert field_errors(api.refuse(path, {"display_name": True}, status=400)) == {
        "display_name": STRING_REQUIRED
    }
    body = {"display_name": "Guest", "membership_number": 1001}
    assert field_errors(api.refuse(path, body, status=400)) == {"membership_number": STRING_REQUIRED}
    player = api.ok(api.post(path, {"display_name": "Guest", "membership_number": "1001"}))
    assert (player["display_name"], player["membership_number"]) == ("Guest", "1001")


def test_closing_reasons_are_json_strings(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    t = f"/tables/{table.pk}"
    assert field_errors(api.refuse(f"{t}/shoe/close/", {"reason": 5}, status=400)) == {
        "reason": STRING_REQUIRED
    }
    assert field_errors(api.refuse(f"{t}/session/close/", {"reason": 5.5}, status=400)) == {
        "reason": STRING_REQUIRED
    }
    api.ok(api.post(f"{t}/session/close/", {"reason": "end of the night"}), 200)
    assert TableSession.objects.get(table=table).closed_at is not None


def test_the_reasons_of_a_void_an_amendment_and_a_rejection_are_json_strings(
    croupier, table, pit_boss
) -> None:
    floor = open_floor(croupier, table)
    api, boss = Api(croupier), Api(pit_boss)
    coup = coup_with_bets(floor, (2, 50), bank=100)
    assert field_errors(boss.refuse(f"/coups/{coup.pk}/void/", {"reason": 5}, status=400)) == {
        "reason": STRING_REQUIRED
    }
    assert field_errors(
        api.refuse(f"/coups/{coup.pk}/steps/2/amend/", {"amount": 60, "reason": 60}, status=400)
    ) == {"reason": STRING_REQUIRED}
    boss.ok(boss.post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"}))

    wrong = coup_player_drew_wrongly(api, table.pk, 100)
    api.ok(api.post(f"/coups/{wrong['id']}/correction/", {"cards": []}))
    path = f"/coups/{wrong['id']}/correction/reject/"
    assert field_errors(boss.refuse(path, {"reason": 5}, status=400)) == {"reason": STRING_REQUIRED}
    assert field_errors(boss.refuse(path, {"reason": None}, status=400)) == {
        "reason": ["This field may not be null."]
    }
    assert boss.ok(boss.post(path, {"reason": "recheck"}))["step"]["payload"]["reason"] == "recheck"


def test_the_reason_a_void_request_is_refused_is_a_json_string(croupier, table, pit_boss) -> None:
    void_limit_set(table, 10)
    coup = coup_with_bets(open_floor(croupier, table), (2, 50))
    assert Api(pit_boss).post(f"/coups/{coup.pk}/void/", {"reason": "misdeal"}).status_code == 202
    second = Api(UserFactory(username="marc", roles=["pit_boss"], casinos=[table.casino]))
    asked = VoidRequest.objects.get()
    path = f"/void-requests/{asked.pk}/refuse/"
    assert field_errors(second.refuse(path, {"reason": 5}, status=400)) == {"reason": STRING_REQUIRED}
    assert VoidRequest.objects.get().state == VoidRequest.State.PENDING


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"decks": 6, "burnt_cards": ["2C", 3, "4C"]}, {"burnt_cards": {"1": STRING_REQUIRED}}),
        (
            {"decks": 6, "burnt_cards": ["2C"] * 11},
            {"burnt_cards": ["Ensure this field has no more than 10 elements."]},
        ),
        (
            {"decks": 6, "burnt_cards": [9] * 100_000},  # refused by its length, not item by item
            {"burnt_cards": ["Ensure this field has no more than 10 elements."]},
        ),
    ],
)
def test_burnt_cards_are_json_strings_at_most_ten(croupier, table, guests, body, errors) -> None:
    assert field_errors(Api(croupier).refuse(f"/tables/{table.pk}/shoe/", body, status=400)) == errors


def test_the_cards_of_a_correction_are_json_strings(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    wrong = coup_player_drew_wrongly(api, table.pk, 100)
    path = f"/coups/{wrong['id']}/correction/"
    assert field_errors(api.refuse(path, {"cards": [4]}, status=400)) == {"cards": {"0": STRING_REQUIRED}}
    assert field_errors(api.refuse(path, {"cards": ["4C"] * 100_000}, status=400)) == {
        "cards": ["Ensure this field has no more than 6 elements."]
    }


def test_a_banco_names_at_most_a_hundred_callers(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    before = row_counts()
    crowd = [{"spectator": n} for n in range(1, 100_001)]  # refused by its length, not caller by caller
    response = api.post(f"/coups/{coup}/steps/", {"step": api.seen[coup], "kind": "banco", "callers": crowd})
    assert response.status_code == 400
    assert field_errors(problem_body(response)) == {
        "callers": {"non_field_errors": ["Ensure this field has no more than 100 elements."]}
    }
    assert row_counts() == before


# ------------------------------------------------------------------------------- what is echoed
MEGABYTE = "x" * 1_000_000
CLIPPED = "x" * 20 + "…"
TOO_LONG_CARD = ["Ensure this field has no more than 8 characters."]


def test_a_megabyte_step_kind_is_quoted_by_its_first_characters(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    before = row_counts()
    response = api.step(coup, MEGABYTE)
    assert response.status_code == 400
    assert problem_body(response) == {
        "code": "invalid",
        "detail": f'kind: "{CLIPPED}" is not a valid choice.',
        "kind": [f'"{CLIPPED}" is not a valid choice.'],
    }
    assert len(response.content) < 1_000
    assert row_counts() == before


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        ({"kind": "card_to_player", "card": MEGABYTE}, {"card": TOO_LONG_CARD}),
        ({"kind": "card_to_player", "card": "9" * 9}, {"card": TOO_LONG_CARD}),
        ({"kind": "bets_closed", MEGABYTE: 1}, {CLIPPED: ["Unknown field."]}),
        ({"kind": "bets_closed", "x" * 21: 1}, {CLIPPED: ["Unknown field."]}),
        ({"kind": "bets_closed", "x" * 20: 1}, {"x" * 20: ["Unknown field."]}),
        ({"kind": ["bet"] * 100_000}, {"kind": STRING_REQUIRED}),
        ({"kind": 5}, {"kind": STRING_REQUIRED}),
    ],
)  # fmt: skip
def test_no_refusal_of_a_step_quotes_more_than_a_prefix(croupier, table, fields, errors) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    before = row_counts()
    response = api.post(f"/coups/{coup}/steps/", {"step": api.seen[coup], **fields})
    assert response.status_code == 400
    assert field_errors(problem_body(response)) == errors
    assert len(response.content) < 1_000
    assert row_counts() == before
