"""No dead ends through the API (issue 9 §2): a bank nobody bets on withdrawn (RULES.md §7,
``POST coups/{id}/withdraw/``) and a coup in play voided by a pit boss (``POST coups/{id}/void/``)."""

from __future__ import annotations

import pytest

from tests.problems import field_errors
from tests.tables.play import open_floor

from .conftest import Api

pytestmark = pytest.mark.django_db


def test_a_bank_nobody_bets_on_is_withdrawn_through_the_api(croupier, table, pit_boss) -> None:
    """RULES.md §7: withdrawn without a deal; the banker keeps the bank for the next coup."""
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 300}))["coup"]
    Api(pit_boss).refuse(f"/coups/{coup['id']}/withdraw/", {"step": 1}, status=403)
    api.refuse(f"/coups/{coup['id']}/withdraw/", {"step": 0}, status=409)
    done = api.ok(api.post(f"/coups/{coup['id']}/withdraw/", {"step": 1}))
    assert (done["step"]["kind"], done["step"]["payload"]) == (
        "bank_withdrawn",
        {"bank": 300, "banker": "seat-1"},
    )
    assert (done["coup"]["state"], done["coup"]["step_count"], done["coup"]["next_steps"]) == (
        "withdrawn",
        2,
        [],
    )
    state = api.ok(api.get(f"/tables/{table.pk}/"), 200)
    assert (state["current_coup"], state["last_coup"], state["bank"]["seat"]) == (None, coup["id"], 1)
    following = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 300}))["coup"]
    assert following["first_coup_of_bank"] is True
    refused = api.refuse(f"/coups/{coup['id']}/withdraw/", {}, status=409)
    assert refused["detail"] == "This coup is withdrawn: there is no bank to withdraw."


def test_a_bank_with_a_bet_is_not_withdrawn_through_the_api(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 300}))["coup"]
    api.ok(api.step(coup["id"], "bet", seat=2, amount=100))
    refused = api.refuse(f"/coups/{coup['id']}/withdraw/", {}, status=400)
    assert refused["detail"] == (
        "Bets stand on this bank: it is played, not withdrawn (a pit boss may void the coup)."
    )


def test_a_pit_boss_voids_a_coup_in_play_through_the_api(croupier, table, pit_boss) -> None:
    """Issue 9 §2: any coup not over yet; reason required; the table goes on."""
    open_floor(croupier, table)
    api, boss = Api(croupier), Api(pit_boss)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 300}))["coup"]
    api.ok(api.step(coup["id"], "bet", seat=2, amount=100))
    api.ok(api.step(coup["id"], "bets_closed"))
    api.ok(api.step(coup["id"], "card_to_player", card="2H"))
    boss.refuse(f"/coups/{coup['id']}/void/", {"reason": ""}, status=400)
    api.refuse(f"/coups/{coup['id']}/void/", {"reason": "mine"}, status=403)
    voided = boss.ok(boss.post(f"/coups/{coup['id']}/void/", {"reason": "the shoe jammed"}))
    assert (voided["step"]["kind"], voided["step"]["payload"], voided["coup"]["state"]) == (
        "coup_voided",
        {"reason": "the shoe jammed", "was": "open"},
        "void",
    )
    state = api.ok(api.get(f"/tables/{table.pk}/"), 200)
    assert (state["current_coup"], state["shoe"]["cards_dealt"]) == (None, 3 + 1)  # burnt 3, dealt 1
    again = boss.refuse(f"/coups/{coup['id']}/void/", {"reason": "twice"}, status=409)
    assert again["detail"].startswith("This coup is void: only a coup not over yet")
    api.ok(api.post(f"/tables/{table.pk}/session/close/", {}), 200)


def test_after_a_withdrawal_or_a_void_the_next_bank_is_the_one_declared(croupier, table, pit_boss) -> None:
    """The bank stays in the bank account as declared, and a bank in play is never lowered: the
    table names it as the next minimum, so a device declaring ``required_minimum`` is not refused."""
    open_floor(croupier, table)
    api, boss = Api(croupier), Api(pit_boss)
    assert api.ok(api.get(f"/tables/{table.pk}/"), 200)["bank"]["required_minimum"] == 1
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 300}))["coup"]
    api.ok(api.post(f"/coups/{coup['id']}/withdraw/", {"step": 1}))
    assert api.ok(api.get(f"/tables/{table.pk}/"), 200)["bank"]["required_minimum"] == 300
    refused = api.refuse(f"/tables/{table.pk}/coups/", {"bank": 299}, status=400)
    assert field_errors(refused) == {"amount": ["the bank must be at least 300"]}
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 350}))["coup"]
    api.ok(api.step(coup["id"], "bet", seat=2, amount=100))
    boss.ok(boss.post(f"/coups/{coup['id']}/void/", {"reason": "the shoe jammed"}))
    assert api.ok(api.get(f"/tables/{table.pk}/"), 200)["bank"]["required_minimum"] == 350
    assert api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 350}))["coup"]["bank"] == 350
