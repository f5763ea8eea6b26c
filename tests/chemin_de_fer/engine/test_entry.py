"""A step as entered, judged into the machine's step in one call (chemin_de_fer.engine.entry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chemin_de_fer.engine.coup import Outcome
from chemin_de_fer.engine.entry import Entry, EntryRefused, Judged, Punter, Table, card_judge, entry_judge
from chemin_de_fer.engine.judge import Rules
from chemin_de_fer.engine.machine import CoupProgress, Move, Step, apply, new_coup, replay
from chemin_de_fer.engine.order import SPECTATOR_TURN
from chemin_de_fer.engine.profiles import BUILTIN, Side
from chemin_de_fer.engine.settlement import BancoCaller

K = Move
#: nine seats, the banker at seat 4, betting from his right (the casino profile's side)
NINE = Table(banker_seat=4, seat_count=9, betting_from=Side.RIGHT)
ALICE = Punter("seat-3", 3, person=11, name="Alice")
BORIS = Punter("seat-6", 6, person=12, name="Boris")
CLARA = Punter("spectator-7", None, person=13, name="Clara")
#: what core.cards says a card looks like, after "bad card 'ZZ'"
CARD_HINT = ": a card is a rank (A, 2-9, T or 10, J, Q, K) and a suit (S, H, D, C), e.g. 9H"


def declared(
    profile: str = "casino", bank: int = 100, bets: tuple[tuple[str, int], ...] = ()
) -> CoupProgress:
    steps = [Step(K.BANK_DECLARED, amount=bank, punter="seat-4")]
    steps += [Step(K.BET, punter=p, amount=a, order=i + 1) for i, (p, a) in enumerate(bets)]
    return replay(new_coup(Rules.for_profile(BUILTIN[profile])), steps)


class Asked:
    """A fact the floor reads, counting the times the engine asked for it."""

    def __init__(self, value: Any) -> None:
        self.value, self.times = value, 0

    def __call__(self) -> Any:
        self.times += 1
        return self.value


def judge(
    state: CoupProgress,
    entry: Entry,
    *,
    occupied: Callable[[], tuple[int, ...]] | None = None,
    previous_banco: Callable[[], Any] | None = None,
) -> Judged:
    return entry_judge(
        state,
        entry,
        table=NINE,
        occupied=occupied or Asked((3, 4, 6)),
        previous_banco=previous_banco or Asked(None),
    )


def refusal(state: CoupProgress, entry: Entry, **facts: Any) -> tuple[str, str]:
    with pytest.raises(EntryRefused) as refused:
        judge(state, entry, **facts)
    return refused.value.field, str(refused.value.sentence)


# ------------------------------------------------------------------------------------------- a bet
def test_a_seated_bet_is_the_machines_step_with_its_place_in_the_order() -> None:
    occupied = Asked((3, 4, 6))
    judged = judge(declared(), Entry(K.BET, amount=40, punters=(ALICE,)), occupied=occupied)
    # betting from the banker's right: seat 3 is his first neighbour on that side
    assert judged == Judged(
        Step(K.BET, amount=40, punter="seat-3", spectator=False, order=1),
        {"punter": "seat-3", "amount": 40, "spectator": False, "order": 1},
        ALICE,
    )
    assert occupied.times == 0  # a seated bet never asks who sits where


@pytest.mark.parametrize("amount", [0, -5, 2.5, "40", None, True])
def test_a_bet_is_a_positive_whole_number_of_chips(amount: object) -> None:
    assert refusal(declared(), Entry(K.BET, amount=amount, punters=(ALICE,))) == (
        "amount",
        "A bet is a positive whole number of chips.",
    )


def test_a_bet_above_what_is_left_of_the_bank_names_the_amount() -> None:
    state = declared(bets=(("seat-6", 70),))
    assert refusal(state, Entry(K.BET, amount=31, punters=(ALICE,))) == (
        "amount",
        "only 30 of the bank is left to cover",
    )
    assert judge(state, Entry(K.BET, amount=30, punters=(ALICE,))).step.amount == 30


def test_a_spectator_waits_for_the_seated_and_is_told_who_is_left() -> None:
    occupied = Asked((3, 4, 6))
    field, sentence = refusal(declared(), Entry(K.BET, amount=10, punters=(CLARA,)), occupied=occupied)
    assert (field, sentence) == (
        "spectator",
        "Spectators bet only on what is left once every seated punter has had a turn: "
        "seats 3, 6 to go (or say the seated round is over).",
    )
    assert occupied.times == 1


def test_a_spectator_bets_once_the_round_is_said_over_and_the_payload_keeps_it() -> None:
    judged = judge(declared(), Entry(K.BET, amount=10, punters=(CLARA,), round_over=True))
    assert judged.step == Step(K.BET, amount=10, punter="spectator-7", spectator=True, order=SPECTATOR_TURN)
    assert judged.payload == {
        "punter": "spectator-7",
        "amount": 10,
        "spectator": True,
        "order": SPECTATOR_TURN,
        "seated_round_over": True,
    }


def test_the_round_said_over_with_an_earlier_bet_holds_for_the_coup() -> None:
    judged = judge(declared(), Entry(K.BET, amount=10, punters=(CLARA,), round_said_before=True))
    assert "seated_round_over" not in judged.payload  # said before, not with this bet
    assert judged.punter == CLARA


def test_a_club_spectator_needs_the_bankers_consent() -> None:
    club = declared("club")
    entry = Entry(K.BET, amount=10, punters=(CLARA,), round_over=True)
    assert refusal(club, entry) == (
        "consent",
        "Under the club profile a spectator bets only with the banker's consent.",
    )
    consented = judge(club, Entry(K.BET, amount=10, punters=(CLARA,), round_over=True, consent=True))
    assert consented.payload["consent"] is True


def test_a_historys_spectator_is_not_held_to_the_live_order() -> None:
    history = replay(
        new_coup(Rules.for_profile(BUILTIN["casino"]), historical=True),
        [Step(K.BANK_DECLARED, amount=100, punter="seat-4")],
    )
    occupied = Asked((3, 4, 6))
    judged = judge(history, Entry(K.BET, amount=10, punters=(CLARA,)), occupied=occupied)
    assert judged.step.spectator is True and occupied.times == 0


# ----------------------------------------------------------------------------------------- a banco
def test_a_banco_goes_to_the_seated_first_in_the_betting_order() -> None:
    judged = judge(declared(), Entry(K.BANCO, punters=(CLARA, BORIS, ALICE)))
    assert judged.punter == ALICE  # seat 3 bets before seat 6; a spectator comes last
    assert judged.step == Step(
        K.BANCO,
        callers=(
            BancoCaller("spectator-7", spectator=True, order=SPECTATOR_TURN),
            BancoCaller("seat-6", order=7),
            BancoCaller("seat-3", order=1),
        ),
    )
    assert judged.payload["winner"] == "seat-3"
    assert [c["punter"] for c in judged.payload["callers"]] == ["spectator-7", "seat-6", "seat-3"]


def test_a_banco_names_who_called_it() -> None:
    assert refusal(declared(), Entry(K.BANCO)) == ("callers", "Name who called banco.")


@pytest.mark.parametrize(
    ("previous", "refused"),
    [
        ((12, Outcome.BANKER), False),  # Boris called banco last coup and lost it: his suivi
        ((12, Outcome.PLAYER), True),  # he won it: no suivi
        ((11, Outcome.BANKER), True),  # somebody else lost it
        (None, True),  # nobody called banco last coup
    ],
)
def test_a_suivi_belongs_to_the_last_coups_banco_loser(previous: Any, refused: bool) -> None:
    home = declared("home")
    entry = Entry(K.BANCO, punters=(Punter("seat-6", 6, person=12, name="Boris", suivi=True),))
    asked = Asked(previous)
    if refused:
        assert refusal(home, entry, previous_banco=asked) == (
            "callers",
            "Boris did not lose a banco on the previous coup.",
        )
    else:
        assert judge(home, entry, previous_banco=asked).payload["callers"][0]["suivi"] is True
    assert asked.times == 1


def test_the_previous_coup_is_read_only_for_a_suivi() -> None:
    asked = Asked((12, Outcome.BANKER))
    judge(declared("home"), Entry(K.BANCO, punters=(BORIS,)), previous_banco=asked)
    assert asked.times == 0


# ------------------------------------------------------------------------------------------ a card
@pytest.mark.parametrize(
    ("typed", "code"), [("9h", "9H"), ("td", "TD"), ("10D", "TD"), ("ks", "KS"), ("As", "AS")]
)
def test_a_card_as_typed_is_its_code(typed: str, code: str) -> None:
    state = replay(declared(bets=(("seat-3", 100),)), [Step(K.BETS_CLOSED)])
    judged = judge(state, Entry(K.CARD_TO_PLAYER, card=typed))
    assert (judged.step, judged.payload, judged.punter) == (
        Step(K.CARD_TO_PLAYER, card=code),
        {"card": code},
        None,
    )


@pytest.mark.parametrize(
    ("typed", "sentence"),
    [
        (None, "Which card?"),
        ("", "Which card?"),
        # the refusal says what a card looks like, so the croupier knows how to go on
        ("ZZ", "bad card 'ZZ'" + CARD_HINT),
        ("11S", "bad card '11S'" + CARD_HINT),
        # the ace is A: a 1 is no card, typed or in a record (RULES.md §11: one reading everywhere)
        ("1H", "bad card '1H'" + CARD_HINT),
    ],
)
def test_a_card_that_is_not_one_names_the_card_field(typed: str | None, sentence: str) -> None:
    with pytest.raises(EntryRefused) as refused:
        card_judge(typed)
    assert (refused.value.field, refused.value.sentence) == ("card", sentence)


def test_any_other_step_is_the_machines_step_with_nothing_stored() -> None:
    assert judge(declared(bets=(("seat-3", 100),)), Entry(K.BETS_CLOSED)) == Judged(Step(K.BETS_CLOSED), {})


# ------------------------------------------------------------------------------------ a property
@given(
    amount=st.integers(min_value=1, max_value=100),
    seat=st.sampled_from([1, 2, 3, 5, 6, 7, 8, 9]),
)
def test_what_the_engine_takes_the_machine_applies(amount: int, seat: int) -> None:
    """Every seated bet the entry judge takes is a step the machine applies, at the bettor's
    place in the order, for the amount entered."""
    state = declared()
    punter = Punter(f"seat-{seat}", seat, person=seat, name=f"Seat {seat}")
    judged = judge(state, Entry(K.BET, amount=amount, punters=(punter,)))
    after = apply(state, judged.step)
    assert [(b.punter, b.amount) for b in after.bets] == [(f"seat-{seat}", amount)]
    assert judged.payload["order"] == NINE_ORDER[seat]


#: the order of each seat at NINE: from the banker's (seat 4) right, seat 3 first, round the table
NINE_ORDER = {3: 1, 2: 2, 1: 3, 9: 4, 8: 5, 7: 6, 6: 7, 5: 8}
