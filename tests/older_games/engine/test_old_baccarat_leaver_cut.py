"""Old baccarat: a punter who left the table does not cut (older_games/engine/old_baccarat.py).

The cut is a punter's at the table ("банкомёт обязан дать одному из играющих снять колоду",
docs/games/old_baccarat.md): the machine refused nothing of the kind, and ``next_moves`` offered the
cut to a punter who had left. Now a departed punter's cut is refused with a sentence (nothing
applied) and not offered, while a punter still at the table can cut. Every state before the end
keeps a legal move: when every punter who staked has left, their stakes are still in play and the
cut stays open to them. Each test failed before its fix (but the last, a property that held and
must go on holding)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from older_games.engine import game_play
from older_games.engine.game_play import Seating, StepRefused
from older_games.engine.old_baccarat import (
    HouseSettings,
    IllegalMove,
    Kind,
    Move,
    Phase,
    State,
    apply,
    judge,
    max_punters,
    next_moves,
    start,
    to_record,
)

DEFAULT = HouseSettings()
LEFT_CUTS = "A has left the table: a punter still at the table cuts"


def _play(state: State, *moves: Move) -> State:
    for move in moves:
        state = apply(state, move)
    return state


def _offered(state: State) -> list[tuple[Kind, str | None]]:
    return [(o.kind, o.player) for o in next_moves(state)]


def _audits_table() -> State:
    # the audit's table: stake A 10, stake B 5, A leaves
    return _play(
        start(DEFAULT, "bk", ("A", "B")),
        Move(Kind.STAKE, "A", 10),
        Move(Kind.STAKE, "B", 5),
        Move(Kind.LEAVE, "A"),
    )


def test_a_punter_who_left_is_refused_the_cut_and_nothing_changes() -> None:
    state = _audits_table()
    before = state
    with pytest.raises(IllegalMove) as refused:
        apply(state, Move(Kind.CUT, "A"))
    assert str(refused.value) == LEFT_CUTS
    assert state == before and state.phase is Phase.STAKING and state.cut_by is None


def test_a_punter_who_left_is_not_offered_the_cut() -> None:
    state = _audits_table()
    assert _offered(state) == [(Kind.STAKE, None), (Kind.CUT, "B"), (Kind.LEAVE, "B")]
    # a newcomer who stakes may cut; the leaver still may not
    state = apply(state, Move(Kind.STAKE, "C", 5))
    assert _offered(state) == [
        (Kind.STAKE, None),
        (Kind.CUT, "B"),
        (Kind.CUT, "C"),
        (Kind.LEAVE, "B"),
        (Kind.LEAVE, "C"),
    ]


def test_the_punter_at_the_table_cuts_and_the_coup_is_judged_clean() -> None:
    # the live coup the audit's table plays: B cuts, A's stake stays in play and his hand stands
    state = apply(_audits_table(), Move(Kind.CUT, "B"))
    state = _play(state, *(Move(Kind.CARD, card=c) for c in ("3S", "2H", "2D", "3H", "4S", "4D")))
    assert _offered(state) == [(Kind.DRAW, "B"), (Kind.STAND, "B"), (Kind.LEAVE, "B")]  # A left already
    state = _play(state, Move(Kind.STAND, "B"), Move(Kind.STAND, "A"), Move(Kind.STAND, "bk"))
    verdict = judge(to_record(state))
    assert verdict.violations == ()
    assert verdict.settlement is not None
    assert verdict.settlement.net() == {"A": 10, "B": -5, "bk": -5}  # A 7 beats 6, B 5 loses


def test_when_every_punter_who_staked_has_left_the_cut_stays_open_to_them() -> None:
    state = apply(_audits_table(), Move(Kind.LEAVE, "B"))
    assert _offered(state) == [(Kind.STAKE, None), (Kind.CUT, "A"), (Kind.CUT, "B")]
    assert apply(state, Move(Kind.CUT, "A")).cut_by == "A"
    assert apply(state, Move(Kind.CUT, "B")).cut_by == "B"
    # a newcomer who stakes then is at the table: the cut is his
    state = apply(state, Move(Kind.STAKE, "C", 5))
    assert _offered(state) == [(Kind.STAKE, None), (Kind.CUT, "C"), (Kind.LEAVE, "C")]
    with pytest.raises(IllegalMove, match=LEFT_CUTS):
        apply(state, Move(Kind.CUT, "A"))


def test_a_full_table_whose_punters_all_left_still_has_the_cut() -> None:
    # no room for a newcomer's stake: the cut by one of them is the only way on
    house = HouseSettings(decks=1)
    names = [f"p{i}" for i in range(max_punters(house.decks))]
    state = start(house, "bk", names)
    state = _play(state, *(Move(Kind.STAKE, p, 1) for p in names), *(Move(Kind.LEAVE, p) for p in names))
    assert _offered(state) == [(Kind.CUT, p) for p in names]
    assert apply(state, Move(Kind.CUT, "p3")).phase is Phase.DEALING


def test_the_floor_refuses_the_leavers_cut_and_does_not_offer_it() -> None:
    play = game_play.OldBaccaratPlay()
    state = play.begin(DEFAULT, Seating("bk", ("A", "B")))
    for payload in (
        {"kind": "stake", "player": "A", "amount": 10},
        {"kind": "stake", "player": "B", "amount": 5},
        {"kind": "leave", "player": "A"},
    ):
        state = play.step(state, payload)
    assert [(o.kind, o.player) for o in play.options(state) if o.kind == "cut"] == [("cut", "B")]
    with pytest.raises(StepRefused, match=LEFT_CUTS):
        play.step(state, {"kind": "cut", "player": "A"})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(data=st.data(), n=st.integers(1, 4))
def test_every_state_before_the_end_has_a_legal_move_and_every_offered_cut_is_legal(
    data: st.DataObject, n: int
) -> None:
    names = [f"p{i}" for i in range(n)]
    state = start(DEFAULT, "bk", names)
    steps = 0
    while state.phase is not Phase.DONE:
        options = next_moves(state)
        assert options, f"no legal move in {state.phase}"
        cuts = [o.player for o in options if o.kind is Kind.CUT]
        staying = [p.player for p in state.punters if p.player not in state.left]
        if state.phase is Phase.STAKING and state.punters:
            # the cut is offered to those at the table, or to every staker when none is left there
            assert cuts == (staying or [p.player for p in state.punters])
        unstaked = [p for p in names if p not in {s.player for s in state.punters}]
        choices = [o for o in options if unstaked or o.kind is not Kind.STAKE or o.player]
        option = data.draw(st.sampled_from(choices))
        if option.kind is Kind.STAKE and option.player is None:
            move = Move(Kind.STAKE, data.draw(st.sampled_from(unstaked)), 5)
        elif option.kind is Kind.CARD:
            move = Move(Kind.CARD, card=data.draw(st.sampled_from(option.cards)))
        elif option.kind is Kind.PERMIT:
            move = Move(Kind.PERMIT, f"late{len(state.permitted)}")
        elif option.kind is Kind.STAKE:
            move = Move(Kind.STAKE, option.player, 5)
        else:
            move = Move(option.kind, option.player)
        state = apply(state, move)
        steps += 1
        assert steps < 200
    assert judge(to_record(state)).violations == ()
