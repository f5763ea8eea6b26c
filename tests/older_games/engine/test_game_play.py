"""The uniform face of the older games (older_games.engine.game_play): coups played only through
``options`` and ``step`` agree with the offline judge, settle to zero, never see a card more often
than the decks hold, and always have a next step until they are over."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from older_games.engine.game_play import (
    FUND,
    PLAYS,
    POOL,
    HandScore,
    Seating,
    StepRefused,
    play_for,
    settle_check,
)

HOUSES: dict[str, list[dict[str, Any]]] = {
    "macao": [{}, {"unit": 25}, {"count": "modulo"}, {"max_cards": 3}, {"banker_collects": "one"},
              {"discard_zeros": False}, {"banker_draws": False}, {"decks": 1}],
    "landsknecht": [{}, {"doublet": "standoff"}, {"fund_backs_uncovered": False}, {"decks": 1},
                    {"min_stake": 5, "fund_due": 0}],
    "old-baccarat": [{}, {"tie_rule": "pool"}, {"banker_match": "double"},
                     {"natural_stops_all_draws": False}, {"decks": 1, "tie_rule": "pool"}],
}  # fmt: skip


def _payload(option: Any, draw: st.DrawFn, newcomer: str = "newcomer") -> dict[str, Any]:
    payload: dict[str, Any] = {"kind": option.kind}
    if option.player is not None:
        payload["player"] = option.player
    elif option.newcomer:  # a player seated since the coup began: the floor names one, here a new name
        payload["player"] = newcomer
    if option.cards:
        payload["card"] = draw(st.sampled_from(option.cards))
    if option.amounts:
        payload["amount"] = draw(st.sampled_from(option.amounts))
    if option.choices:
        payload["decision"] = draw(st.sampled_from(option.choices))
    return payload


@st.composite
def played(draw: st.DrawFn) -> tuple[str, dict[str, Any], Seating, list[dict[str, Any]], Any]:
    slug = draw(st.sampled_from(sorted(PLAYS)))
    house = draw(st.sampled_from(HOUSES[slug]))
    play = play_for(slug)
    names = [f"player-{i}" for i in range(1, draw(st.integers(2, 6)) + 1)]
    fund = draw(st.integers(0, 200)) if slug == "landsknecht" else 0
    seating = Seating(names[0], tuple(names[1:]), fund=fund)
    settings_ = play.settings(house)
    state = play.begin(settings_, seating)
    steps: list[dict[str, Any]] = []
    for _ in range(400):
        options = play.options(state)
        if not options:
            break
        payload = _payload(draw(st.sampled_from(options)), draw, newcomer=f"newcomer-{len(steps)}")
        state = play.step(state, payload)
        steps.append(payload)
    return slug, house, seating, steps, state


@settings(max_examples=300, deadline=None)
@given(played())
def test_a_coup_played_by_its_options_ends_judged_clean_and_zero_sum(case: Any) -> None:
    slug, house, seating, steps, state = case
    play = play_for(slug)
    assert play.options(state) == (), "a coup of 400 steps never ended"
    assert play.finished(state)
    transfers = play.transfers(state)
    net = settle_check(transfers)
    assert sum(net.values()) == 0
    assert net.get(POOL, 0) == 0  # the pool is empty again after every coup
    if FUND in net:
        assert slug == "landsknecht" and net[FUND] >= -seating.fund
    settings_ = play.settings(house)
    verdict = play.verdict(settings_, play.record(state))
    assert verdict["violations"] == []
    judged = (verdict["settlement"] or {"transfers": []})["transfers"]
    assert [(t["payer"], t["payee"], t["amount"]) for t in judged] == [
        (t.payer, t.payee, t.amount) for t in transfers
    ]
    seen = Counter(play.cards(state))
    assert max(seen.values(), default=0) <= play.decks(settings_)
    # nobody loses more than the exposure the floor checked his chips against
    exposure = play.exposure(state)
    for party, amount in net.items():
        if party not in (FUND, POOL) and amount < 0:
            assert -amount <= exposure[party]
    # the replay of the recorded steps is the same coup
    assert play.replay(settings_, seating, steps) == state


@pytest.mark.parametrize("slug", sorted(PLAYS))
@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"kind": None},
        {"kind": "teleport"},
        {"kind": "card", "card": "1X"},
        {"kind": "card", "card": 9},
        {"kind": "deal", "card": None},
        {"kind": "stake", "amount": True},
        {"kind": "stake", "amount": 10.0},
        {"kind": "stake", "amount": -5},
        {"kind": "stake", "amount": "10"},
        {"kind": "cover", "player": None, "amount": 5},
        {"kind": "decide", "decision": "maybe"},
        {"kind": "stand", "player": ["x"]},
    ],
)
def test_a_malformed_step_is_refused_with_a_reason(slug: str, payload: dict[str, Any]) -> None:
    play = play_for(slug)
    state = play.begin(play.settings({}), Seating("player-1", ("player-2", "player-3"), fund=30))
    with pytest.raises(StepRefused) as refused:
        play.step(state, payload)
    assert str(refused.value)


@pytest.mark.parametrize(
    ("slug", "house", "message"),
    [
        ("macao", {"unit": 0}, "unit"),
        ("macao", {"count": "sideways"}, "count"),
        ("macao", {"colour": "red"}, "unknown house setting"),
        ("landsknecht", {"min_stake": "10"}, "whole number"),
        ("landsknecht", {"doublet": "punters"}, "doublet"),
        ("old-baccarat", {"decks": 9}, "1 to 8 decks"),
        ("old-baccarat", {"natural_stops_all_draws": 1}, "true or false"),
    ],
)
def test_bad_house_settings_are_refused(slug: str, house: dict[str, Any], message: str) -> None:
    with pytest.raises(StepRefused, match=message):
        play_for(slug).settings(house)


def test_house_settings_round_trip() -> None:
    for slug, houses in HOUSES.items():
        play = play_for(slug)
        for house in houses:
            settings_ = play.settings(house)
            assert play.settings(play.settings_dict(settings_)) == settings_


def test_an_unknown_game_is_named() -> None:
    with pytest.raises(StepRefused, match="unknown game 'faro'"):
        play_for("faro")


def test_next_seating_follows_each_game() -> None:
    seated = ["player-1", "player-2", "player-3"]
    macao = play_for("macao")
    state = macao.begin(macao.settings({}), Seating("player-2", ("player-3", "player-1")))
    for card in ("9H", "8S", "5D"):
        state = macao.step(state, {"kind": "deal", "card": card})
    for _ in range(3):
        state = macao.step(state, {"kind": "stand"})
    # "then the bank passes to the player on the banker's left"
    assert macao.next_seating(state, seated) == Seating("player-3", ("player-1", "player-2"))
    assert macao.outcome(state) == "punters"
    assert settle_check(macao.transfers(state)) == {"player-3": 30, "player-1": 20, "player-2": -50}


# ------------------------------------------------------------------ what decides each hand (the screen)
def _after(slug: str, house: dict[str, Any], seating: Seating, steps: list[Any]) -> Any:
    play = play_for(slug)
    return play.scores(play.replay(play.settings(house), seating, steps))


MACAO_DEAL = [{"kind": "deal", "card": c} for c in ("9H", "TD", "4S", "3C")]


def test_a_macao_hand_scores_its_points_and_over_9_under_the_bust_count() -> None:
    seating = Seating("b", ("p1", "p2", "p3"))  # the deal: p1, p2, p3, then the banker
    steps = [*MACAO_DEAL, {"kind": "draw", "card": "5D"}]  # p1: 9 and 5, over 9
    assert _after("macao", {}, seating, steps) == {
        "p1": HandScore(points=None, over=True),
        "p2": HandScore(points=0),
        "p3": HandScore(points=4),
        "b": HandScore(points=3),
    }
    # the house that counts the last digit, as baccarat does: 14 is 4
    assert _after("macao", {"count": "modulo"}, seating, steps)["p1"] == HandScore(points=4)


def test_a_macao_hand_not_dealt_yet_has_no_score() -> None:
    assert _after("macao", {}, Seating("b", ("p1", "p2")), MACAO_DEAL[:2]) == {
        "p1": HandScore(points=9),
        "p2": HandScore(points=0),
    }


def test_a_landsknecht_side_scores_the_rank_that_wins_for_it() -> None:
    seating = Seating("b", ("p1", "p2"))
    steps = [
        {"kind": "stake", "amount": 10},
        {"kind": "cover", "player": "p1", "amount": 10},
        {"kind": "close"},
    ]
    assert _after("landsknecht", {}, seating, steps) == {}
    turned = [*steps, *({"kind": "card", "card": c} for c in ("KS", "TH", "3D"))]
    # the banker's king, the punters' ten; the 3 between decides nothing
    assert _after("landsknecht", {}, seating, turned) == {
        "b": HandScore(rank="K"),
        "punters": HandScore(rank="T"),
    }


def test_an_old_baccarat_hand_scores_the_last_digit_of_its_count() -> None:
    seating = Seating("b", ("p1", "p2", "p3"))
    steps = [
        *({"kind": "stake", "player": p, "amount": 10} for p in ("p1", "p2", "p3")),
        {"kind": "cut", "player": "p1"},
        # dealt p1, p2, p3, the banker, then back: p3, p2, p1, the banker
        *({"kind": "card", "card": c} for c in ("2H", "4D", "6C", "5S", "KD", "TC", "3S", "AH")),
    ]
    assert _after("old-baccarat", {}, seating, steps) == {
        "p1": HandScore(points=5),  # 2 and 3
        "p2": HandScore(points=4, count=14),  # 4 and a ten, which counts 10
        "p3": HandScore(points=6, count=16),  # 6 and a king
        "b": HandScore(points=6),  # 5 and an ace
    }
    buying = [*steps, {"kind": "draw", "player": "p3"}, {"kind": "card", "card": "9D"}]
    assert _after("old-baccarat", {}, seating, buying)["p3"] == HandScore(points=5, count=25)


def test_old_baccarat_offers_a_newcomer_s_stake_the_banker_s_permission_and_leaving() -> None:
    """RULES.md §11: before the cut a newcomer stakes as anyone; after it he joins only with the
    banker's permission, recorded first; a punter may leave at any moment, his hand then stands."""
    play = play_for("old-baccarat")
    settings_ = play.settings({})
    seating = Seating("b", ("p1", "p2"))

    def offered(steps: list[dict[str, Any]]) -> list[tuple[str, str | None, bool]]:
        state = play.replay(settings_, seating, steps)
        return [(o.kind, o.player, o.newcomer) for o in play.options(state)]

    assert offered([]) == [("stake", "p1", False), ("stake", "p2", False), ("stake", None, True)]
    staked: list[dict[str, Any]] = [
        {"kind": "stake", "player": "p1", "amount": 10},
        {"kind": "stake", "player": "n1", "amount": 10},
    ]
    assert offered(staked)[-3:] == [("cut", "n1", False), ("leave", "p1", False), ("leave", "n1", False)]
    cut: list[dict[str, Any]] = [*staked, {"kind": "cut", "player": "p1"}]
    assert offered(cut) == [
        ("card", "p1", False),
        ("permit", None, True),
        ("leave", "p1", False),
        ("leave", "n1", False),
    ]
    with pytest.raises(StepRefused, match="only with the banker's permission"):
        play.replay(settings_, seating, [*cut, {"kind": "stake", "player": "p2", "amount": 10}])
    let_in: list[dict[str, Any]] = [*cut, {"kind": "permit", "player": "p2"}]
    assert ("stake", "p2", False) in offered(let_in)
    joined: list[dict[str, Any]] = [*let_in, {"kind": "stake", "player": "p2", "amount": 20}]
    # three punters now, in seat order whatever order they staked in: the seating's p1 and p2 from
    # the banker's left, then the newcomer n1 (the seating says nothing of his seat); the deal
    # goes p1, p2, n1, the banker, then n1, p2, p1, the banker; nobody joins once a card is out
    dealt: list[dict[str, Any]] = [*joined, {"kind": "card", "card": "2H"}]
    assert [k for k, _p, _n in offered(dealt)] == ["card", "leave", "leave", "leave"]
    assert offered(dealt)[0] == ("card", "p2", False)
    cards = ("3H", "4H", "5S", "2S", "2D", "3D", "2C")  # p1 5, p2 5, n1 6, the banker 7
    bought: list[dict[str, Any]] = [
        *dealt,
        *({"kind": "card", "card": c} for c in cards),
        {"kind": "leave", "player": "n1"},
    ]
    # n1 (the banker's right) is first to buy, but he left: his hand stands
    assert offered(bought)[0] == ("stand", "n1", False)
    with pytest.raises(StepRefused, match="has left the table"):
        play.replay(settings_, seating, [*bought, {"kind": "draw", "player": "n1"}])
