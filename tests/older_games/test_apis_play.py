"""Whole coups of each older game played through the REST API by following ``next_steps`` only
(an option picked, then a card, an amount or a decision among those it offers), seeded and as a
Hypothesis property. After every coup: its ledger postings sum to zero, the players' chips and the
reserve fund moved by the coup's ``net``, the offline judge (``play_for(game).verdict``) finds no
violation in its record and settles it as it was posted, and no card was seen more often than the
house's decks hold."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ledger.models import Account, Entry, Transaction
from ledger.selectors import player_available
from older_games.engine.game_play import FUND, POOL, play_for
from older_games.services import fund_balance, player_key
from tests.tables.api.conftest import Api

pytestmark = pytest.mark.django_db

GAMES = ["macao", "landsknecht", "old-baccarat"]
#: every coup ends well before this many steps (a Macao hand of many small cards is the longest)
MOST_STEPS = 200
#: what each player brings: enough that no stake the options offer is ever beyond his chips
CHIPS = 1_000_000

T = TypeVar("T")

#: the house settings a table of each game may have (docs/games/): every choice the house makes
HOUSE_SETTINGS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "macao": st.fixed_dictionaries(
        {
            "unit": st.sampled_from([1, 10, 25]),
            "decks": st.integers(1, 3),
            "count": st.sampled_from(["bust", "modulo"]),
            "max_cards": st.integers(1, 4),
            "discard_zeros": st.booleans(),
            "banker_collects": st.sampled_from(["scale", "one"]),
            "banker_draws": st.booleans(),
        }
    ),
    "landsknecht": st.fixed_dictionaries(
        {
            "decks": st.integers(1, 3),
            "min_stake": st.sampled_from([1, 10]),
            "fund_due": st.sampled_from([0, 10, 25]),
            "doublet": st.sampled_from(["banker", "standoff"]),
            "after_take": st.sampled_from(["same-or-minimum", "any"]),
            "again_stake": st.sampled_from(["any", "whole-pot"]),
            "fund_backs_uncovered": st.booleans(),
        }
    ),
    "old-baccarat": st.fixed_dictionaries(
        {
            "decks": st.integers(1, 3),
            "tie_rule": st.sampled_from(["banker_wins", "pool"]),
            "banker_match": st.sampled_from(["even", "double"]),
            "natural_stops_all_draws": st.booleans(),
            "min_stake": st.sampled_from([1, 10]),
        }
    ),
}


class Chooser:
    """Where the choices come from: a seeded ``random.Random`` or Hypothesis's ``data.draw``."""

    def __init__(self, pick: Callable[[Sequence[Any]], Any], between: Callable[[int, int], int]) -> None:
        self.pick = pick
        self.between = between

    @classmethod
    def seeded(cls, seed: int) -> Chooser:
        rng = random.Random(seed)
        return cls(rng.choice, rng.randint)

    @classmethod
    def drawn(cls, data: st.DataObject) -> Chooser:
        return cls(
            lambda seq: data.draw(st.sampled_from(list(seq))),
            lambda lo, hi: data.draw(st.integers(lo, hi)),
        )

    def amount(self, option: dict[str, Any]) -> int:
        """One of the usual amounts, or any in the option's legal range (up to 10 minimums); only
        a listed one when the option gives no range."""
        low = option["min_amount"]
        if low is None:
            return int(self.pick(option["amounts"]))
        high = option["max_amount"] if option["max_amount"] is not None else 10 * low
        return int(self.pick([*option["amounts"], self.between(low, max(low, high))]))


def next_step(option: dict[str, Any], chooser: Chooser) -> dict[str, Any]:
    """The step an option says to send: its ``step``, a value for each name in its ``choose``."""
    step = dict(option["step"])
    for name in option["choose"]:
        if name == "card":
            step["card"] = chooser.pick(option["cards"])
        elif name == "amount":
            step["amount"] = chooser.amount(option)
        else:
            assert name == "decision", option
            step["decision"] = chooser.pick(option["choices"])
    return step


def follow(api: Api, coup: dict[str, Any], chooser: Chooser) -> dict[str, Any]:
    """Play the coup to its end by its ``next_steps`` alone: every step offered is accepted."""
    while coup["next_steps"]:
        assert coup["state"] == "open" and len(coup["steps"]) < MOST_STEPS, coup["steps"]
        step = next_step(chooser.pick(coup["next_steps"]), chooser)
        coup = api.ok(
            api.post(f"/game-coups/{coup['id']}/steps/", {**step, "expected_steps": coup["step_count"]})
        )
    return coup


def holdings(table: Any, players: list[Any]) -> dict[str, int]:
    out = {player_key(p): player_available(casino=table.casino, player=p) for p in players}
    out[FUND] = fund_balance(table)
    return out


def assert_coup_sound(table: Any, players: list[Any], before: dict[str, int], coup: dict[str, Any]) -> None:
    """The properties every settled coup keeps (the module's docstring)."""
    assert coup["state"] == "settled" and coup["next_steps"] == [] and coup["outcome"]
    net: dict[str, int] = coup["net"]
    assert sum(net.values()) == 0
    # the postings: each sums to zero; by party they are the coup's net (the pool's cancel out)
    txns = Transaction.objects.filter(game_coup_id=coup["id"])
    assert sorted(t["id"] for t in coup["postings"]) == sorted(txns.values_list("pk", flat=True))
    posted: Counter[str] = Counter()
    for txn in txns:
        entries = list(Entry.objects.filter(transaction=txn).select_related("account"))
        assert sum(e.amount for e in entries) == 0, txn
        for e in entries:
            owner = e.account.player_id
            party = player_key(owner) if e.account.kind == Account.Kind.PLAYER and owner else e.account.kind
            posted[party] += e.amount
    assert {k: v for k, v in posted.items() if v} == net
    assert posted[POOL] == 0
    # the players' chips and the fund moved by the net, nothing else
    after = holdings(table, players)
    assert {k: after[k] - before[k] for k in after if after[k] != before[k]} == {
        k: v for k, v in net.items() if k != POOL
    }
    # the offline judge: no violation, the same settlement
    play = play_for(coup["game"])
    house = play.settings(coup["house_settings"])
    verdict = play.verdict(house, coup["record"])
    assert verdict["violations"] == [], verdict
    judged: Counter[str] = Counter()
    for t in verdict["settlement"]["transfers"]:
        judged[t["payer"]] -= t["amount"]
        judged[t["payee"]] += t["amount"]
    assert {k: v for k, v in judged.items() if v} == net
    # no card more often than the decks hold
    decks = play.decks(house)
    assert max(Counter(coup["cards"]).values(), default=0) <= decks, coup["cards"]


def come_back(api: Api, table: Any, players: list[Any], coup: dict[str, Any]) -> None:
    """Who left the table during the coup (old baccarat's ``leave``) gave up his seat when it
    ended, and only he: he sits down again, so the table keeps its players."""
    left = {
        s["payload"]["player"] for s in coup["steps"] if s["payload"]["kind"] == "leave" and not s["undone"]
    }
    seats = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)["seats"]
    assert {s["key"] for s in seats} == {player_key(p) for p in players} - left
    free = iter(n for n in range(1, 13) if n not in {s["seat"] for s in seats})
    for player in players:
        if player_key(player) in left:
            api.ok(api.post(f"/tables/{table.pk}/seats/", {"player": player.pk, "number": next(free)}))


def play_coups(
    game_table: Any,
    croupier: Any,
    game: str,
    chooser: Chooser,
    coups: int,
    house: dict[str, Any] | None = None,
) -> list[str]:
    """``coups`` coups at a new table of ``game`` (with the ``house`` settings, else the tests'),
    each started as proposed and followed by its ``next_steps``, each checked; their outcomes."""
    table, session, players = game_table(game, players=chooser.pick([2, 3, 4]), chips=CHIPS, settings=house)
    api = Api(croupier)
    if game == "landsknecht":
        view = api.ok(api.post(f"/sessions/{session.pk}/fund-dues/"))
        due = table.game_settings["fund_due"]
        assert view["unpaid_dues"] == [] and view["fund"] == due * len(players)
    outcomes = []
    for _ in range(coups):
        view = api.ok(api.get(f"/tables/{table.pk}/game/"), 200)
        assert view["blocked"] == "" and view["open_coup"] is None, view
        before = holdings(table, players)
        coup = api.ok(api.post(f"/tables/{table.pk}/game-coups/"))
        assert coup["banker"] == view["proposed_banker"]
        assert coup["punters"] == view["proposed_punters"]
        coup = follow(api, coup, chooser)
        assert_coup_sound(table, players, before, coup)
        assert api.ok(api.get(f"/game-coups/{coup['id']}/"), 200) == coup
        outcomes.append(coup["outcome"])
        come_back(api, table, players, coup)
    return outcomes


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_whole_coups_by_next_steps_alone(game_table, croupier, game: str, seed: int) -> None:
    outcomes = play_coups(game_table, croupier, game, Chooser.seeded(seed), coups=4)
    assert len(outcomes) == 4


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_coups_by_next_steps_are_sound(game_table, croupier, game: str, data: st.DataObject) -> None:
    house = data.draw(HOUSE_SETTINGS[game], label="house settings")
    chooser = Chooser.drawn(data)
    for outcome in play_coups(game_table, croupier, game, chooser, data.draw(st.integers(1, 2)), house):
        event(f"outcome: {outcome}")
