"""``POST /api/v1/coups/{id}/steps/{index}/amend/``: a typo amended through the API, idempotent
like every POST, refused with nothing written (docs/api.md)."""

from __future__ import annotations

import pytest

from audit.row_verify import rows_verify
from tables.models import Bet, CoupStep
from tests.problems import field_errors
from tests.tables.play import open_floor, row_counts

from .conftest import Api

pytestmark = pytest.mark.django_db


def typo_coup(api: Api, table_id: int) -> tuple[int, int]:
    """A coup of bank 200 where seat 2's bet of 150 was typed 15: (coup id, the bet's index)."""
    coup = api.ok(api.post(f"/tables/{table_id}/coups/", {"bank": 200}))["coup"]
    body = api.ok(api.step(coup["id"], "bet", seat=2, amount=15))
    return coup["id"], body["step"]["index"]


def test_an_amendment_is_idempotent(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    cid, index = typo_coup(api, table.pk)
    path = f"/coups/{cid}/steps/{index}/amend/"
    first = api.post(path, {"amount": 150, "reason": "typed 15 for 150", "step": 2}, key="amend-1")
    body = api.ok(first)
    assert (body["step"]["kind"], body["step"]["supersedes"], body["step"]["payload"]["amount"]) == (
        "amend",
        index,
        150,
    )
    assert body["coup"]["covered"] == 150 and body["coup"]["steps"][index - 1]["superseded_by"] == 3
    counts = row_counts()
    again = api.post(path, {"amount": 150, "reason": "typed 15 for 150", "step": 2}, key="amend-1")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == body
    assert row_counts() == counts
    assert (
        CoupStep.objects.filter(kind="amend").count() == 1
        and Bet.objects.filter(withdrawn=False).count() == 1
    )
    # the same key with another body is refused
    assert api.post(path, {"amount": 140, "reason": "typo", "step": 2}, key="amend-1").status_code == 422


def test_amendment_refusals_write_nothing(croupier, other_croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    cid, index = typo_coup(api, table.pk)
    path = f"/coups/{cid}/steps/{index}/amend/"
    assert field_errors(api.refuse(path, {"amount": 150}, status=400)) == {
        "reason": ["This field is required."]
    }
    blank = api.refuse(path, {"amount": 150, "reason": "  "}, status=400)
    assert field_errors(blank) == {"reason": ["This field may not be blank."]}
    unknown = api.refuse(f"/coups/{cid}/steps/9/amend/", {"amount": 1, "reason": "t"}, status=400)
    assert field_errors(unknown) == {"step": ["This coup has no step 9."]}
    assert "left to cover" in str(api.refuse(path, {"amount": 500, "reason": "t"}, status=400))
    assert api.refuse(path, {"amount": 150, "reason": "t", "step": 1}, status=409)["current_step"] == 2
    assert api.refuse(f"/coups/{cid + 999}/steps/1/amend/", {"amount": 1, "reason": "t"}, status=404)
    Api(other_croupier).refuse(path, {"amount": 150, "reason": "t"}, status=403)


def test_after_the_reveal_the_amendment_is_refused_pointing_to_the_correction(croupier, table) -> None:
    open_floor(croupier, table)
    api = Api(croupier)
    cid, index = typo_coup(api, table.pk)
    api.ok(api.step(cid, "bet", seat=3, amount=185))
    api.ok(api.step(cid, "bets_closed"))
    for kind, card in (("card_to_player", "9H"), ("card_to_banker", "2S"), ("card_to_player", "KC")):
        api.ok(api.step(cid, kind, card=card))
    api.ok(api.step(cid, "card_to_banker", card="3D"))
    api.ok(api.step(cid, "player_natural"))
    api.ok(api.step(cid, "reveal"))
    refused = api.refuse(f"/coups/{cid}/steps/{index}/amend/", {"amount": 150, "reason": "t"}, status=409)
    assert "correction" in refused["detail"]


def test_a_bet_a_banco_withdrew_is_amended_and_its_replacement_stays_withdrawn(croupier, table) -> None:
    """The banco took back seat 2's bet (typed 15 for 150) before the croupier saw the typo. The
    amendment was a 409 "reload and retry" that no retry could pass: the service withdrew the
    mistyped bet again, which the append-only trigger refuses for a row withdrawn already."""
    open_floor(croupier, table)
    api = Api(croupier)
    cid, index = typo_coup(api, table.pk)
    api.ok(api.step(cid, "banco", callers=[{"seat": 3}]))
    mistyped = Bet.objects.get(coup_id=cid, seat__number=2)
    assert mistyped.withdrawn
    body = api.ok(api.post(f"/coups/{cid}/steps/{index}/amend/", {"amount": 150, "reason": "typed 15"}))
    assert (body["step"]["kind"], body["step"]["supersedes"], body["step"]["payload"]["amount"]) == (
        "amend",
        index,
        150,
    )
    assert body["coup"]["bets"] == [{"punter": "seat-3", "amount": 200, "spectator": False}]
    replacement = Bet.objects.get(replaces=mistyped)
    assert (replacement.amount, replacement.withdrawn) == (150, True)
    assert Bet.objects.filter(coup_id=cid, withdrawn=False).count() == 1
    assert [str(d) for d in rows_verify().differences] == []  # every row as its events bound it
