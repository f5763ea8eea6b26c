"""The older games through the REST API (older_games/apis.py): an older game's table, its
coups started, stepped, read, listed and voided, the Landsknecht fund dues; exact values of
hand-picked coups, every refusal with nothing written, who may do what, and no 500 for any body."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import serializers

from ledger.models import Account
from ledger.selectors import player_available
from older_games.api import outputs as s
from older_games.services import fund_balance, player_key
from tables.api import outputs as floor_outputs
from tables.models import GameCoup, GameStep
from tests.factories import CasinoFactory, CroupierAssignmentFactory, PlayerFactory, UserFactory
from tests.problems import field_errors, problem_body
from tests.tables.api.conftest import Api
from tests.tables.play import row_counts

pytestmark = pytest.mark.django_db


def chips(table: Any, players: list[Any]) -> list[int]:
    return [player_available(casino=table.casino, player=p) for p in players]


def party(player: Any) -> dict[str, Any]:
    return {"key": player_key(player), "player": player.pk, "name": player.display_name}


def snapshot() -> dict[str, Any]:
    """Everything a refused request must leave as it was: the guarded rows (tests.tables.play),
    the game coups and their steps, every account's balance."""
    return {
        **row_counts(),
        "GameStep": GameStep.objects.count(),
        "coups": sorted(GameCoup.objects.values_list("pk", "state", "step_count", "void_reason")),
        "balances": sorted(Account.objects.values_list("pk", "balance")),
    }


def refuse(api: Api, path: str, body: Any = None, *, status: int, key: str | None = None) -> dict[str, Any]:
    before = snapshot()
    response = api.post(path, body, key=key)
    assert response.status_code == status, (response.status_code, response.content[:2000])
    assert snapshot() == before
    return problem_body(response)


def start(api: Api, table: Any, **body: Any) -> dict[str, Any]:
    return api.ok(api.post(f"/tables/{table.pk}/game-coups/", body))


def play(api: Api, coup: dict[str, Any], *steps: dict[str, Any]) -> dict[str, Any]:
    for payload in steps:
        coup = api.ok(
            api.post(f"/game-coups/{coup['id']}/steps/", {**payload, "expected_steps": coup["step_count"]})
        )
    return coup


def conforms(body: Any, shape: serializers.BaseSerializer) -> None:
    """Rendered through the serializer that documents it, the answer comes out unchanged."""
    shape.instance = body
    assert json.loads(json.dumps(shape.data, default=str)) == body


def entries(coup: dict[str, Any]) -> list[tuple[str, set[tuple[str, int]]]]:
    return [(p["kind"], {(e["party"], e["amount"]) for e in p["entries"]}) for p in coup["postings"]]


# --------------------------------------------------------------------------- hand-picked coups
def test_macao_a_nine_is_paid_three_units(game_table, croupier) -> None:
    table, _session, players = game_table("macao", players=3)
    a, b, c = players
    api = Api(croupier)
    coup = start(api, table)
    assert (coup["number"], coup["game"], coup["title"], coup["state"]) == (1, "macao", "Macao", "open")
    assert (coup["banker"], coup["punters"]) == (party(a), [party(b), party(c)])
    assert coup["next_steps"][0]["step"] == {"kind": "deal"}
    assert coup["next_steps"][0]["choose"] == ["card"]
    assert coup["next_steps"][0]["player_name"] == b.display_name
    assert (coup["net"], coup["postings"], coup["record"]) == (None, [], None)
    # each punter could lose three units to a banker's 9, the banker three to each
    assert coup["exposure"] == {player_key(b): 30, player_key(c): 30, player_key(a): 60}
    # b gets the 9 (typed as people type it), c the 8, the banker a 5; all stand
    coup = play(
        api,
        coup,
        {"kind": "deal", "card": "9h"},
        {"kind": "deal", "card": "8S"},
        {"kind": "deal", "card": "5D"},
        {"kind": "stand"},
        {"kind": "stand"},
        {"kind": "stand"},
    )
    assert (coup["state"], coup["outcome"], coup["step_count"]) == ("settled", "punters", 6)
    assert coup["steps"][0]["payload"] == {"kind": "deal", "card": "9H"}
    assert coup["hands"] == {player_key(b): ["9H"], player_key(c): ["8S"], player_key(a): ["5D"]}
    # the 9 is paid three units of 10, the 8 two: the banker pays 50
    assert coup["net"] == {player_key(a): -50, player_key(b): 30, player_key(c): 20}
    assert entries(coup) == [
        ("game_settlement", {(player_key(a), -50), (player_key(b), 30), (player_key(c), 20)})
    ]
    assert chips(table, players) == [950, 1030, 1020]
    assert coup["record"] == {
        "game": "macao",
        "unit": 10,
        "banker": player_key(a),
        "punters": [player_key(b), player_key(c)],
        "deal": ["9H", "8S", "5D"],
        "turns": [[], [], []],
    }
    assert (coup["next_steps"], coup["exposure"]) == ([], {}) and coup["ended_at"] is not None
    conforms(coup, s.GameCoupOut())
    view = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
    assert view["open_coup"] is None
    assert [c["id"] for c in view["recent"]] == [coup["id"]]
    assert view["recent"][0]["outcome"] == "punters"


def test_landsknecht_the_fund_answers_for_what_the_punters_leave(game_table, croupier) -> None:
    table, session, players = game_table("landsknecht", players=2)
    a, b = players
    api = Api(croupier)
    view = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
    assert view["unpaid_dues"] == [party(a), party(b)] and view["fund"] == 0
    assert refuse(api, f"/tables/{table.pk}/game-coups/", status=400) == {
        "code": "invalid",
        "detail": f"The fund dues are not paid yet ({a.display_name}, {b.display_name}): collect them first.",
    }
    view = api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
    assert (view["unpaid_dues"], view["fund"]) == ([], 20)
    assert chips(table, players) == [990, 990]
    # a second collection collects nothing
    assert api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))["fund"] == 20
    coup = start(api, table)
    assert coup["next_steps"] == [
        {
            "kind": "stake",
            "step": {"kind": "stake"},
            "choose": ["amount"],
            "player": player_key(a),
            "player_name": a.display_name,
            "amounts": [10, 20, 50, 100],
            "min_amount": 10,
            "max_amount": None,
        }
    ]
    coup = play(api, coup, {"kind": "stake", "amount": 50})
    cover = coup["next_steps"][0]
    assert cover["step"] == {"kind": "cover", "player": player_key(b)}
    assert (cover["amounts"], cover["min_amount"], cover["max_amount"]) == ([25, 50], 1, 50)
    coup = play(
        api,
        coup,
        {**cover["step"], "amount": 30},
        {"kind": "close"},  # the fund answers for the 20 left
        {"kind": "card", "card": "5H"},
        {"kind": "card", "card": "KS"},
        {"kind": "card", "card": "5D"},  # the banker's rank again: he wins
    )
    assert coup["next_steps"][0]["step"] == {"kind": "decide"}
    assert coup["next_steps"][0]["choices"] == ["take", "again"]
    coup = play(api, coup, {"kind": "decide", "decision": "take"})
    assert (coup["state"], coup["outcome"]) == ("settled", "banker")
    assert coup["net"] == {player_key(a): 50, player_key(b): -30, "fund": -20}
    assert entries(coup) == [("game_settlement", {(player_key(a), 50), (player_key(b), -30), ("fund", -20)})]
    assert chips(table, players) == [1040, 960] and fund_balance(table) == 0
    conforms(coup, s.GameCoupOut())
    # the bank passes to b, who opens after the take: the sum taken (100) or the minimum, only
    view = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
    assert (view["proposed_banker"], view["fund"]) == (party(b), 0)
    nxt = start(api, table)
    assert [(o["amounts"], o["min_amount"]) for o in nxt["next_steps"]] == [([10, 100], None)]
    refused = refuse(
        api,
        f"/game-coups/{nxt['id']}/steps/",
        {"kind": "stake", "amount": 50, "expected_steps": 0},
        status=400,
    )
    assert (
        refused["detail"]
        == "after a take the next bank stakes the sum just taken (100) or the minimum (10), not 50"
    )


def test_landsknecht_a_stake_shared_only_with_every_sharers_recorded_consent(game_table, croupier) -> None:
    """A stake may be split among several punters only with their consent (seed 004): after b's
    cover, c may cover the rest only once b and c agreed, each consent a step of its own."""
    table, session, players = game_table("landsknecht", players=3)
    a, b, c = players
    kb, kc = player_key(b), player_key(c)
    api = Api(croupier)
    api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
    coup = play(
        api, start(api, table), {"kind": "stake", "amount": 50}, {"kind": "cover", "player": kb, "amount": 30}
    )
    assert [o["step"] for o in coup["next_steps"]] == [
        {"kind": "consent", "player": kb},
        {"kind": "consent", "player": kc},
        {"kind": "close"},
    ]
    refused = refuse(
        api,
        f"/game-coups/{coup['id']}/steps/",
        {"kind": "cover", "player": kc, "amount": 20, "expected_steps": coup["step_count"]},
        status=400,
    )
    assert refused["detail"] == (
        f"the stake is shared among punters only with their consent; not agreed yet: {kb}, {kc}"
    )
    coup = play(api, coup, {"kind": "consent", "player": kb}, {"kind": "consent", "player": kc})
    assert [o["step"] for o in coup["next_steps"]] == [{"kind": "cover", "player": kc}, {"kind": "close"}]
    coup = play(
        api,
        coup,
        {"kind": "cover", "player": kc, "amount": 20},
        {"kind": "close"},
        *({"kind": "card", "card": card} for card in ("5H", "KS", "KD")),  # the punters' rank first
    )
    assert (coup["state"], coup["outcome"]) == ("settled", "punters")
    assert coup["net"] == {player_key(a): -50, kb: 30, kc: 20}
    conforms(coup, s.GameCoupOut())


def test_old_baccarat_a_pooled_tie(game_table, croupier) -> None:
    table, _session, players = game_table(
        "old-baccarat", players=3, settings={"min_stake": 10, "tie_rule": "pool"}
    )
    a, b, c = players
    kb, kc = player_key(b), player_key(c)
    api = Api(croupier)
    coup = start(api, table)
    assert {o["step"]["player"] for o in coup["next_steps"] if o["kind"] == "stake"} == {kb, kc}
    coup = play(
        api,
        coup,
        {"kind": "stake", "player": kb, "amount": 20},
        {"kind": "stake", "player": kc, "amount": 10},
        {"kind": "cut", "player": kb},
        # deal order: b, c, banker, then c, b, banker
        *({"kind": "card", "card": card} for card in ("3H", "2H", "4H", "2S", "3S", "3D")),
    )
    # b 6, c 4, banker 7: nobody has a natural; c buys first (the banker's right), then b
    # ... and either punter may leave the table at any moment (RULES.md §11)
    assert [o["step"] for o in coup["next_steps"]] == [
        {"kind": "draw", "player": kc},
        {"kind": "stand", "player": kc},
        {"kind": "leave", "player": kb},
        {"kind": "leave", "player": kc},
    ]
    coup = play(
        api,
        coup,
        {"kind": "stand", "player": kc},
        {"kind": "stand", "player": kb},
        {"kind": "draw", "player": player_key(a)},
        {"kind": "card", "card": "9D"},  # the banker: 4+3+9 = 16 -> 6, ties b, beats c
    )
    assert coup["state"] == "settled"
    # b's 20 and the banker's 20 are pooled and shared by the two: 20 each; c loses 10 to the banker
    assert coup["net"] == {player_key(a): 10, kc: -10}
    assert sorted(entries(coup)) == [
        ("game_settlement", {(player_key(a), 10), (kc, -10)}),
        ("pool_in", {(player_key(a), -20), (kb, -20), ("pool", 40)}),
        ("pool_out", {(player_key(a), 20), (kb, 20), ("pool", -40)}),
    ]
    assert chips(table, players) == [1010, 1000, 990]
    assert Account.objects.get(kind=Account.Kind.POOL, table=table).balance == 0
    conforms(coup, s.GameCoupOut())


# ------------------------------------------------------------------------ the table, the list
def test_a_mistyped_card_is_taken_back(game_table, croupier) -> None:
    table, _session, players = game_table("macao", players=2)
    a, b = players
    api = Api(croupier)
    coup = start(api, table)
    path = f"/game-coups/{coup['id']}/undo/"
    nothing = refuse(api, path, {"expected_steps": 0}, status=400)
    assert nothing["detail"] == "There is no step to take back."
    coup = play(api, coup, {"kind": "deal", "card": "KH"})
    assert coup["can_undo"] is True
    refuse(api, path, {"expected_steps": 0}, status=409)
    coup = api.ok(api.post(path, {"expected_steps": 1, "reason": "the king of spades"}))
    assert coup["step_count"] == 2 and coup["cards"] == [] and coup["can_undo"] is False
    assert [(s["payload"]["kind"], s["undone"]) for s in coup["steps"]] == [("deal", True), ("undo", True)]
    assert coup["steps"][1]["payload"]["of"] == {"kind": "deal", "card": "KH"}
    coup = play(api, coup, {"kind": "deal", "card": "KS"}, {"kind": "deal", "card": "3C"})
    coup = play(api, coup, {"kind": "stand"}, {"kind": "stand"})
    assert coup["state"] == "settled" and coup["record"]["deal"] == ["KS", "3C"]
    # the king counts nothing: b's 0 loses to the banker's 3 (one unit)
    assert coup["net"] == {player_key(a): 10, player_key(b): -10}
    conforms(coup, s.GameCoupOut())
    refuse(api, path, {"expected_steps": 6}, status=409)


def test_an_older_games_table(game_table, croupier, table, pit_boss) -> None:
    macao, session, players = game_table("macao", players=2, settings={"unit": 25, "decks": 1})
    api = Api(croupier)
    read = api.ok(api.get(f"/tables/{macao.pk}/"), 200)
    assert (read["game"], read["game_settings"]) == ("macao", {"unit": 25, "decks": 1})
    conforms(read, floor_outputs.TableOut())
    summary = next(t for t in Api(pit_boss).get("/tables/").json()["results"] if t["id"] == macao.pk)
    assert summary["game"] == "macao"
    view = api.ok(api.get(f"/tables/{macao.pk}/game/"), 200)
    a, b = players
    assert view == {
        "table": macao.pk,
        "name": macao.name,
        "game": "macao",
        "title": "Macao",
        "game_settings": {"unit": 25, "decks": 1},
        "session": session.pk,
        "seats": [{"seat": 1, **party(a)}, {"seat": 2, **party(b)}],
        "proposed_banker": party(a),
        "proposed_punters": [party(b)],
        "blocked": "",
        "unpaid_dues": [],
        "fund": None,
        "fund_return": [],
        "open_coup": None,
        "recent": [],
    }
    coup = start(api, macao)
    view = api.ok(api.get(f"/tables/{macao.pk}/game/"), 200)
    assert view["open_coup"] == coup["id"] and view["recent"][0]["state"] == "open"
    conforms(view, s.GameTableOut())
    # a chemin de fer table has no such view
    assert problem_body(api.get(f"/tables/{table.pk}/game/")) == {
        "code": "invalid",
        "detail": f"{table.name} deals Chemin de fer, not one of the older games.",
    }


def test_a_table_that_cannot_start_says_why(game_table, croupier) -> None:
    lone, _session, _players = game_table("old-baccarat", players=1)
    api = Api(croupier)
    view = api.ok(api.get(f"/tables/{lone.pk}/game/"), 200)
    assert view["blocked"] == "The game needs a banker and at least one other seated player."
    assert (view["proposed_banker"], view["proposed_punters"]) == (None, [])
    assert refuse(api, f"/tables/{lone.pk}/game-coups/", status=400)["detail"] == view["blocked"]
    closed, session, _players = game_table("landsknecht", players=0)
    api.ok(api.post(f"/tables/{closed.pk}/session/close/"), 200)
    view = api.ok(api.get(f"/tables/{closed.pk}/game/"), 200)
    assert (view["session"], view["blocked"], view["fund"]) == (None, "This table has no open session.", 0)
    assert refuse(api, f"/sessions/{session.pk}/fund-dues/", status=400)["code"] == "invalid"


def test_starting_with_a_banker_named(game_table, croupier, table) -> None:
    macao, _session, players = game_table("macao", players=3)
    api = Api(croupier)
    coup = start(api, macao, banker=players[1].pk)
    assert (coup["banker"], coup["punters"]) == (party(players[1]), [party(players[2]), party(players[0])])
    api.ok(api.post(f"/game-coups/{coup['id']}/void/", {"reason": "wrong banker"}), 200)
    _other, _s, strangers = game_table("macao", players=2)
    assert refuse(api, f"/tables/{macao.pk}/game-coups/", {"banker": strangers[0].pk}, status=400) == {
        "code": "invalid",
        "detail": f"{strangers[0]} is not seated at this table.",
    }
    for banker, error in (
        ("1", "Incorrect type. Expected pk value, received str."),
        (1.0, "Incorrect type. Expected pk value, received float."),
        (True, "Incorrect type. Expected pk value, received bool."),
        (2**70, f'Invalid pk "{2**70}" - object does not exist.'),
        (0, 'Invalid pk "0" - object does not exist.'),
    ):
        body = refuse(api, f"/tables/{macao.pk}/game-coups/", {"banker": banker}, status=400)
        assert field_errors(body) == {"banker": [error]}
    assert field_errors(refuse(api, f"/tables/{macao.pk}/game-coups/", {"bank": 10}, status=400)) == {
        "bank": ["Unknown field."]
    }
    # a chemin de fer table starts no game coup
    assert refuse(api, f"/tables/{table.pk}/game-coups/", status=400)["code"] == "invalid"


def test_a_banker_of_another_casino_is_refused_without_his_name(game_table, croupier) -> None:
    """The refusal named him ("P2a is not seated at this table."): a croupier could read another
    casino's players' names by trying their ids. Now it says what the seats say."""
    macao, _session, _players = game_table("macao", players=3)
    stranger = PlayerFactory(casino=CasinoFactory(), display_name="Outsider Name")
    answer = refuse(Api(croupier), f"/tables/{macao.pk}/game-coups/", {"banker": stranger.pk}, status=400)
    assert answer == {"code": "invalid", "detail": "This player belongs to another casino."}


def test_listing_game_coups(game_table, croupier, other_croupier, pit_boss, accountant, outsider) -> None:
    macao, session, _players = game_table("macao", players=2)
    baccarat, _s, _p = game_table("old-baccarat", players=2)
    api = Api(croupier)
    first = start(api, macao)
    api.ok(api.post(f"/game-coups/{first['id']}/void/", {"reason": "misdeal"}), 200)
    second = start(api, macao)
    third = start(api, baccarat)

    def ids(user: Any, query: str = "") -> list[int]:
        client = Api(user)
        return [c["id"] for c in client.ok(client.get(f"/game-coups/{query}"), 200)["results"]]

    assert ids(pit_boss) == ids(accountant) == ids(croupier) == [third["id"], second["id"], first["id"]]
    assert ids(croupier, f"?table={macao.pk}") == [second["id"], first["id"]]
    assert ids(pit_boss, f"?session={session.pk}&table={macao.pk}") == [second["id"], first["id"]]
    assert ids(pit_boss, f"?table={macao.pk}&session={session.pk + 1000}") == []
    assert ids(other_croupier) == ids(outsider) == []
    page = Api(pit_boss).get(f"/game-coups/?table={macao.pk}").json()
    assert page["count"] == 2
    assert page["results"][1] == {
        "id": first["id"],
        "table": macao.pk,
        "session": session.pk,
        "number": 1,
        "game": "macao",
        "state": "void",
        "outcome": "",
        "banker": first["banker"],
        "step_count": 0,
        "created_at": first["created_at"],
        "ended_at": page["results"][1]["ended_at"],
    }
    conforms(page["results"], s.GameCoupSummaryOut(many=True))
    for query in ("?table=abc", "?session=0", f"?table={2**70}"):
        assert Api(pit_boss).get(f"/game-coups/{query}").status_code == 400
    assert Api().get("/game-coups/").status_code == 401


# ------------------------------------------------------------------------------ refusals
def test_a_step_the_machine_refuses_writes_nothing(game_table, croupier, pit_boss) -> None:
    macao, _session, _players = game_table("macao", players=2)
    api = Api(croupier)
    coup = start(api, macao)
    path = f"/game-coups/{coup['id']}/steps/"
    assert refuse(api, path, {"kind": "stand", "expected_steps": 0}, status=400)["detail"].startswith(
        "Every player gets a first card"
    )
    assert field_errors(
        refuse(api, path, {"kind": "deal", "card": "1X", "expected_steps": 0}, status=400)
    ) == {
        # the refusal says what a card looks like, so the caller knows how to go on
        "card": [
            "bad card '1X': a card is a rank (A, 2-9, T or 10, J, Q, K) and a suit (S, H, D, C), e.g. 9H"
        ]
    }
    assert field_errors(
        refuse(api, path, {"kind": "deal", "card": "9H", "player": "x", "expected_steps": 0}, status=400)
    ) == {"player": ["A deal step does not take this field."]}
    assert field_errors(refuse(api, path, {"kind": "deal", "card": "9H"}, status=400)) == {
        "expected_steps": ["This field is required."]
    }
    # a kind of another game: the machine's reason
    assert refuse(api, path, {"kind": "stake", "amount": 10, "expected_steps": 0}, status=400)["detail"] == (
        "a Macao step is deal, draw, discard or stand, not 'stake'"
    )
    api.ok(api.post(path, {"kind": "deal", "card": "9H", "expected_steps": 0}))
    # stale: another entry came first
    assert refuse(api, path, {"kind": "deal", "card": "8H", "expected_steps": 0}, status=409) == {
        "code": "coup_conflict",
        "detail": "Coup 1 has 1 steps, not 0: another entry came first.",
        "current_step": 1,
    }
    # who dealt the coup does not void it (separation of duties): a pit boss does
    assert refuse(api, f"/game-coups/{coup['id']}/void/", {"reason": "misdeal"}, status=403) == {
        "code": "separation_of_duties",
        "detail": "You recorded a step of this coup: a pit boss who recorded none voids it.",
    }
    Api(pit_boss).ok(Api(pit_boss).post(f"/game-coups/{coup['id']}/void/", {"reason": "misdeal"}), 200)
    assert refuse(api, path, {"kind": "deal", "card": "8H", "expected_steps": 1}, status=409) == {
        "code": "coup_conflict",
        "detail": "Coup 1 is over (Void).",
        "current_step": 1,
    }
    assert (
        Api(croupier).post("/game-coups/999999/steps/", {"kind": "stand", "expected_steps": 0}).status_code
        == 404
    )


def test_a_replayed_step_is_recorded_once(game_table, croupier, pit_boss) -> None:
    macao, _session, _players = game_table("macao", players=2)
    api = Api(croupier)
    coup = start(api, macao)
    path = f"/game-coups/{coup['id']}/steps/"
    first = api.post(path, {"kind": "deal", "card": "9H", "expected_steps": 0}, key="tablet-1")
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    after = snapshot()
    again = api.post(path, {"expected_steps": 0, "card": "9H", "kind": "deal"}, key="tablet-1")
    assert (again.status_code, again.json(), again["Idempotent-Replayed"]) == (201, first.json(), "true")
    assert snapshot() == after
    assert list(GameStep.objects.filter(coup_id=coup["id"]).values_list("idempotency_key", flat=True)) == [
        "tablet-1"
    ]
    assert (
        refuse(api, path, {"kind": "deal", "card": "8H", "expected_steps": 1}, key="tablet-1", status=422)[
            "code"
        ]
        == "idempotency_key_reused"
    )
    assert (
        refuse(api, path, {"kind": "deal", "card": "8H", "expected_steps": 1}, key="", status=400)["code"]
        == "invalid"
    )
    # a replayed start starts no second coup
    boss = Api(pit_boss)
    boss.ok(boss.post(f"/game-coups/{coup['id']}/void/", {"reason": "test"}, key="void-1"), 200)
    started = api.post(f"/tables/{macao.pk}/game-coups/", {}, key="start-2")
    after = snapshot()
    assert api.post(f"/tables/{macao.pk}/game-coups/", {}, key="start-2").json() == started.json()
    assert snapshot() == after


# ---------------------------------------------------------------------------- permissions
def test_who_may_do_what(game_table, croupier, pit_boss, accountant, outsider) -> None:
    lands, session, _players = game_table("landsknecht", players=2)
    stranger = UserFactory(username="stranger", roles=["croupier"])
    CroupierAssignmentFactory(user=stranger, table=game_table("macao", players=0)[0])
    api = Api(croupier)
    coup_path = f"/tables/{lands.pk}/game-coups/"
    for user in (pit_boss, accountant, outsider, stranger):
        assert (
            refuse(Api(user), f"/sessions/{session.pk}/fund-dues/", status=403)["code"] == "permission_denied"
        )
    api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
    for user in (pit_boss, accountant, outsider, stranger):
        assert refuse(Api(user), coup_path, status=403)["code"] == "permission_denied"
    coup = start(api, lands)
    step = {"kind": "stake", "amount": 10, "expected_steps": 0}
    for user in (pit_boss, accountant, outsider, stranger):
        assert refuse(Api(user), f"/game-coups/{coup['id']}/steps/", step, status=403) == {
            "code": "permission_denied",
            "detail": "Only the croupier assigned to this table for the current shift may do this.",
        }
    # reading: the croupier of the table, pit bosses and accountants
    for user in (croupier, pit_boss, accountant):
        reader = Api(user)
        assert reader.ok(reader.get(f"/game-coups/{coup['id']}/"), 200)["id"] == coup["id"]
        assert reader.ok(reader.get(f"/tables/{lands.pk}/game/"), 200)["open_coup"] == coup["id"]
    for user in (outsider, stranger):
        assert Api(user).get(f"/game-coups/{coup['id']}/").status_code == 403
        assert Api(user).get(f"/tables/{lands.pk}/game/").status_code == 403
    assert Api().get(f"/game-coups/{coup['id']}/").status_code == 401
    huge = 2**70  # beyond any id: not found, never a database error
    for path in ("/game-coups/999999/", f"/game-coups/{huge}/", f"/tables/{huge}/game/"):
        assert problem_body(Api(pit_boss).get(path))["code"] == "not_found"
    for path in (f"/game-coups/{huge}/steps/", f"/game-coups/{huge}/void/", f"/sessions/{huge}/fund-dues/"):
        assert refuse(api, path, {}, status=404)["code"] == "not_found"
    # voiding: the croupier of the table or a pit boss, with a reason
    void = f"/game-coups/{coup['id']}/void/"
    for user in (accountant, stranger):
        assert refuse(Api(user), void, {"reason": "no"}, status=403) == {
            "code": "permission_denied",
            "detail": "Only the table's croupier or a pit boss may void a coup.",
        }
    # one who works for no casino is refused before anything of the coup is looked at
    assert refuse(Api(outsider), void, {"reason": "no"}, status=403) == {
        "code": "permission_denied",
        "detail": "You do not work for this casino.",
    }
    boss = Api(pit_boss)
    assert field_errors(refuse(boss, void, {}, status=400)) == {"reason": ["This field is required."]}
    assert field_errors(refuse(boss, void, {"reason": "   "}, status=400)) == {
        "reason": ["This field may not be blank."]
    }
    voided = boss.ok(boss.post(void, {"reason": "a player was called away"}), 200)
    assert (voided["state"], voided["void_reason"], voided["next_steps"]) == (
        "void",
        "a player was called away",
        [],
    )
    assert refuse(api, void, {"reason": "again"}, status=409)["detail"] == "Coup 1 is over (Void)."
    conforms(voided, s.GameCoupOut())


# ------------------------------------------------------------------------- never a 500
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
WORDS = st.sampled_from(
    ["deal", "draw", "discard", "stand", "stake", "cover", "close", "card", "decide", "cut", "9H", "10d",
     "take", "again", "player-1", "fund", "pool", ""]
)  # fmt: skip
FIELDS = st.sampled_from(["kind", "player", "card", "amount", "decision", "expected_steps", "step"])
BODIES = JSON | st.dictionaries(FIELDS, JSON | WORDS | st.integers(0, 3), max_size=6)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["macao", "landsknecht", "old-baccarat"])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_body_is_a_server_error(game_table, croupier, game: str, data: st.DataObject) -> None:
    table, session, _players = game_table(game, players=2)
    api = Api(croupier)
    if game == "landsknecht":
        api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
    coup = start(api, table)
    for path in (f"/game-coups/{coup['id']}/steps/", f"/game-coups/{coup['id']}/void/"):
        body = data.draw(BODIES, label="body")
        before = snapshot()
        response = api.post(path, body)
        assert response.status_code in (200, 201, 400, 409), (response.status_code, body, response.content)
        if response.status_code >= 400:
            problem_body(response)
            assert snapshot() == before
    for path in (f"/tables/{table.pk}/game-coups/", f"/sessions/{session.pk}/fund-dues/"):
        response = api.post(path, data.draw(BODIES, label="body"))
        assert response.status_code in (201, 400, 409), (response.status_code, response.content)


def test_landsknecht_the_table_says_what_the_close_gives_back_and_the_close_posts_it(
    game_table, croupier
) -> None:
    table, session, players = game_table("landsknecht", players=2)
    a, b = players
    api = Api(croupier)
    assert api.ok(api.get(f"/tables/{table.pk}/game/"), 200)["fund_return"] == []
    api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
    view = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
    assert view["fund_return"] == [{**party(a), "amount": 10}, {**party(b), "amount": 10}]
    conforms(view, s.GameTableOut())
    api.ok(api.post(f"/tables/{table.pk}/session/close/", {"reason": "end of play"}), 200)
    assert chips(table, players) == [1000, 1000] and fund_balance(table) == 0
    after = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
    assert (after["session"], after["fund"], after["fund_return"]) == (None, 0, [])
