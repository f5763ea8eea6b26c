"""Acceptance of the money-flow detector on simulated nights (bench/flowsim.py, docs/flows.md):
a colluding pair is flagged, honest play from the engine's own advice is not. Pure: the engine
deals and settles, the detector weighs; no database."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench.flowsim import play_night
from chemin_de_fer.engine.choices import option_points
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import Move, Step, apply, new_coup
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.punters import seat_key
from tables.flows import Limits, collusion_findings, pair_evidence, pair_flows

DEFAULT = Limits(flow=10_000, z=Fraction(4))


def test_a_colluding_pair_among_honest_play_is_flagged() -> None:
    # 400 coups: every other one the partner (1) banks and the launderer (2) plays the hand
    # against him, 200 coups, taking the worse choice at each of his option points
    night = play_night(coups=400, seed=4, pair=(1, 2))
    assert night.coups == 400
    found = collusion_findings(night.duels, night.choices, DEFAULT)
    assert [(f.winner, f.loser, f.flow, f.reasons) for f in found] == [(1, 2, 14_657, ("given_up",))]
    spread = found[0].spread
    assert (spread.points, spread.wrong) == (20, 20)
    assert spread.z is not None and spread.z > 10
    assert len(found[0].coups) == 225  # their 200 arranged coups and 25 of the rotation


@pytest.mark.parametrize("seed", range(1, 11))
def test_the_launderers_play_is_beyond_chance_whichever_way_the_cards_fell(seed: int) -> None:
    """The flow is the cards' (it may even run back to the launderer); his choices are his."""
    night = play_night(coups=400, seed=seed, pair=(1, 2))
    _, spread, _ = pair_evidence(night.duels, night.choices, winner=1, loser=2)
    assert spread.points >= 10
    assert spread.beyond(DEFAULT.z, DEFAULT.min_points)


def test_two_thousand_honest_coups_raise_no_flow_alert() -> None:
    night = play_night(coups=2_000, seed=3)
    assert night.coups == 2_000
    flows = pair_flows(night.duels)
    assert max(flows.values()) > 5_000  # money did pass between players
    assert collusion_findings(night.duels, night.choices, DEFAULT) == []
    # even with no threshold on the flow: nobody's play is beyond chance
    assert collusion_findings(night.duels, night.choices, Limits(flow=0)) == []


def test_the_option_points_of_a_replayed_coup_are_the_advices() -> None:
    """A player on 5 (his option) stands, the banker on 3 draws against a 9 (casino: option)."""
    rules = Rules.for_profile(BUILTIN["casino"])
    start = apply(new_coup(rules), Step(Move.BANK_DECLARED, amount=100, punter=seat_key(1)))
    steps = [
        Step(Move.BET, punter=seat_key(2), amount=100),
        Step(Move.BETS_CLOSED),
        Step(Move.CARD_TO_PLAYER, card="2H"),
        Step(Move.CARD_TO_BANKER, card="KS"),
        Step(Move.CARD_TO_PLAYER, card="3D"),
        Step(Move.CARD_TO_BANKER, card="3C"),
        Step(Move.PLAYER_DRAW),
        Step(Move.CARD_TO_PLAYER, card="9C"),
        Step(Move.BANKER_STAND),
        Step(Move.REVEAL),
    ]
    points = option_points(start, steps, seen_before=(), decks=6, levy_bp=500)
    assert [(p.side, p.drew) for p in points] == [("player", True), ("banker", False)]
    for p in points:
        assert p.given_up in (Fraction(0), p.margin)
        assert p.given_up == max(
            (p.ev_stand if p.drew else p.ev_draw) - (p.ev_draw if p.drew else p.ev_stand), 0
        )
