"""The older games' API takes its inputs strictly (older_games/api/inputs.py on core.api.inputs):
a reason is a JSON string, a card too long is refused by its length before it is read, and no
refusal quotes back more than the first characters of what it refuses; nothing written."""

from __future__ import annotations

from typing import Any

import pytest

from tables.models import GameStep
from tests.problems import field_errors, problem_body
from tests.tables.api.conftest import Api

from .test_apis import refuse, snapshot, start

pytestmark = pytest.mark.django_db

STRING_REQUIRED = ["A string is required."]
TOO_LONG_CARD = ["Ensure this field has no more than 8 characters."]
TOO_LONG_KEY = ["Ensure this field has no more than 40 characters."]
MEGABYTE = "x" * 1_000_000
CLIPPED = "x" * 20 + "…"
#: what core.cards says a card looks like, after "bad card 'ZZ'"
CARD_HINT = ": a card is a rank (A, 2-9, T or 10, J, Q, K) and a suit (S, H, D, C), e.g. 9H"


@pytest.mark.parametrize("reason", [5, 5.5, True, ["misdeal"], {"why": "misdeal"}])
def test_the_reason_of_a_void_is_a_json_string(game_table, croupier, pit_boss, reason: Any) -> None:
    table, _session, _players = game_table("macao", players=2)
    coup = start(Api(croupier), table)
    path = f"/game-coups/{coup['id']}/void/"
    assert field_errors(refuse(Api(pit_boss), path, {"reason": reason}, status=400)) == {
        "reason": STRING_REQUIRED
    }


def test_the_reason_of_an_undo_is_a_json_string(game_table, croupier) -> None:
    table, _session, _players = game_table("macao", players=2)
    api = Api(croupier)
    coup = start(api, table)
    deal = {"kind": "deal", "card": "KH", "expected_steps": 0}
    coup = api.ok(api.post(f"/game-coups/{coup['id']}/steps/", deal))
    path = f"/game-coups/{coup['id']}/undo/"
    assert field_errors(refuse(api, path, {"expected_steps": 1, "reason": 12}, status=400)) == {
        "reason": STRING_REQUIRED
    }
    undone = api.ok(api.post(path, {"expected_steps": 1, "reason": "12 was the king of spades"}))
    assert undone["steps"][1]["payload"]["reason"] == "12 was the king of spades"


@pytest.mark.parametrize(
    ("fields", "errors"),
    [
        # the card's length is checked before it is read: never "bad card 'xxxx…'" a megabyte long
        ({"kind": "deal", "card": MEGABYTE}, {"card": TOO_LONG_CARD}),
        ({"kind": "deal", "card": " 9h      "}, None),  # blanks around a card are not its length
        ({"kind": "deal", "card": "x" * 8}, {"card": ["bad card 'xxxxxxxx'" + CARD_HINT]}),
        ({"kind": MEGABYTE}, {"kind": [f'"{CLIPPED}" is not a valid choice.']}),
        ({"kind": "decide", "decision": MEGABYTE}, {"decision": [f'"{CLIPPED}" is not a valid choice.']}),
        ({"kind": "deal", "player": MEGABYTE}, {"player": TOO_LONG_KEY}),
        ({"kind": "deal", MEGABYTE: "9H"}, {CLIPPED: ["Unknown field."]}),
    ],
)  # fmt: skip
def test_no_refusal_of_a_step_quotes_more_than_a_prefix(game_table, croupier, fields, errors) -> None:
    table, _session, _players = game_table("macao", players=2)
    api = Api(croupier)
    coup = start(api, table)
    before = snapshot()
    response = api.post(f"/game-coups/{coup['id']}/steps/", {**fields, "expected_steps": 0})
    if errors is None:
        assert api.ok(response)["steps"][0]["payload"] == {"kind": "deal", "card": "9H"}
        assert GameStep.objects.count() == 1
        return
    assert response.status_code == 400, response.content[:500]
    body = problem_body(response)
    assert field_errors(body) == errors
    assert body["detail"] == " ".join(f"{name}: {message}" for name, [message] in errors.items())
    assert len(response.content) < 1_000
    assert snapshot() == before
