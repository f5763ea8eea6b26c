"""Simulated nights of chemin de fer for the money-flow detector (docs/flows.md), played through
the pure engine: shuffled shoes, a bank that passes when it loses, punters who bet against it,
and every option point decided from the engine's own advice. Pure: no database.

Who decides what at an option point:
- an honest party takes the advised choice, or (``slip`` > 0) the worse one with that chance;
- a colluding ``pair`` ``(partner, launderer)``: the launderer, whenever he faces the partner at
  an option point (as the punter who plays the hand against the partner's bank, or as the banker
  with the partner among the punters), takes the worse choice; and he bets big against the
  partner's bank (he plays the hand) and small, or not at all, against anybody else's.

``python -m bench.flowsim`` measures the false-alarm rate of the default thresholds over many
honest nights (the figure in docs/flows.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import time
from dataclasses import dataclass, field
from fractions import Fraction

from chemin_de_fer.engine.choices import option_point
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.machine import (
    CoupProgress,
    Move,
    Step,
    apply,
    new_coup,
    next_steps,
    requirement,
    to_record,
)
from chemin_de_fer.engine.profiles import BUILTIN
from chemin_de_fer.engine.punters import seat_key
from chemin_de_fer.engine.settlement import LevyTerms, active_punter
from chemin_de_fer.engine.tableau import Requirement
from core.cards import ALL_CARDS
from tables.flows import Choice, Duel, Limits, collusion_findings

DAY = dt.date(2026, 1, 1)
_CARDS = {Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER}


@dataclass
class Night:
    """What a simulated night leaves: the duels and the option points, as the selector reads them."""

    duels: list[Duel] = field(default_factory=list)
    choices: list[Choice] = field(default_factory=list)
    coups: int = 0


@dataclass
class _Shoe:
    rnd: random.Random
    decks: int
    cards: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)

    def fresh_if_short(self) -> None:
        if len(self.cards) < 16:
            self.cards = list(ALL_CARDS) * self.decks
            self.rnd.shuffle(self.cards)
            self.seen = []

    def deal(self) -> str:
        card = self.cards.pop()
        self.seen.append(card)
        return card


def _player_of(key: str) -> int:
    return int(key.rsplit("-", 1)[1])


def _bets(
    rnd: random.Random, banker: int, players: int, bank: int, pair: tuple[int, int] | None
) -> list[Step]:
    others = [p for p in range(1, players + 1) if p != banker]
    rnd.shuffle(others)
    steps: list[Step] = []
    left = bank
    if pair is not None and banker == pair[0]:  # the launderer plays the hand against his partner
        amount = max(left * 3 // 4, 1)
        steps.append(Step(Move.BET, punter=seat_key(pair[1]), amount=amount, order=0))
        left -= amount
        others.remove(pair[1])
    for p in others[: rnd.randint(1, 3)]:
        if left <= 0:
            break
        small = pair is not None and p == pair[1]  # he keeps his money for his partner's bank
        amount = rnd.randint(1, max(left // (8 if small else 2), 1))
        steps.append(Step(Move.BET, punter=seat_key(p), amount=amount, order=len(steps)))
        left -= amount
    return steps


def _colluding(state: CoupProgress, side: str, banker: int, pair: tuple[int, int] | None) -> bool:
    if pair is None:
        return False
    partner, launderer = pair
    punters = {_player_of(b.punter) for b in state.bets}
    if side == "player":
        return banker == partner and _player_of(active_punter(state.bets)) == launderer
    return banker == launderer and partner in punters


def _decide(
    state: CoupProgress,
    rnd: random.Random,
    shoe: _Shoe,
    levy: LevyTerms,
    honest_slip: float,
    *,
    collude: bool,
) -> tuple[Step, bool]:
    """The draw or stand at an option point, and whether it drew."""
    seen_before = shoe.seen[: len(shoe.seen) - len(state.player_cards) - len(state.banker_cards)]
    rate = 0 if state.first_coup_of_bank and levy.first_coup_exempt else levy.rate_bp
    point = option_point(state, True, seen_before=seen_before, decks=shoe.decks, levy_bp=rate)
    side = requirement(state)
    assert side is not None
    if point is None:
        drew = rnd.random() < 0.5
    else:
        best = point.ev_draw >= point.ev_stand
        drew = (not best) if collude else (best if rnd.random() >= honest_slip else not best)
    moves = {("player", True): Move.PLAYER_DRAW, ("player", False): Move.PLAYER_STAND}
    moves |= {("banker", True): Move.BANKER_DRAW, ("banker", False): Move.BANKER_STAND}
    return Step(moves[(side[0], drew)]), drew


def play_night(
    *,
    coups: int,
    seed: int,
    players: int = 6,
    profile: str = "casino",
    pair: tuple[int, int] | None = None,
    honest_slip: float = 0.0,
    day: dt.date = DAY,
    first_coup: int = 1,
) -> Night:
    """``coups`` coups among ``players`` players (ids 1..players) at one table of ``profile``;
    ``pair``: ``(partner, launderer)`` colluding, else every player honest."""
    rnd = random.Random(seed)
    rules = Rules.for_profile(BUILTIN[profile])
    levy = LevyTerms.for_profile(rules.profile)
    shoe = _Shoe(rnd, decks=6)
    night = Night()
    banker, first_of_bank = 1, True
    rotation = banker
    for number in range(first_coup, first_coup + coups):
        shoe.fresh_if_short()
        # a colluding pair meets every other coup: the partner banks, the launderer plays the hand
        banker = pair[0] if pair is not None and number % 2 == 0 else rotation
        bank = rnd.randint(100, 2_000)
        state = new_coup(rules, first_coup_of_bank=first_of_bank)
        state = apply(state, Step(Move.BANK_DECLARED, amount=bank, punter=seat_key(banker)))
        for bet in _bets(rnd, banker, players, bank, pair):
            state = apply(state, bet)
        state = apply(state, Step(Move.BETS_CLOSED))
        points: list[tuple[str, Fraction, Fraction, bool]] = []
        while options := next_steps(state):
            need = requirement(state)
            if need is not None and need[1] is Requirement.OPTION:
                collude = _colluding(state, need[0], banker, pair)
                step, drew = _decide(state, rnd, shoe, levy, honest_slip, collude=collude)
                seen_before = shoe.seen[: len(shoe.seen) - len(state.player_cards) - len(state.banker_cards)]
                rate = 0 if state.first_coup_of_bank and levy.first_coup_exempt else levy.rate_bp
                point = option_point(state, drew, seen_before=seen_before, decks=shoe.decks, levy_bp=rate)
                if point is not None:
                    points.append((need[0], point.margin, point.given_up, drew))
                state = apply(state, step)
                continue
            clean = [o for o in options if o.violation is None]
            choice = clean[0]
            state = apply(state, Step(choice.kind, card=shoe.deal() if choice.kind in _CARDS else None))
        verdict = judge_coup(to_record(state, coup_id=number), rules, levy=levy)
        settlement = verdict.settlement
        assert settlement is not None
        stakes: dict[int, int] = {}
        for b in state.bets:
            stakes[_player_of(b.punter)] = stakes.get(_player_of(b.punter), 0) + b.amount
        for key, net in settlement.punters.items():
            night.duels.append(
                Duel(coup_id=number, day=day, banker=banker, punter=_player_of(key), punter_net=net)
            )
        hand = _player_of(active_punter(state.bets))
        for side, margin, given_up, _drew in points:
            if side == "player":
                night.choices.append(Choice(number, hand, banker, "player", stakes[hand], margin, given_up))
            else:
                for punter, stake in sorted(stakes.items()):
                    night.choices.append(Choice(number, banker, punter, "banker", stake, margin, given_up))
        night.coups += 1
        if banker != rotation:
            continue
        if settlement.next_bank_min is None:  # the bank lost: it passes to the next player
            rotation, first_of_bank = rotation % players + 1, True
        else:
            first_of_bank = False
    return night


def false_alarms(
    *, nights: int, coups: int, limits: Limits, honest_slip: float, first_seed: int = 1
) -> tuple[int, int]:
    """How many of ``nights`` honest nights raise at least one flow finding, and how many pairs did."""
    nights_flagged = pairs = 0
    for seed in range(first_seed, first_seed + nights):
        night = play_night(coups=coups, seed=seed, honest_slip=honest_slip)
        found = collusion_findings(night.duels, night.choices, limits)
        nights_flagged += bool(found)
        pairs += len(found)
    return nights_flagged, pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nights", type=int, default=200)
    parser.add_argument("--coups", type=int, default=200)
    parser.add_argument("--flow", type=int, default=10_000)
    parser.add_argument("--z", type=int, default=4)
    args = parser.parse_args()
    limits = Limits(flow=args.flow, z=Fraction(args.z))
    for slip in (0.0, float(Fraction(1, 10)), 0.25):
        started = time.perf_counter()
        flagged, pairs = false_alarms(nights=args.nights, coups=args.coups, limits=limits, honest_slip=slip)
        print(
            f"honest slip {slip:.2f}: {flagged}/{args.nights} nights of {args.coups} coups flagged "
            f"({pairs} pairs), {time.perf_counter() - started:.1f} s"
        )


if __name__ == "__main__":
    main()
