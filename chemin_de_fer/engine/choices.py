"""The choices a coup's parties made at their option points, each beside the engine's exact
advice (:mod:`chemin_de_fer.engine.advice`): what the chooser expected from drawing and from
standing, what he did, and how much expectation that gave up against the better choice.

A coup is replayed from its steps: before each draw or stand announced where the tableau leaves
the party free, the advice is computed as the croupier's screen computes it live, from the
chooser's own information only (the cards out of the shoe before the coup, ``seen_before``, and
the coup's cards he can see; never the opponent's face-down cards). Used by the back office's
money-flow alerts (docs/flows.md) and by their simulations: pure, no Django.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from chemin_de_fer.engine.advice import AdviceError, advise_banker, advise_player
from chemin_de_fer.engine.machine import CoupProgress, Move, Step, apply, requirement
from chemin_de_fer.engine.tableau import Requirement
from core.cards import remaining_by_points

__all__ = ["OptionPoint", "option_point", "option_points"]

_DECISIONS: dict[Move, tuple[str, bool]] = {
    Move.PLAYER_DRAW: ("player", True),
    Move.PLAYER_STAND: ("player", False),
    Move.BANKER_DRAW: ("banker", True),
    Move.BANKER_STAND: ("banker", False),
}


@dataclass(frozen=True, slots=True)
class OptionPoint:
    """One free choice: the side that chose, whether it drew, and both exact expectations per
    unit of covered stake from the chooser's point of view (``advice.Advice``'s)."""

    side: Literal["player", "banker"]
    drew: bool
    ev_draw: Fraction
    ev_stand: Fraction

    @property
    def margin(self) -> Fraction:
        """How much the better choice gains over the other (never negative)."""
        return abs(self.ev_draw - self.ev_stand)

    @property
    def given_up(self) -> Fraction:
        """The expectation the choice gave up against the better one: 0, or the margin."""
        chosen, other = (self.ev_draw, self.ev_stand) if self.drew else (self.ev_stand, self.ev_draw)
        return max(other - chosen, Fraction(0))


def _unseen(state: CoupProgress, side: str, seen_before: Sequence[str], decks: int) -> tuple[int, ...]:
    """What the chooser cannot see: the shoe less the cards out before the coup and the coup's
    cards he sees (the opponent's two face-down cards stay unknown)."""
    if side == "player":
        mine = (*state.player_cards, *state.banker_cards[2:])
    else:
        mine = (*state.banker_cards, *state.player_cards[2:])
    return remaining_by_points((*seen_before, *mine), decks)


def option_point(
    state: CoupProgress, drew: bool, *, seen_before: Sequence[str], decks: int, levy_bp: int = 0
) -> OptionPoint | None:
    """The choice ``drew`` (draw, or stand) at the option point ``state`` stands at, priced by the
    advice from the chooser's information; ``None`` where no party is free now, or where the
    advice cannot price the point (a shoe too short, a hand no model explains)."""
    need = requirement(state)
    if need is None or need[1] is not Requirement.OPTION:
        return None
    side = need[0]
    tableau = state.rules.tableau
    unseen = _unseen(state, side, seen_before, decks)
    try:
        if side == "player":
            advice = advise_player(
                tableau,
                (state.player_cards[0], state.player_cards[1]),
                single_punter=len({b.punter for b in state.bets}) == 1,
                unseen=unseen,
                banco=state.banco,
            )
        else:
            advice = advise_banker(
                tableau,
                (state.banker_cards[0], state.banker_cards[1]),
                state.player_cards[2] if len(state.player_cards) == 3 else None,
                unseen=unseen,
                levy_bp=levy_bp,
                banco=state.banco,
            )
    except AdviceError:
        return None
    return OptionPoint(side=advice.chooser, drew=drew, ev_draw=advice.ev_draw, ev_stand=advice.ev_stand)


def option_points(
    start: CoupProgress, steps: Sequence[Step], *, seen_before: Sequence[str], decks: int, levy_bp: int = 0
) -> tuple[OptionPoint, ...]:
    """Every free draw or stand in the coup ``steps`` play from ``start``, with its advice.

    ``seen_before``: the cards out of the shoe before this coup (burnt and earlier coups');
    ``decks``: the shoe's; ``levy_bp``: the percentage tax on the banker's win in this coup (0
    where none applies, the first coup of an exempt bank included). A point the advice cannot
    price (a nearly empty shoe) is left out."""
    found: list[OptionPoint] = []
    state = start
    for step in steps:
        decision = _DECISIONS.get(step.kind)
        need = requirement(state)
        if decision is not None and need is not None and need[0] == decision[0]:
            point = option_point(state, decision[1], seen_before=seen_before, decks=decks, levy_bp=levy_bp)
            if point is not None:
                found.append(point)
        state = apply(state, step)
    return tuple(found)
