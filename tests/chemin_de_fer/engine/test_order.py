"""Who bets first and who is offered the bank next: tables of known answers, then properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chemin_de_fer.engine.coup import Outcome
from chemin_de_fer.engine.order import (
    SPECTATOR_TURN,
    Seating,
    SuiviClaim,
    betting_order,
    betting_turn,
    places_from,
    rotation_keeps_anchor,
    rotation_order,
    rotation_turn,
    seats_yet_to_bet,
    spectator_bet_refusal,
    suivi_refusal,
)
from chemin_de_fer.engine.profiles import CASINO, CLASSIC, CLUB, Side

L, R = Side.LEFT, Side.RIGHT
EXAMPLES = settings(max_examples=300, deadline=None)


# ------------------------------------------------------------------------------ the betting order
@pytest.mark.parametrize(
    ("seat", "banker", "count", "side", "turn"),
    [
        (5, 4, 9, L, 1),  # the banker's left neighbour is the next number up
        (3, 4, 9, L, 8),  # ... and his right neighbour bets last
        (3, 4, 9, R, 1),
        (5, 4, 9, R, 8),
        (1, 9, 9, L, 1),  # round the table past the last seat
        (9, 1, 9, R, 1),
        (4, 4, 9, L, 0),  # the banker's own seat
        (12, 1, 12, L, 11),
        (30, 15, 30, R, 15),
    ],
)
def test_betting_turn(seat: int, banker: int, count: int, side: Side, turn: int) -> None:
    assert betting_turn(seat=seat, banker_seat=banker, seat_count=count, betting_from=side) == turn


@pytest.mark.parametrize(
    ("seats", "banker", "count", "side", "order"),
    [
        (range(1, 10), 4, 9, L, [5, 6, 7, 8, 9, 1, 2, 3]),
        (range(1, 10), 4, 9, R, [3, 2, 1, 9, 8, 7, 6, 5]),
        ([7, 1, 3], 3, 9, L, [7, 1]),  # empty seats are skipped, the banker does not bet
        ([7, 1, 3], 3, 9, R, [1, 7]),
        ([2, 12], 12, 12, L, [2]),
        ([5], 5, 9, L, []),
    ],
)
def test_betting_order(seats: list[int], banker: int, count: int, side: Side, order: list[int]) -> None:
    assert betting_order(seats, banker_seat=banker, seat_count=count, betting_from=side) == order


def test_a_spectator_bets_after_every_seat() -> None:
    assert SPECTATOR_TURN > 30  # the largest table a built-in profile allows


@pytest.mark.parametrize(
    ("seats", "count", "side", "order"),
    [
        ([1, 2, 4, 9], 9, L, [1, 2, 4, 9]),  # the croupier sits between seat 9 and seat 1
        ([1, 2, 4, 9], 9, R, [9, 4, 2, 1]),
        ([12, 1], 12, R, [12, 1]),
    ],
)
def test_when_the_house_banks_every_seat_bets_from_the_croupiers_place(seats, count, side, order) -> None:
    """RULES.md §2: the house holds no seat; the croupier deals from his own place."""
    assert betting_order(seats, banker_seat=None, seat_count=count, betting_from=side) == order
    turns = [betting_turn(seat=s, banker_seat=None, seat_count=count, betting_from=side) for s in order]
    assert turns == sorted(turns) and all(1 <= t <= count for t in turns)


def test_the_seats_yet_to_bet_before_a_spectator() -> None:
    """RULES.md §2: spectators never pre-empt seated players: who is still to have his turn."""
    assert seats_yet_to_bet([4, 3, 2], have_bet={3, None}) == [4, 2]
    assert seats_yet_to_bet([4, 3, 2], have_bet={4, 3, 2}) == []
    assert seats_yet_to_bet([], have_bet=set()) == []


# ------------------------------------------------------------------------------ the bank's rotation
@pytest.mark.parametrize(
    ("seats", "anchor", "count", "side", "order"),
    [
        ([1, 2, 4, 6, 9], 4, 9, L, [6, 9, 1, 2, 4]),  # the anchor's own seat comes last
        ([1, 2, 4, 6, 9], 4, 9, R, [2, 1, 9, 6, 4]),
        ([9, 1], 9, 9, L, [1, 9]),
        ([3, 12, 1], 0, 12, L, [1, 3, 12]),  # nobody held the bank yet: as if from the last seat
        ([3, 12, 1], 0, 12, R, [3, 1, 12]),
        ([], 5, 9, L, []),
    ],
)
def test_rotation_order(seats: list[int], anchor: int, count: int, side: Side, order: list[int]) -> None:
    assert rotation_order(seats, anchor=anchor, seat_count=count, passes_to=side) == order


@pytest.mark.parametrize(
    ("seat", "anchor", "count", "side", "turn"),
    [(5, 4, 9, L, 1), (3, 4, 9, L, 8), (4, 4, 9, L, 9), (3, 4, 9, R, 1), (4, 4, 9, R, 9), (12, 0, 12, L, 12)],
)
def test_rotation_turn(seat: int, anchor: int, count: int, side: Side, turn: int) -> None:
    assert rotation_turn(seat, anchor=anchor, seat_count=count, passes_to=side) == turn


@pytest.mark.parametrize(
    ("passed", "taker", "order", "keeps"),
    [
        (True, 6, [5, 6, 7], True),  # a farther player takes a passed bank: 5 keeps his turn
        (True, 5, [5, 6, 7], False),  # the first neighbour takes it: the rotation counts from him
        (False, 6, [5, 6, 7], False),  # a lost bank: always from the new banker
        (False, 5, [5, 6, 7], False),
        (True, 5, [], False),
    ],
)
def test_rotation_keeps_anchor(passed: bool, taker: int, order: list[int], keeps: bool) -> None:
    assert rotation_keeps_anchor(passed=passed, taker=taker, order=order) is keeps


# ------------------------------------------------------------------------------ properties
@st.composite
def tables(draw: st.DrawFn) -> tuple[int, list[int], int]:
    """A table's seat count, its occupied seats (in any order) and one of them."""
    count = draw(st.integers(min_value=1, max_value=30))
    seats = draw(st.lists(st.integers(min_value=1, max_value=count), min_size=1, unique=True))
    return count, seats, draw(st.sampled_from(seats))


sides = st.sampled_from(list(Side))


@EXAMPLES
@given(tables(), sides)
def test_everybody_but_the_banker_bets_once_in_turn_order(
    table: tuple[int, list[int], int], side: Side
) -> None:
    count, seats, banker = table
    order = betting_order(seats, banker_seat=banker, seat_count=count, betting_from=side)
    assert sorted(order) == sorted(s for s in seats if s != banker)
    turns = [betting_turn(seat=s, banker_seat=banker, seat_count=count, betting_from=side) for s in order]
    assert turns == sorted(turns) and len(set(turns)) == len(turns)
    assert all(1 <= t < count for t in turns)


@EXAMPLES
@given(tables())
def test_betting_from_the_right_is_betting_from_the_left_backwards(table: tuple[int, list[int], int]) -> None:
    count, seats, banker = table
    left = betting_order(seats, banker_seat=banker, seat_count=count, betting_from=L)
    right = betting_order(seats, banker_seat=banker, seat_count=count, betting_from=R)
    assert right == left[::-1]


@EXAMPLES
@given(tables(), sides, st.integers(min_value=0, max_value=60))
def test_turning_the_table_changes_nobodys_place(
    table: tuple[int, list[int], int], side: Side, shift: int
) -> None:
    count, seats, anchor = table

    def turned(seat: int) -> int:
        return (seat - 1 + shift) % count + 1

    assert [turned(s) for s in rotation_order(seats, anchor=anchor, seat_count=count, passes_to=side)] == (
        rotation_order([turned(s) for s in seats], anchor=turned(anchor), seat_count=count, passes_to=side)
    )


@EXAMPLES
@given(tables(), sides)
def test_the_bank_goes_round_like_the_bets_and_back_to_its_anchor_last(
    table: tuple[int, list[int], int], side: Side
) -> None:
    count, seats, anchor = table
    order = rotation_order(seats, anchor=anchor, seat_count=count, passes_to=side)
    assert sorted(order) == sorted(seats)
    assert order[-1] == anchor
    assert order[:-1] == betting_order(seats, banker_seat=anchor, seat_count=count, betting_from=side)


@EXAMPLES
@given(st.integers(min_value=1, max_value=30), st.data())
def test_places_from_counts_steps_round_the_table(count: int, data: st.DataObject) -> None:
    anchor = data.draw(st.integers(min_value=1, max_value=count))
    seat = data.draw(st.integers(min_value=1, max_value=count))
    left = places_from(seat, anchor=anchor, seat_count=count, towards=L)
    right = places_from(seat, anchor=anchor, seat_count=count, towards=R)
    assert 0 <= left < count and 0 <= right < count
    assert (left + right) % count == 0  # one way round plus the other is the whole table
    assert (left == 0) is (seat == anchor)


# ----------------------------------------------------------- a spectator's bet, a banco suivi
def _spoken(found):
    """A refusal as (field, its English sentence), for exact comparisons."""
    if found is None:
        return None
    field, sentence = found
    return field, str(sentence)


def _unread() -> Seating:
    raise AssertionError("the seating was read where the ruling does not need it")


NINE = Seating(occupied=(1, 3, 4, 6), banker_seat=4, seat_count=9, betting_from=R)
WAIT = "Spectators bet only on what is left once every seated punter has had a turn: "


@pytest.mark.parametrize(
    ("profile", "have_bet", "round_over", "consent", "refusal"),
    [
        # the casino: spectators bet, no consent asked; the seated first (4 banks; right: 3, 1, 6)
        (
            CASINO,
            set(),
            False,
            False,
            ("spectator", WAIT + "seats 3, 1, 6 to go (or say the seated round is over)."),
        ),
        (
            CASINO,
            {3, 1},
            False,
            False,
            ("spectator", WAIT + "seat 6 to go (or say the seated round is over)."),
        ),
        (CASINO, {3, 1, 6}, False, False, None),
        (CASINO, set(), True, False, None),  # the croupier says the rest passed
        # the club: the banker's consent first, whatever the seated have done
        (
            CLUB,
            {3, 1, 6},
            False,
            False,
            ("consent", "Under the club profile a spectator bets only with the banker's consent."),
        ),
        (CLUB, {3, 1, 6}, False, True, None),
        (
            CLUB,
            set(),
            False,
            True,
            ("spectator", WAIT + "seats 3, 1, 6 to go (or say the seated round is over)."),
        ),
        # a profile where spectators do not bet: the machine's refusal, not this one
        (CLASSIC, set(), False, False, None),
    ],
)
def test_a_spectator_bets_after_the_seated(profile, have_bet, round_over, consent, refusal) -> None:
    found = spectator_bet_refusal(
        profile, lambda: NINE, have_bet=have_bet, round_over=round_over, consent=consent
    )
    assert _spoken(found) == refusal


def test_a_spectator_waits_for_every_seat_when_the_house_banks() -> None:
    house = Seating(occupied=(2, 9), banker_seat=None, seat_count=9, betting_from=L)
    assert house.order() == [2, 9]
    assert _spoken(
        spectator_bet_refusal(CASINO, lambda: house, have_bet={2}, round_over=False, consent=False)
    ) == (
        "spectator",
        WAIT + "seat 9 to go (or say the seated round is over).",
    )


@given(
    occupied=st.sets(st.integers(1, 12), max_size=12),
    banker=st.one_of(st.none(), st.integers(1, 12)),
    side=st.sampled_from(list(Side)),
    bet=st.sets(st.integers(1, 12)),
)
@EXAMPLES
def test_once_every_seat_but_the_bankers_has_bet_a_spectator_may(occupied, banker, side, bet) -> None:
    seating = Seating(occupied=tuple(sorted(occupied)), banker_seat=banker, seat_count=12, betting_from=side)
    found = spectator_bet_refusal(CASINO, lambda: seating, have_bet=bet, round_over=False, consent=False)
    assert (found is None) == (set(occupied) - {banker} <= bet)
    # said over, the round is over: the seats are not even read
    assert spectator_bet_refusal(CASINO, _unread, have_bet=set(), round_over=True, consent=False) is None


ANNA, BORIS = SuiviClaim(person=7, name="Anna", suivi=True), SuiviClaim(person=9, name="Boris", suivi=True)


@pytest.mark.parametrize(
    ("callers", "previous", "refusal"),
    [
        ([ANNA], (7, Outcome.BANKER), None),  # Anna called banco last coup and lost it
        ([ANNA], (7, Outcome.PLAYER), "Anna did not lose a banco on the previous coup."),  # she won it
        ([ANNA], (9, Outcome.BANKER), "Anna did not lose a banco on the previous coup."),  # Boris lost it
        ([ANNA], None, "Anna did not lose a banco on the previous coup."),  # no banco last coup
        ([BORIS, ANNA], (7, Outcome.BANKER), "Boris did not lose a banco on the previous coup."),
        ([SuiviClaim(person=9, name="Boris", suivi=False), ANNA], (7, Outcome.BANKER), None),  # a plain banco
    ],
)
def test_a_banco_suivi_belongs_to_the_last_coups_loser(callers, previous, refusal) -> None:
    found = suivi_refusal(callers, previous_banco=previous)
    assert (None if found is None else str(found)) == refusal
