"""A step as the croupier enters it, judged into the machine's step: the one question the floor asks
the engine before it records a step (tables/services/coups.py, ``coup_step_record``).

The floor finds the people the entry names (a seat's player, a spectator) and says what it knows
of the table; the engine rules on everything else in one call: a bet's amount and what is left of
the bank to cover, a spectator's turn after the seated (``order.spectator_bet_refusal``), each
bettor's place in the betting order, the banco's winner among its callers and his claim to a
suivi (``order.suivi_refusal``), a card as typed. What it cannot take is
an :class:`EntryRefused`, naming the entry's field to correct; what it takes is the machine's
:class:`~chemin_de_fer.engine.machine.Step` with the payload the coup's record stores for it. The
machine then applies the step (``apply``), which judges the game's own rules and violations.

The facts that cost the floor a read (the seats taken now, the previous coup's banco) are asked for
only when the ruling needs them.

Pure: no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from chemin_de_fer.engine.coup import Outcome
from chemin_de_fer.engine.machine import CoupProgress, Move, Step
from chemin_de_fer.engine.order import (
    SPECTATOR_TURN,
    Seating,
    SuiviClaim,
    betting_turn,
    spectator_bet_refusal,
    suivi_refusal,
)
from chemin_de_fer.engine.profiles import Side
from chemin_de_fer.engine.punters import key_seat_number
from chemin_de_fer.engine.settlement import BancoCaller, banco_winner
from core.cards import CardError, parse_card
from core.sentence import Sentence, said, why


class EntryRefused(Exception):
    """The entry cannot be recorded as it is: ``field`` is the entry's field to correct."""

    def __init__(self, field: str, sentence: str) -> None:
        super().__init__(sentence)
        self.field = field
        self.sentence = sentence


@dataclass(frozen=True, slots=True)
class Punter:
    """A bettor or a banco caller as the floor found him: his key in the engine (``seat-4``,
    ``spectator-17``), his seat (None: a spectator), who he is across coups (for a suivi) and his
    name to say, and whether he calls his banco suivi."""

    key: str
    seat: int | None
    person: Hashable
    name: str
    suivi: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    """The table as the betting order counts it: the banker's seat (None: the house banks), the seat
    count, the profile's ``betting_from`` side."""

    banker_seat: int | None
    seat_count: int
    betting_from: Side


@dataclass(frozen=True, slots=True)
class Entry:
    """A step as entered: its kind, the amount of a bet (as given: checked here), the card as typed,
    the bettor of a bet or the callers of a banco, and a spectator's bet's two declarations: the
    croupier says the seated round is over (``round_over``; ``round_said_before``: he said it with
    an earlier bet of this coup), the banker consents."""

    kind: Move
    amount: object = None
    card: str | None = None
    punters: tuple[Punter, ...] = ()
    round_over: bool = False
    round_said_before: bool = False
    consent: bool = False


@dataclass(frozen=True, slots=True)
class Judged:
    """The machine's step for an entry, the payload its record keeps, and the punter whose chips it
    engages (the bettor, the banco's winner; None for any other step)."""

    step: Step
    payload: dict[str, Any]
    punter: Punter | None = None


def entry_judge(
    state: CoupProgress,
    entry: Entry,
    *,
    table: Table,
    occupied: Callable[[], tuple[int, ...]],
    previous_banco: Callable[[], tuple[Hashable, Outcome] | None],
) -> Judged:
    """The machine's step for ``entry`` on the coup at ``state``, or :class:`EntryRefused`.

    ``occupied``: the seats taken now (read only to rule on a spectator's turn);
    ``previous_banco``: who called banco on the session's previous coup and how it ended (read only
    for a suivi)."""
    if entry.kind is Move.BET:
        return _bet(state, entry, table, occupied)
    if entry.kind is Move.BANCO:
        return _banco(state, entry, table, previous_banco)
    if entry.kind in (Move.CARD_TO_PLAYER, Move.CARD_TO_BANKER):
        card = card_judge(entry.card)
        return Judged(Step(entry.kind, card=card), {"card": card})
    return Judged(Step(entry.kind), {})


def card_judge(text: str | None, *, field: str = "card") -> str:
    """A card's code as typed (``9h``, ``td``, ``10D``), or the refusal naming ``field``."""
    if not text:
        raise EntryRefused(field, said("Which card?"))
    try:
        return parse_card(text)
    except CardError as exc:
        raise EntryRefused(field, why(exc)) from None


def _order(table: Table, punter: Punter) -> int:
    if punter.seat is None:
        return SPECTATOR_TURN
    return betting_turn(
        seat=punter.seat,
        banker_seat=table.banker_seat,
        seat_count=table.seat_count,
        betting_from=table.betting_from,
    )


def _bet(state: CoupProgress, entry: Entry, table: Table, occupied: Callable[[], tuple[int, ...]]) -> Judged:
    (punter,) = entry.punters
    amount = entry.amount
    if type(amount) is not int or amount <= 0:
        raise EntryRefused("amount", said("A bet is a positive whole number of chips."))
    spectator = punter.seat is None
    if spectator and not state.historical:
        refusal = spectator_bet_refusal(
            state.rules.profile,
            lambda: Seating(occupied(), table.banker_seat, table.seat_count, table.betting_from),
            have_bet={key_seat_number(bet.punter) for bet in state.bets},
            round_over=entry.round_over or entry.round_said_before,
            consent=entry.consent,
        )
        if refusal is not None:
            raise EntryRefused(*refusal)
    # a bet above what is left of the bank is refused on its ``amount`` field (the machine refuses
    # it too, but without naming the field a client should correct)
    live_betting = not state.historical and not state.bets_closed and not state.banco
    if live_betting and 0 < state.uncovered < amount:
        raise EntryRefused("amount", said("only {left} of the bank is left to cover", left=state.uncovered))
    order = _order(table, punter)
    payload: dict[str, Any] = {"punter": punter.key, "amount": amount, "spectator": spectator, "order": order}
    if spectator and entry.round_over:
        payload["seated_round_over"] = True
    if spectator and entry.consent:
        payload["consent"] = True
    step = Step(Move.BET, amount=amount, punter=punter.key, spectator=spectator, order=order)
    return Judged(step, payload, punter)


def _banco(
    state: CoupProgress,
    entry: Entry,
    table: Table,
    previous_banco: Callable[[], tuple[Hashable, Outcome] | None],
) -> Judged:
    if not entry.punters:
        raise EntryRefused("callers", said("Name who called banco."))
    callers = tuple(
        BancoCaller(p.key, spectator=p.seat is None, suivi=p.suivi, order=_order(table, p))
        for p in entry.punters
    )
    profile = state.rules.profile
    winning = banco_winner(callers, banco_suivi=profile.banco_suivi).punter
    winner = next(p for p in entry.punters if p.key == winning)
    # a history's suivi is recorded as claimed, never checked against the table's previous coup:
    # a record is one coup judged on its own (``validate_coups`` cannot see the coup before it, and
    # a history may start, or skip coups, anywhere), a one-caller banco's claim changes nothing in
    # the coup, and under a profile without suivi it is flagged (SUIVI_NOT_ALLOWED) instead
    if not state.historical and any(p.suivi for p in entry.punters):
        claims = [SuiviClaim(person=p.person, name=p.name, suivi=p.suivi) for p in entry.punters]
        refusal: Sentence | None = suivi_refusal(claims, previous_banco=previous_banco())
        if refusal is not None:
            raise EntryRefused("callers", refusal)
    payload = {
        "callers": [
            {"punter": c.punter, "spectator": c.spectator, "suivi": c.suivi, "order": c.order}
            for c in callers
        ],
        "winner": winner.key,
    }
    return Judged(Step(Move.BANCO, callers=callers), payload, winner)
