"""The coup as a state machine: the croupier's steps, checked one at a time.

Two kinds of wrong input are told apart on purpose:

* an **illegal step** (:class:`IllegalStep`) cannot be recorded at all: a fourth card to a hand,
  a bet after "no more bets", a bet larger than what is left of the bank. Nothing is written.
* a step that **breaks the rules** but did happen at the table (the banker stood when he had to
  draw) is applied, with its :class:`~chemin_de_fer.engine.coup.Violation` attached. The croupier records
  what happened; the coup is flagged and later restored (docs/rules.md §9).

``judge_coup`` stays the authority on a finished coup; :func:`to_record` turns a finished state
into the record it judges, and the test suite checks that both find the same violations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import StrEnum

from chemin_de_fer.engine.coup import Action, Code, CoupRecord, Hand, Stake, Violation
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.procedure import (
    bank_violation,
    limit_violation,
    seated_after_spectator,
    spectator_may_bet,
    spectator_refusal,
    suivi_violation,
)
from chemin_de_fer.engine.settlement import BancoCaller, banco_winner
from chemin_de_fer.engine.tableau import Requirement
from core.cards import POINTS
from core.sentence import Listing, Word, said


class Move(StrEnum):
    """The kinds of step a croupier records in a coup (the model's ``CoupStep.Kind`` takes its game
    steps from here)."""

    BANK_DECLARED = "bank_declared"
    BET = "bet"
    BANCO = "banco"
    BETS_CLOSED = "bets_closed"
    CARD_TO_PLAYER = "card_to_player"
    CARD_TO_BANKER = "card_to_banker"
    PLAYER_NATURAL = "player_natural"
    PLAYER_DRAW = "player_draw"
    PLAYER_STAND = "player_stand"
    BANKER_NATURAL = "banker_natural"
    BANKER_DRAW = "banker_draw"
    BANKER_STAND = "banker_stand"
    REVEAL = "reveal"


class Phase(StrEnum):
    DECLARING = "declaring"  # waiting for the banker's bank
    BETTING = "betting"
    DEALING = "dealing"  # the four face-down cards P, B, P, B
    PLAYER_TO_ACT = "player_to_act"
    PLAYING = "playing"  # banker looks, third cards, banker's decision
    DONE = "done"  # revealed: ready to settle


class IllegalStep(ValueError):
    """A step that cannot be recorded in this state: nothing is applied."""


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happened at the table. Only the fields its kind needs are set."""

    kind: Move
    amount: int | None = None  # bank_declared, bet
    punter: str | None = None  # bank_declared (the banker), bet
    spectator: bool = False  # bet
    order: int = 0  # bet: position in betting order, 0 = first
    card: str | None = None  # card_to_player, card_to_banker
    callers: tuple[BancoCaller, ...] = ()  # banco: everybody who called, in any order


@dataclass(frozen=True, slots=True)
class NextStep:
    """A step the croupier may record now, and the violation it would carry (None if clean)."""

    kind: Move
    violation: Violation | None = None
    #: a second violation the same step carries (a recorded history only: a player who never showed
    #: his natural and a banker who never showed his, both met at the banker's first step)
    also: Violation | None = None


@dataclass(frozen=True, slots=True)
class CoupProgress:
    """Where a coup stands after the steps applied so far (never stored: rebuilt from the steps)."""

    rules: Rules
    minimum_bank: int = 1
    house_limit: int | None = None
    first_coup_of_bank: bool = False
    banker: str | None = None
    bank: int | None = None
    bets: tuple[Stake, ...] = ()
    bet_orders: tuple[int, ...] = ()
    banco: bool = False
    banco_suivi: bool = False  # the banco was a banco suivi
    bets_closed: bool = False
    player_cards: tuple[str, ...] = ()
    banker_cards: tuple[str, ...] = ()
    player_action: Action | None = None
    banker_action: Action | None = None
    revealed: bool = False
    # replaying a recorded history rather than a live table: what happened is recorded even where
    # a live table would refuse it (bets beyond the bank, a bank under the profile's minimum or
    # above the house limit, a spectator's forbidden bet, a spectator's bet before a seated one, a
    # banco suivi the profile lacks are flagged, not refused); its bets stay in the record's order
    historical: bool = False
    steps: int = 0
    violations: tuple[tuple[int, Violation], ...] = ()  # (step number, violation)

    # ------------------------------------------------------------------ derived facts
    @property
    def covered(self) -> int:
        return sum(b.amount for b in self.bets)

    @property
    def uncovered(self) -> int:
        return (self.bank or 0) - self.covered

    @property
    def phase(self) -> Phase:
        if self.bank is None:
            return Phase.DECLARING
        if not self.bets_closed:
            return Phase.BETTING
        if len(self.player_cards) + len(self.banker_cards) < 4 and self.player_action is None:
            return Phase.DEALING
        if self.player_action is None and self.banker_action is None:
            return Phase.PLAYER_TO_ACT
        if self.revealed:
            return Phase.DONE
        return Phase.PLAYING

    @property
    def player_two(self) -> int:
        return (POINTS[self.player_cards[0]] + POINTS[self.player_cards[1]]) % 10

    @property
    def banker_two(self) -> int:
        return (POINTS[self.banker_cards[0]] + POINTS[self.banker_cards[1]]) % 10

    @property
    def flagged(self) -> bool:
        return bool(self.violations)


def new_coup(
    rules: Rules,
    *,
    minimum_bank: int = 1,
    house_limit: int | None = None,
    first_coup_of_bank: bool = False,
    historical: bool = False,
) -> CoupProgress:
    """A coup waiting for its bank. ``minimum_bank`` is the mandatory continuation (§6) when the
    banker won or tied the previous coup, else the profile's minimum. ``historical`` replays a
    recorded history (an import): see :class:`CoupProgress`."""
    return CoupProgress(
        rules=rules,
        minimum_bank=max(minimum_bank, rules.profile.min_bank),
        house_limit=house_limit,
        first_coup_of_bank=first_coup_of_bank,
        historical=historical,
    )


# ---------------------------------------------------------------------- questions
def requirement(state: CoupProgress) -> tuple[str, Requirement] | None:
    """What the tableau requires of whoever acts now: ``("player", DRAW)`` and so on, or None
    when nobody faces a draw/stand decision (betting, dealing, a natural to show, done)."""
    phase = state.phase
    if phase is Phase.PLAYER_TO_ACT:
        if state.player_two >= 8 or state.banker_two >= 8:
            return None
        return "player", _player_requirement(state)
    if phase is Phase.PLAYING and _banker_decides_now(state):
        if state.player_two >= 8 or state.banker_two >= 8:
            return None
        return "banker", _banker_requirement(state)
    return None


def next_steps(state: CoupProgress) -> tuple[NextStep, ...]:
    """Every step that may be recorded now, each with the violation it would carry."""
    phase = state.phase
    if phase is Phase.DECLARING:
        return (NextStep(Move.BANK_DECLARED),)
    if phase is Phase.BETTING:
        steps = []
        if not state.banco and (state.uncovered > 0 or state.historical):
            steps += [NextStep(Move.BET), NextStep(Move.BANCO)]
        if state.bets:
            steps.append(NextStep(Move.BETS_CLOSED))
        return tuple(steps)
    if phase is Phase.DEALING:
        to_player = len(state.player_cards) == len(state.banker_cards)
        return (NextStep(Move.CARD_TO_PLAYER if to_player else Move.CARD_TO_BANKER),)
    if phase is Phase.PLAYER_TO_ACT:
        return _player_choices(state)
    if phase is Phase.PLAYING:
        return _playing_choices(state)
    return ()


def _player_requirement(state: CoupProgress) -> Requirement:
    return state.rules.tableau.player_requirement(
        state.player_two, single_punter=_single(state), banco=state.banco
    )


def _banker_requirement(state: CoupProgress) -> Requirement:
    third = POINTS[state.player_cards[2]] if len(state.player_cards) == 3 else None
    return state.rules.tableau.banker_requirement(state.banker_two, third, banco=state.banco)


def _single(state: CoupProgress) -> bool:
    return len({b.punter for b in state.bets}) == 1


def _player_choices(state: CoupProgress) -> tuple[NextStep, ...]:
    if state.historical and (state.player_two >= 8 or state.banker_two >= 8):
        return _history_before_player(state)
    if state.player_two >= 8:
        shown = Violation(Code.NATURAL_NOT_SHOWN, "player")
        return (
            NextStep(Move.PLAYER_NATURAL),
            NextStep(Move.PLAYER_DRAW, shown),
            NextStep(Move.PLAYER_STAND, shown),
        )
    if state.banker_two >= 8:
        # the banker's natural will decide: whatever the player says is moot; a recorded history
        # may show the banker's natural before the player spoke (his action is then "none")
        moot = (NextStep(Move.PLAYER_DRAW), NextStep(Move.PLAYER_STAND))
        return (*moot, NextStep(Move.BANKER_NATURAL)) if state.historical else moot
    return _draw_or_stand("player", _player_requirement(state))


#: each party's two announcements at its turn, each with the violation of making it where the
#: tableau requires the other: (draw, drawn against a stand, stand, stood against a draw)
_DRAW_OR_STAND: dict[str, tuple[Move, Code, Move, Code]] = {
    "player": (Move.PLAYER_DRAW, Code.PLAYER_SHOULD_STAND, Move.PLAYER_STAND, Code.PLAYER_SHOULD_DRAW),
    "banker": (Move.BANKER_DRAW, Code.BANKER_SHOULD_STAND, Move.BANKER_STAND, Code.BANKER_SHOULD_DRAW),
}


def _draw_or_stand(side: str, req: Requirement) -> tuple[NextStep, NextStep]:
    """``side``'s draw and stand as the tableau's ``req`` has them: both open, and the one it
    forbids recorded with its violation (at an option neither is one)."""
    draw, should_stand, stand, should_draw = _DRAW_OR_STAND[side]
    return (
        NextStep(draw, Violation(should_stand, side) if req is Requirement.STAND else None),
        NextStep(stand, Violation(should_draw, side) if req is Requirement.DRAW else None),
    )


def _banker_decides_now(state: CoupProgress) -> bool:
    if state.banker_action is not None or state.player_action is Action.NATURAL:
        return False
    return state.player_action is Action.STAND or len(state.player_cards) == 3


def _playing_choices(state: CoupProgress) -> tuple[NextStep, ...]:
    if state.historical and (state.player_two >= 8 or state.banker_two >= 8):
        return _history_after_natural(state)
    pnat = state.player_two >= 8
    bnat = state.banker_two >= 8
    after_natural = pnat or bnat
    pa, ba = state.player_action, state.banker_action
    card_to_player = NextStep(
        Move.CARD_TO_PLAYER,
        Violation(Code.CARD_AFTER_NATURAL, "player") if after_natural else None,
    )
    card_to_banker = NextStep(
        Move.CARD_TO_BANKER,
        Violation(Code.CARD_AFTER_NATURAL, "banker") if after_natural else None,
    )
    reveal = NextStep(Move.REVEAL)
    player_owed_card = pa is Action.DRAW and len(state.player_cards) == 2

    if pa is Action.NATURAL or pa is None:
        return (reveal,)
    if ba is Action.NATURAL:
        return (reveal, card_to_player) if player_owed_card else (reveal,)
    if ba is Action.DRAW:
        return (card_to_banker,) if len(state.banker_cards) == 2 else (reveal,)
    if ba is Action.STAND:
        return (reveal,)
    # the player has announced draw or stand; the banker has not acted yet
    steps: list[NextStep] = []
    if bnat:
        steps.append(NextStep(Move.BANKER_NATURAL))
    if pnat:
        steps.append(reveal)  # the player's unshown natural still decides the coup
    if player_owed_card:
        steps.append(card_to_player)
        return tuple(steps)
    if bnat:
        shown = Violation(Code.NATURAL_NOT_SHOWN, "banker")
        steps += [NextStep(Move.BANKER_DRAW, shown), NextStep(Move.BANKER_STAND, shown)]
    elif pnat:
        steps += [NextStep(Move.BANKER_DRAW), NextStep(Move.BANKER_STAND)]
    else:
        steps += _draw_or_stand("banker", _banker_requirement(state))
    return tuple(steps)


# ------------------------------------------------- a recorded history that a natural decided
# A live table lets each party speak in turn and offers nothing once a shown natural has decided
# the coup. A record only says each hand's cards and final action (docs/coup-record.md), and the
# offline judge gives a verdict on every such record, so a historical replay must accept every
# well-formed one, carrying exactly the judge's natural codes (``judge_coup``): NATURAL_NOT_SHOWN
# for a natural recorded as draw, stand or none (a banker's "none" is his natural shown at the
# reveal when the player had one too, as the live reveal records it), CARD_AFTER_NATURAL for each
# third card. Nothing else is judged once a natural decided the coup (docs/rules.md, Decisions):
# an announcement that got no card, or a player's card not dealt, changes nothing.


def _not_shown(state: CoupProgress, side: str) -> Violation | None:
    """NATURAL_NOT_SHOWN on ``side`` when its two cards make a natural it has not shown."""
    two = state.player_two if side == "player" else state.banker_two
    return Violation(Code.NATURAL_NOT_SHOWN, side) if two >= 8 else None


def _history_before_player(state: CoupProgress) -> tuple[NextStep, ...]:
    """A natural is on the table and the player has not spoken: he shows it, draws or stands (as
    live), or the record has him silent (``none``) and the banker speaks, or the hands are shown."""
    pnat = state.player_two >= 8
    bnat = state.banker_two >= 8
    silent = _not_shown(state, "player")  # a player silent on his own natural did not show it
    steps = list(_player_choices(_evolve(state, historical=False)))
    if bnat:
        if not pnat:  # the live choices hold the player's draw and stand only
            steps.append(NextStep(Move.BANKER_NATURAL))
        else:
            steps.append(NextStep(Move.BANKER_NATURAL, silent))
    banker_not_shown = _not_shown(state, "banker")
    first, second = (silent, banker_not_shown) if silent is not None else (banker_not_shown, None)
    steps += [
        NextStep(Move.BANKER_DRAW, first, second),
        NextStep(Move.BANKER_STAND, first, second),
    ]
    # shown at once with nobody speaking: the banker's natural is shown at the reveal only when
    # the player had one too (the live reveal records it so); alone, he never showed it
    if silent is not None:
        steps.append(NextStep(Move.REVEAL, silent))
    else:
        steps.append(NextStep(Move.REVEAL, banker_not_shown))
    return tuple(steps)


def _history_after_natural(state: CoupProgress) -> tuple[NextStep, ...]:
    """A natural decides the coup and somebody has spoken: every step a record can show next."""
    pnat = state.player_two >= 8
    pa, ba = state.player_action, state.banker_action
    steps: list[NextStep] = []
    if pa is Action.DRAW and len(state.player_cards) == 2 and ba in (None, Action.NATURAL):
        steps.append(NextStep(Move.CARD_TO_PLAYER, Violation(Code.CARD_AFTER_NATURAL, "player")))
    if ba is None:
        banker_not_shown = _not_shown(state, "banker")
        if banker_not_shown is not None and pa is not Action.NATURAL:
            steps.append(NextStep(Move.BANKER_NATURAL))
        steps += [
            NextStep(Move.BANKER_DRAW, banker_not_shown),
            NextStep(Move.BANKER_STAND, banker_not_shown),
        ]
        # revealed without a word from the banker: his natural is shown at the reveal when the
        # player had one too; otherwise he never showed it
        steps.append(NextStep(Move.REVEAL, None if pnat else banker_not_shown))
        return tuple(steps)
    if ba is Action.DRAW and len(state.banker_cards) == 2:
        steps.append(NextStep(Move.CARD_TO_BANKER, Violation(Code.CARD_AFTER_NATURAL, "banker")))
    steps.append(NextStep(Move.REVEAL))
    return tuple(steps)


# ---------------------------------------------------------------------- applying a step
def apply(state: CoupProgress, step: Step) -> CoupProgress:  # noqa: C901  (one branch a step kind: the machine reads as the table plays)
    """Apply ``step``; raise :class:`IllegalStep` (and change nothing) when it cannot be recorded."""
    allowed = {s.kind: s for s in next_steps(state)}
    option = allowed.get(step.kind)
    if option is None:
        asked, phase = Word(step.kind, "step"), Word(state.phase, "phase")
        if not allowed:
            raise IllegalStep(
                said(
                    "{kind} is not possible now (phase {phase}); expected nothing: the coup is over",
                    kind=asked,
                    phase=phase,
                )
            )
        expected = Listing(Word(k, "step") for k in allowed)
        raise IllegalStep(
            said(
                "{kind} is not possible now (phase {phase}); expected {expected}",
                kind=asked,
                phase=phase,
                expected=expected,
            )
        )
    n = state.steps + 1
    violations = state.violations
    if option.violation is not None:
        violations = (*violations, (n, option.violation))
    if option.also is not None:
        violations = (*violations, (n, option.also))
    kind = step.kind
    if kind is Move.BANK_DECLARED:
        new = _declare(state, step)
        assert new.bank is not None
        low = bank_violation(state.rules.profile, new.bank)  # only a historical replay gets one
        if low is not None:
            violations = (*violations, (n, low))
        high = limit_violation(new.bank, state.house_limit)  # so does this one
        if high is not None:
            violations = (*violations, (n, high))
    elif kind is Move.BET:
        new = _bet(state, step)
        violations = _spectator_flag(new, violations, n)
        violations = _order_flag(new, violations, n)
        if new.uncovered < 0 <= state.uncovered:  # only a historical replay gets here
            over = Violation(Code.BETS_EXCEED_BANK, "punters", f"{new.covered} > {new.bank}")
            violations = (*violations, (n, over))
    elif kind is Move.BANCO:
        new = _banco(state, step)
        violations = _spectator_flag(new, violations, n)
        suivi = suivi_violation(new.rules.profile, banco_suivi=new.banco_suivi)  # a history only
        if suivi is not None:
            violations = (*violations, (n, suivi))
    # the steps that change one thing: one new state, the step's count and violations with it
    elif kind is Move.BETS_CLOSED:
        return _evolve(state, bets_closed=True, steps=n, violations=violations)
    elif kind is Move.CARD_TO_PLAYER:
        cards = (*state.player_cards, _card(step))
        return _evolve(state, player_cards=cards, steps=n, violations=violations)
    elif kind is Move.CARD_TO_BANKER:
        cards = (*state.banker_cards, _card(step))
        return _evolve(state, banker_cards=cards, steps=n, violations=violations)
    elif kind in _PLAYER_SAYS:
        return _evolve(state, player_action=_PLAYER_SAYS[kind], steps=n, violations=violations)
    elif kind in _BANKER_SAYS:
        return _evolve(state, banker_action=_BANKER_SAYS[kind], steps=n, violations=violations)
    else:  # REVEAL
        banker_action = state.banker_action
        if banker_action is None:
            # the banker's natural is shown at the reveal when the player's natural decided the
            # coup (a live table reveals with the banker silent only then); a recorded history may
            # reveal a banker natural nobody showed, and keeps it unshown ("none", flagged)
            shown = state.banker_two >= 8 and (state.player_two >= 8 or not state.historical)
            banker_action = Action.NATURAL if shown else Action.NONE
        player_action = state.player_action or Action.NONE
        return _evolve(
            state,
            revealed=True,
            banker_action=banker_action,
            player_action=player_action,
            steps=n,
            violations=violations,
        )
    return _evolve(new, steps=n, violations=violations)


#: CoupProgress's fields, in order (``_evolve``)
_PROGRESS_FIELDS = tuple(f.name for f in fields(CoupProgress))
_set = object.__setattr__


def _evolve(state: CoupProgress, **changes: object) -> CoupProgress:
    """``dataclasses.replace(state, **changes)`` at about half its cost (it looks every field up,
    checks it and runs the frozen ``__init__`` on each call; an import replays tens of thousands
    of steps): the state copied field by field, then the changes set. The class has no
    ``__post_init__`` and its ``__init__`` checks nothing, so the result is the same."""
    new = object.__new__(CoupProgress)
    for name in _PROGRESS_FIELDS:
        _set(new, name, getattr(state, name))
    for name, value in changes.items():
        if name not in _PROGRESS_FIELDS:
            raise TypeError(f"CoupProgress has no field {name!r}")
        _set(new, name, value)
    return new


#: the action each party's announcement records
_PLAYER_SAYS: dict[Move, Action] = {
    Move.PLAYER_NATURAL: Action.NATURAL,
    Move.PLAYER_DRAW: Action.DRAW,
    Move.PLAYER_STAND: Action.STAND,
}
_BANKER_SAYS: dict[Move, Action] = {
    Move.BANKER_NATURAL: Action.NATURAL,
    Move.BANKER_DRAW: Action.DRAW,
    Move.BANKER_STAND: Action.STAND,
}


def replay(state: CoupProgress, steps: Sequence[Step]) -> CoupProgress:
    for step in steps:
        state = apply(state, step)
    return state


def _card(step: Step) -> str:
    if step.card not in POINTS:
        raise IllegalStep(said("bad card {card!r}", card=step.card))
    return step.card


def _spectator_flag(
    new: CoupProgress, violations: tuple[tuple[int, Violation], ...], n: int
) -> tuple[tuple[int, Violation], ...]:
    """Flag the bet just made when it is a spectator's the profile forbids (a historical replay
    only: a live table refused it) — once per coup, as the judge flags it."""
    bet = new.bets[-1]
    if not bet.spectator or spectator_may_bet(new.rules.profile, banco=new.banco):
        return violations
    if any(v.code is Code.SPECTATOR_BET_NOT_ALLOWED for _, v in violations):
        return violations
    return (*violations, (n, Violation(Code.SPECTATOR_BET_NOT_ALLOWED, "punters", bet.punter)))


def _order_flag(
    new: CoupProgress, violations: tuple[tuple[int, Violation], ...], n: int
) -> tuple[tuple[int, Violation], ...]:
    """Flag the seated punter's bet just made when a spectator's came before it (a historical
    replay only: a live table's services refuse the spectator's bet until the seated round is
    over, and a live record lists spectators last) — once per coup, as the judge flags it."""
    if not new.historical or new.bets[-1].spectator:
        return violations
    if any(v.code is Code.SPECTATOR_BEFORE_SEATED for _, v in violations):
        return violations
    early = seated_after_spectator(new.bets)
    return violations if early is None else (*violations, (n, early))


def _declare(state: CoupProgress, step: Step) -> CoupProgress:
    amount = step.amount
    if type(amount) is not int or amount <= 0:
        raise IllegalStep(said("the bank must be a positive whole number of chips"))
    # a recorded bank under the profile's own minimum is flagged (BANK_BELOW_MINIMUM), not refused
    flagged_instead = state.historical and amount < state.rules.profile.min_bank
    if amount < state.minimum_bank and not flagged_instead:
        raise IllegalStep(said("the bank must be at least {minimum}", minimum=state.minimum_bank))
    # a recorded bank above the house limit is flagged (BANK_ABOVE_LIMIT), not refused
    if state.house_limit is not None and amount > state.house_limit and not state.historical:
        raise IllegalStep(said("the bank may not exceed the house limit of {limit}", limit=state.house_limit))
    if not step.punter:
        raise IllegalStep(said("name the banker"))
    return _evolve(state, bank=amount, banker=step.punter)


def _bet(state: CoupProgress, step: Step) -> CoupProgress:
    profile = state.rules.profile
    amount = step.amount
    if not step.punter:
        raise IllegalStep(said("name the punter"))
    if step.punter == state.banker:
        raise IllegalStep(said("the banker cannot bet against their own bank"))
    if type(amount) is not int or amount <= 0:
        raise IllegalStep(said("a bet must be a positive whole number of chips"))
    if step.spectator and not state.historical and not spectator_may_bet(profile, banco=False):
        raise IllegalStep(spectator_refusal(profile, banco=False))
    if amount < profile.min_bet:
        raise IllegalStep(said("the minimum bet is {minimum}", minimum=profile.min_bet))
    if amount > state.uncovered and not state.historical:
        raise IllegalStep(said("only {left} of the bank is left to cover", left=max(state.uncovered, 0)))
    return _evolve(
        state,
        bets=(*state.bets, Stake(step.punter, amount, step.spectator)),
        bet_orders=(*state.bet_orders, step.order),
    )


def _banco(state: CoupProgress, step: Step) -> CoupProgress:
    profile = state.rules.profile
    if not step.callers:
        raise IllegalStep(said("banco needs at least one caller"))
    for caller in step.callers:
        if caller.punter == state.banker:
            raise IllegalStep(said("the banker cannot call banco on their own bank"))
        if caller.spectator and not state.historical and not spectator_may_bet(profile, banco=True):
            raise IllegalStep(spectator_refusal(profile, banco=True))
        if caller.suivi and not profile.banco_suivi and not state.historical:
            raise IllegalStep(
                said("the {profile} profile has no banco suivi", profile=Word(profile.slug, "profile"))
            )
    winner = banco_winner(step.callers, banco_suivi=profile.banco_suivi)
    assert state.bank is not None
    # banco withdraws every other bet: the caller covers the whole bank alone. A history keeps a
    # suivi the profile lacks (flagged SUIVI_NOT_ALLOWED), so that its record says it again
    return _evolve(
        state,
        bets=(Stake(winner.punter, state.bank, winner.spectator),),
        bet_orders=(winner.order,),
        banco=True,
        banco_suivi=winner.suivi and (profile.banco_suivi or state.historical),
    )


# ---------------------------------------------------------------------- the finished coup
def to_record(
    state: CoupProgress, *, coup_id: object = None, shoe_next: tuple[str, ...] = (), chip_unit: int = 1
) -> CoupRecord:
    """The interchange record of a revealed coup (what ``judge_coup`` and exports read)."""
    if state.phase is not Phase.DONE:
        raise IllegalStep(said("the coup is not finished"))
    assert state.bank is not None and state.player_action is not None and state.banker_action is not None
    # a record lists the bets in betting order (who bet first wins a tie for the active punter),
    # which need not be the order the croupier entered them in; a replayed history's bets were
    # entered in its record's order, which is the order they were made in (a spectator's before a
    # seated punter's stays so, and SPECTATOR_BEFORE_SEATED with it)
    if state.historical:
        ranked = list(range(len(state.bets)))
    else:
        ranked = sorted(range(len(state.bets)), key=state.bet_orders.__getitem__)
    return CoupRecord(
        id=coup_id,
        profile=state.rules.profile.slug,
        bank=state.bank,
        bets=tuple(state.bets[i] for i in ranked),
        player=Hand(state.player_cards, state.player_action),
        banker=Hand(state.banker_cards, state.banker_action),
        banco=state.banco,
        first_coup_of_bank=state.first_coup_of_bank,
        shoe_next=shoe_next,
        house_limit=state.house_limit,
        chip_unit=chip_unit,
        banco_suivi=state.banco_suivi,
    )


def record_steps(record: CoupRecord, *, banker: str = "banker") -> list[Step]:
    """The steps that replay a recorded coup (an import of history) on a historical state.

    ``banker`` names the banker (records do not). Raises :class:`IllegalStep` from ``replay`` when a
    record cannot have happened step by step (e.g. a banker who drew after the player's natural
    was shown); ``judge_coup`` can still judge such a record."""
    steps = [Step(Move.BANK_DECLARED, amount=record.bank, punter=banker)]
    if record.banco:
        bet = record.bets[0]
        caller = BancoCaller(bet.punter, spectator=bet.spectator, suivi=record.banco_suivi)
        steps.append(Step(Move.BANCO, callers=(caller,)))
    else:
        steps += [
            Step(Move.BET, punter=b.punter, amount=b.amount, spectator=b.spectator, order=i)
            for i, b in enumerate(record.bets)
        ]
    steps.append(Step(Move.BETS_CLOSED))
    pc, bc = record.player.cards, record.banker.cards
    steps += [
        Step(Move.CARD_TO_PLAYER, card=pc[0]),
        Step(Move.CARD_TO_BANKER, card=bc[0]),
        Step(Move.CARD_TO_PLAYER, card=pc[1]),
        Step(Move.CARD_TO_BANKER, card=bc[1]),
    ]
    pa, ba = record.player.action, record.banker.action
    if pa is not Action.NONE:
        steps.append(Step(_PLAYER_STEP[pa]))
    if ba is Action.NATURAL and pa is not Action.NATURAL:
        steps.append(Step(Move.BANKER_NATURAL))
    if len(pc) == 3:
        steps.append(Step(Move.CARD_TO_PLAYER, card=pc[2]))
    if ba is Action.DRAW or ba is Action.STAND:
        steps.append(Step(Move.BANKER_DRAW if ba is Action.DRAW else Move.BANKER_STAND))
    if len(bc) == 3:
        steps.append(Step(Move.CARD_TO_BANKER, card=bc[2]))
    steps.append(Step(Move.REVEAL))
    return steps


_PLAYER_STEP = {
    Action.NATURAL: Move.PLAYER_NATURAL,
    Action.DRAW: Move.PLAYER_DRAW,
    Action.STAND: Move.PLAYER_STAND,
}


__all__ = [
    "CoupProgress",
    "IllegalStep",
    "Move",
    "NextStep",
    "Phase",
    "Step",
    "apply",
    "new_coup",
    "next_steps",
    "record_steps",
    "replay",
    "requirement",
    "to_record",
]
