"""The API's answer to a reveal of a coup changed in the database (tables.services.vouching): a 409
with its own code and the change said, nothing written; the next legal step is the pit boss's void."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from tables.models import Coup, CoupStep, GameCoup, GameStep
from tests.audit.rows import superuser_sql
from tests.problems import problem_body
from tests.tables.play import open_floor, row_counts

from .conftest import Api

pytestmark = pytest.mark.django_db


def test_a_reveal_on_a_changed_card_is_a_409_that_says_so(croupier, pit_boss, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 400}))["coup"]["id"]
    api.ok(api.step(coup, "bet", seat=2, amount=100))
    api.ok(api.step(coup, "bets_closed"))
    for kind, card in (
        ("card_to_player", "3H"),
        ("card_to_banker", "2D"),
        ("card_to_player", "4C"),
        ("card_to_banker", "4S"),
    ):
        api.ok(api.step(coup, kind, card=card))
    api.ok(api.step(coup, "player_stand"))
    api.ok(api.step(coup, "banker_stand"))
    dealt = CoupStep.objects.get(coup_id=coup, index=5)
    superuser_sql(
        "UPDATE tables_coupstep SET payload = %s WHERE id = %s", [json.dumps({"card": "5D"}), dealt.pk]
    )
    before = row_counts()
    response = api.step(coup, "reveal")
    assert response.status_code == 409
    assert problem_body(response) == {
        "code": "records_changed",
        "detail": "This coup's record was changed outside the application (step 5 was changed): nothing "
        "was settled. Call the pit boss: the coup can only be voided.",
        "current_step": 9,
    }
    assert row_counts() == before
    voided = Api(pit_boss).post(f"/coups/{coup}/void/", {"reason": "a card was changed"})
    assert voided.status_code == 201, voided.content
    assert Coup.objects.get(pk=coup).state == Coup.State.VOID


def test_a_coup_with_a_step_deleted_in_the_database_is_shown_refused_and_voided(
    croupier, pit_boss, table
) -> None:
    """Its steps cannot be replayed: the coup is shown as recorded with no step to play (it was a
    500), every step is refused with the change said, and the pit boss's void ends it."""
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 400}))["coup"]["id"]
    api.ok(api.step(coup, "bet", seat=2, amount=100))
    api.ok(api.step(coup, "bets_closed"))
    bet = CoupStep.objects.get(coup_id=coup, index=2)
    superuser_sql("DELETE FROM tables_coupstep WHERE id = %s", [bet.pk])
    shown = api.get(f"/coups/{coup}/")
    assert shown.status_code == 200
    assert (shown.json()["step_count"], shown.json()["next_steps"]) == (3, [])
    before = row_counts()
    refused = api.step(coup, "card_to_player", card="3H")
    assert refused.status_code == 409
    assert problem_body(refused)["detail"] == (
        "This coup's record was changed outside the application (a step was deleted): nothing was "
        "settled. Call the pit boss: the coup can only be voided."
    )
    assert row_counts() == before
    page = Client()
    page.force_login(pit_boss)
    review = page.get(reverse("review:coup", args=[coup]))  # where the pit boss voids it: was a 500
    assert review.status_code == 200
    assert b"Void this coup" in review.content
    voided = Api(pit_boss).post(f"/coups/{coup}/void/", {"reason": "a bet was deleted in the database"})
    assert voided.status_code == 201, voided.content
    assert Coup.objects.get(pk=coup).state == Coup.State.VOID
    assert api.get(f"/coups/{coup}/").status_code == 200


def test_an_older_games_coup_with_a_step_made_unplayable_is_shown_refused_and_voided(
    game_table, croupier, pit_boss
) -> None:
    """A Macao card changed into no card at all: the coup was a 500 on the API and on the pit
    boss's page (its steps replayed to be shown); it is shown as far as its steps replay, with no
    next step, its steps are refused as changed, and the pit boss voids it."""
    table, _session, _players = game_table("macao", players=3)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/game-coups/", {}))["id"]
    for done, card in enumerate(("9H", "8S", "5D")):
        api.ok(api.post(f"/game-coups/{coup}/steps/", {"kind": "deal", "card": card, "expected_steps": done}))
    dealt = GameStep.objects.get(coup_id=coup, index=3)
    forged = json.dumps({"kind": "deal", "card": "ZZ"})
    superuser_sql("UPDATE tables_gamestep SET payload = %s WHERE id = %s", [forged, dealt.pk])
    shown = api.get(f"/game-coups/{coup}/")
    assert shown.status_code == 200
    assert (shown.json()["step_count"], shown.json()["next_steps"]) == (3, [])
    before = row_counts()
    refused = api.post(f"/game-coups/{coup}/steps/", {"kind": "stand", "expected_steps": 3})
    assert refused.status_code == 409
    assert problem_body(refused)["detail"] == (
        "This coup's record was changed outside the application (step 3 was changed): nothing was "
        "settled. Call the pit boss: the coup can only be voided."
    )
    assert row_counts() == before
    page = Client()
    page.force_login(pit_boss)
    review = page.get(reverse("review:game_coup", args=[coup]))
    assert review.status_code == 200
    voided = Api(pit_boss).post(f"/game-coups/{coup}/void/", {"reason": "a card was changed in the database"})
    assert voided.status_code == 200, voided.content
    assert GameCoup.objects.get(pk=coup).state == GameCoup.State.VOID
