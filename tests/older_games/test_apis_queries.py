"""The SQL an older game's request costs is bounded and does not grow with the coup's length
(docs/api.md, "Cost of a step"): the counts measured when the bounds were set, plus 2.

A step: token, idempotency claim and response, the coup and the permission read by the view, the
service's locks and permission check, the coup's steps (one query, however many), the players,
one balance per player at risk (the exposure check: Landsknecht's grows with its covers, up to
the seated players), the step's writes and audit event, and the coup view read back (its steps,
names and postings). The step that ends the coup adds the settlement: the ledger's accounts and
postings (three for a pooled tie), the coup's record, the audit event."""

from __future__ import annotations

from typing import Any

import pytest

from older_games.services import player_key
from tests.older_games.test_apis_play import Chooser, next_step
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db

MARGIN = 2
START = 30
# measured again once rows were bound to their events (issue 20 §1): the coup's and the step's rows
# read for their digests before COMMIT, and at a settlement the postings' transactions and entries
STEP = 28  # four seated players
SETTLE = 36
POOLED_TIE_SETTLE = 49  # 48 on PostgreSQL, 49 on SQLite
READ, TABLE, LIST = 9, 19, 5  # each with one read of the casinos the user works for


@pytest.mark.parametrize("game", ["macao", "landsknecht", "old-baccarat"])
def test_each_request_costs_a_bounded_number_of_queries(
    game_table, croupier, game: str, django_assert_max_num_queries
) -> None:
    table, session, _players = game_table(game, players=4, chips=100_000)
    api = Api(croupier)
    if game == "landsknecht":
        api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
    chooser = Chooser.seeded(3)
    for _ in range(2):
        with django_assert_max_num_queries(START + MARGIN):
            coup = api.ok(api.post(f"/tables/{table.pk}/game-coups/"))
        while coup["next_steps"]:
            # nobody leaves (old baccarat's leave): the second coup is played by the same four
            staying = [o for o in coup["next_steps"] if o["kind"] != "leave"]
            step = next_step(chooser.pick(staying), chooser)
            with django_assert_max_num_queries(SETTLE + MARGIN) as captured:
                coup = api.ok(
                    api.post(
                        f"/game-coups/{coup['id']}/steps/", {**step, "expected_steps": coup["step_count"]}
                    )
                )
            bound = (SETTLE if coup["state"] == "settled" else STEP) + MARGIN
            assert len(captured) <= bound, (step, len(captured))
        with django_assert_max_num_queries(READ + MARGIN):
            api.ok(api.get(f"/game-coups/{coup['id']}/"), 200)
        with django_assert_max_num_queries(TABLE + MARGIN):
            api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
        with django_assert_max_num_queries(LIST + MARGIN):
            api.ok(api.get(f"/game-coups/?table={table.pk}"), 200)


def test_a_pooled_tie_settles_in_a_bounded_number_of_queries(
    game_table, croupier, django_assert_max_num_queries
) -> None:
    table, _session, players = game_table(
        "old-baccarat", players=3, settings={"min_stake": 10, "tie_rule": "pool"}
    )
    a, b, c = (player_key(p) for p in players)
    api = Api(croupier)
    coup: dict[str, Any] = api.ok(api.post(f"/tables/{table.pk}/game-coups/"))
    steps: list[dict[str, Any]] = [
        {"kind": "stake", "player": b, "amount": 20},
        {"kind": "stake", "player": c, "amount": 10},
        {"kind": "cut", "player": b},
        *({"kind": "card", "card": card} for card in ("3H", "2H", "4H", "2S", "3S", "3D")),
        {"kind": "stand", "player": c},
        {"kind": "stand", "player": b},
        {"kind": "draw", "player": a},
    ]
    for payload in steps:
        with django_assert_max_num_queries(STEP + MARGIN):
            coup = api.ok(
                api.post(
                    f"/game-coups/{coup['id']}/steps/", {**payload, "expected_steps": coup["step_count"]}
                )
            )
    with django_assert_max_num_queries(POOLED_TIE_SETTLE + MARGIN):
        coup = api.ok(
            api.post(f"/game-coups/{coup['id']}/steps/", {"kind": "card", "card": "9D", "expected_steps": 12})
        )
    assert [p["kind"] for p in coup["postings"]] == ["pool_in", "pool_out", "game_settlement"]
