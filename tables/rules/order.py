"""Who goes next round the table: the betting order and the bank's rotation (docs/rules.md §2, §7).

Seats are numbered clockwise from 1 to the table's seat count, so a seat's left neighbour is the
next number up (see :class:`~tables.rules.profiles.Side`). Both orders count places from one seat
towards one side, wrapping round the table; everything here works on seat numbers only.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from tables.rules.profiles import Side

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
