"""Who goes next round the table: the betting order and the bank's rotation (docs/rules.md §2, §7),
and who may bet on what: a spectator after the seated, a banco suivi only by the last coup's loser.

Seats are numbered clockwise from 1 to the table's seat count, so a seat's left neighbour is the
next number up (see :class:`~chemin_de_fer.engine.profiles.Side`). Both orders count places from one seat
towards one side, wrapping round the table; everything here works on seat numbers only.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass

from chemin_de_fer.engine.coup import Outcome
from chemin_de_fer.engine.profiles import Profile, Side
from core.sentence import Listing, Sentence, Word, said

#: a spectator's place in the betting order: after every seat (a seat's place is below the seat count)
SPECTATOR_TURN = 100


def places_from(seat: int, *, anchor: int, seat_count: int, towards: Side) -> int:
    """How many places ``seat`` is from ``anchor``, going round the table towards the anchor's
    ``towards`` side: 1 for the neighbour on that side, ``seat_count - 1`` for the neighbour on the
    other side, 0 for the anchor itself."""
    step = seat - anchor if towards is Side.LEFT else anchor - seat
    return step % seat_count


def betting_turn(*, seat: int, banker_seat: int | None, seat_count: int, betting_from: Side) -> int:
    """A seat's place in the betting order, 1 = first to bet: the banker's neighbour on the
    profile's ``betting_from`` side bets first, and so on round the table (the banker's own seat
    is 0: he does not bet). ``banker_seat`` None is the house banking (docs/rules.md §2): the
    croupier deals from his own place, between the last seat and seat 1, so seat 1 is his left
    neighbour and the last seat his right one, and every seat bets."""
    if banker_seat is None:
        return places_from(seat, anchor=0, seat_count=seat_count + 1, towards=betting_from)
    return places_from(seat, anchor=banker_seat, seat_count=seat_count, towards=betting_from)


def betting_order(
    seats: Iterable[int], *, banker_seat: int | None, seat_count: int, betting_from: Side
) -> list[int]:
    """The seats that may bet (all of ``seats`` but the banker's; all of them when the house
    banks, ``banker_seat`` None), first to bet first."""

    def turn(seat: int) -> int:
        return betting_turn(
            seat=seat, banker_seat=banker_seat, seat_count=seat_count, betting_from=betting_from
        )

    return sorted((s for s in seats if s != banker_seat), key=turn)


def seats_yet_to_bet(order: Sequence[int], *, have_bet: Collection[int | None]) -> list[int]:
    """The seats of the betting ``order`` that have not had their turn yet, the bettors
    ``have_bet`` counting as served: a spectator's plain bet waits for none to be left
    (docs/rules.md §2, spectators never pre-empt seated players)."""
    return [seat for seat in order if seat not in have_bet]


def rotation_turn(seat: int, *, anchor: int, seat_count: int, passes_to: Side) -> int:
    """A seat's place in the bank's rotation, 1 = offered the bank first: the anchor's neighbour
    on the profile's ``passes_to`` side, and so on round the table; the anchor's own seat comes
    last (``seat_count``). The anchor is the seat the rotation counts from (the banker whose turn
    started it); anchor 0, before anyone held the bank, counts as seat ``seat_count``."""
    return places_from(seat, anchor=anchor, seat_count=seat_count, towards=passes_to) or seat_count


def rotation_order(seats: Iterable[int], *, anchor: int, seat_count: int, passes_to: Side) -> list[int]:
    """``seats`` in the order the bank is offered to them."""

    def turn(seat: int) -> int:
        return rotation_turn(seat, anchor=anchor, seat_count=seat_count, passes_to=passes_to)

    return sorted(seats, key=turn)


def rotation_keeps_anchor(*, passed: bool, taker: int, order: Sequence[int]) -> bool:
    """Whether the rotation goes on counting from the previous anchor once ``taker`` takes the
    bank: a farther player taking a *passed* bank leaves the first neighbour (``order[0]``) his
    ordinary turn for when the successor loses (docs/rules.md §7); otherwise the rotation
    counts from the new banker's seat."""
    return passed and bool(order) and order[0] != taker


# ------------------------------------------------------------------ who may bet, and on what
@dataclass(frozen=True, slots=True)
class Seating:
    """The seating facts of a coup as the floor holds them: the seats with a player, the banker's
    (None: the house banks), the table's seat count and the profile's ``betting_from`` side."""

    occupied: tuple[int, ...]
    banker_seat: int | None
    seat_count: int
    betting_from: Side

    def turn(self, seat: int) -> int:
        """``seat``'s place in the betting order (:func:`betting_turn`)."""
        return betting_turn(
            seat=seat,
            banker_seat=self.banker_seat,
            seat_count=self.seat_count,
            betting_from=self.betting_from,
        )

    def order(self) -> list[int]:
        """The occupied seats that may bet, first to bet first (:func:`betting_order`)."""
        return betting_order(
            self.occupied,
            banker_seat=self.banker_seat,
            seat_count=self.seat_count,
            betting_from=self.betting_from,
        )


def spectator_bet_refusal(
    profile: Profile,
    seating: Callable[[], Seating],
    *,
    have_bet: Collection[int | None],
    round_over: bool,
    consent: bool,
) -> tuple[str, Sentence] | None:
    """Why a spectator's plain bet is not taken now, with the request's field it is about, or None.

    Spectators never pre-empt seated players (docs/rules.md §2): a spectator's bet is taken only on
    what is left once every seated punter has had his turn — each has bet (``have_bet``: the seats
    that have; ``seating`` reads the coup's seating, asked only when the ruling needs it), or the
    croupier says the seated round is over (``round_over``: the rest passed; said once, it holds
    for the coup) — and, where the profile wants it (the club), only with the banker's
    ``consent``. A profile where spectators do not bet at all is the machine's refusal
    (:func:`chemin_de_fer.engine.machine.apply`), in its own words: None here. A banco is not
    concerned: its priority puts the seated first
    (:func:`chemin_de_fer.engine.settlement.banco_winner`)."""
    if not profile.spectators_bet:
        return None
    if profile.spectator_needs_consent and not consent:
        return "consent", said(
            "Under the {profile} profile a spectator bets only with the banker's consent.",
            profile=Word(profile.slug, "profile"),
        )
    if round_over:
        return None
    waiting = seats_yet_to_bet(seating().order(), have_bet=have_bet)
    if not waiting:
        return None
    if len(waiting) > 1:
        return "spectator", said(
            "Spectators bet only on what is left once every seated punter has had a turn: "
            "seats {seats} to go (or say the seated round is over).",
            seats=Listing(waiting),
        )
    return "spectator", said(
        "Spectators bet only on what is left once every seated punter has had a turn: "
        "seat {seats} to go (or say the seated round is over).",
        seats=Listing(waiting),
    )


@dataclass(frozen=True, slots=True)
class SuiviClaim:
    """A banco caller as the suivi rule sees him: who he is (any identity the floor keeps of a
    person across coups), his name to say, and whether he calls it suivi."""

    person: Hashable
    name: str
    suivi: bool


def suivi_refusal(
    callers: Sequence[SuiviClaim], *, previous_banco: tuple[Hashable, Outcome] | None
) -> Sentence | None:
    """Why a caller may not claim a banco suivi, or None: a suivi belongs to the punter who called
    banco on the previous coup and lost it (docs/rules.md §3). ``previous_banco``: who called banco
    on the previous coup of the session and how that coup ended (None: no banco, or no coup)."""
    loser = previous_banco[0] if previous_banco is not None and previous_banco[1] is Outcome.BANKER else None
    for caller in callers:
        if caller.suivi and caller.person != loser:
            return said("{player} did not lose a banco on the previous coup.", player=caller.name)
    return None
