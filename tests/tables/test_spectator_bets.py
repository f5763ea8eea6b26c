"""Spectators never pre-empt seated players (RULES.md §2): a spectator's plain bet is taken only on
what is left once every seated punter has had his turn, and in the club only with the banker's
consent."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from chemin_de_fer.engine.settlement import active_punter
from tables import services
from tables.models import Bet, Coup

from .play import Floor, K, open_floor, row_counts, step

pytestmark = pytest.mark.django_db


def start(floor: Floor, bank: int) -> Coup:
    return services.coup_start(actor=floor.croupier, session=floor.session, amount=bank).coup


def refused(floor: Floor, coup: Coup, **fields) -> dict[str, list[str]]:
    """Record a bet that must be refused; prove that nothing changed and return the refusal."""
    before = row_counts()
    with pytest.raises(ValidationError) as refusal:
        step(floor, coup, K.BET, **fields)
    assert row_counts() == before
    return refusal.value.message_dict


def test_a_spectator_may_not_take_the_whole_bank_before_the_seated(croupier, table) -> None:
    """RULES.md §2 (seed 000): measured before, a spectator's plain bet of the whole bank was
    accepted before any seated punter and then played the hand. Refused now, nothing written."""
    floor = open_floor(croupier, table, spectators=1)
    coup = start(floor, 100)
    spectator = floor.spectators[0].pk
    assert refused(floor, coup, spectator=spectator, amount=100) == {
        "spectator": [
            "Spectators bet only on what is left once every seated punter has had a turn: "
            "seats 4, 3, 2 to go (or say the seated round is over)."
        ]
    }
    step(floor, coup, K.BET, seat=4, amount=30)  # the casino bets from the banker's right
    assert refused(floor, coup, spectator=spectator, amount=70)["spectator"][0].endswith(
        "seats 3, 2 to go (or say the seated round is over)."
    )


def test_a_spectator_bets_once_every_seat_has_bet(croupier, table) -> None:
    """RULES.md §2: every seated punter had his turn (each bet): the spectator takes what is left,
    and the largest seated bettor plays the hand."""
    floor = open_floor(croupier, table, spectators=1)
    coup = start(floor, 100)
    for seat, amount in ((4, 10), (3, 20), (2, 30)):
        step(floor, coup, K.BET, seat=seat, amount=amount)
    result = step(floor, coup, K.BET, spectator=floor.spectators[0].pk, amount=40)
    assert result.state.uncovered == 0
    assert "seated_round_over" not in result.step.payload
    assert [b.amount for b in Bet.objects.filter(coup=coup).order_by("betting_order")] == [10, 20, 30, 40]


def test_the_croupier_says_the_seated_round_is_over(croupier, table) -> None:
    """RULES.md §2: the seats that did not bet passed; once the croupier says so (a flag on the
    spectator's bet, kept in its step), spectators take the rest of the bank."""
    floor = open_floor(croupier, table, spectators=2)
    coup = start(floor, 100)
    step(floor, coup, K.BET, seat=3, amount=20)
    first = step(floor, coup, K.BET, spectator=floor.spectators[0].pk, amount=50, seated_round_over=True)
    assert first.step.payload["seated_round_over"] is True
    # said once, it holds for the coup: the second spectator needs no flag
    second = step(floor, coup, K.BET, spectator=floor.spectators[1].pk, amount=30)
    assert second.state.uncovered == 0


def test_a_spectator_may_still_call_banco(croupier, table) -> None:
    """RULES.md §2: the rule is about plain bets; a banco's priority already puts the seated first."""
    floor = open_floor(croupier, table, spectators=1)
    coup = start(floor, 100)
    result = step(floor, coup, K.BANCO, callers=(services.Caller(spectator=floor.spectators[0].pk),))
    assert result.state.banco and result.state.bets[0].spectator


def test_a_club_spectator_bets_only_with_the_bankers_consent(croupier, club_table) -> None:
    """RULES.md §2 (seed 002): the club profile's ``spectator_needs_consent``: refused without the
    banker's consent even once the seated round is over; accepted with it."""
    floor = open_floor(croupier, club_table, seats=(1, 2, 3), spectators=1)
    coup = start(floor, 10)
    spectator = floor.spectators[0].pk
    step(floor, coup, K.BET, seat=2, amount=4)
    assert refused(floor, coup, spectator=spectator, amount=6, seated_round_over=True) == {
        "consent": ["Under the club profile a spectator bets only with the banker's consent."]
    }
    assert "spectator" in refused(floor, coup, spectator=spectator, amount=6, consent=True)
    result = step(floor, coup, K.BET, spectator=spectator, amount=6, consent=True, seated_round_over=True)
    assert (result.step.payload["consent"], result.step.payload["seated_round_over"]) == (True, True)


def test_in_the_club_the_seated_bettor_plays_the_hand_not_the_larger_spectator(croupier, club_table) -> None:
    """RULES.md §2 (seed 002): the largest seated bettor always plays: seat 2's 4 chips play
    against the spectator's 6, and settle with the spectator's at the same outcome."""
    floor = open_floor(croupier, club_table, seats=(1, 2, 3), spectators=1)
    coup = start(floor, 10)
    step(floor, coup, K.BET, seat=2, amount=4)
    step(floor, coup, K.BET, spectator=floor.spectators[0].pk, amount=6, consent=True, seated_round_over=True)
    step(floor, coup, K.BETS_CLOSED)
    for kind, card in ((K.CARD_TO_PLAYER, "4H"), (K.CARD_TO_BANKER, "AD"), (K.CARD_TO_PLAYER, "5C")):
        step(floor, coup, kind, card=card)
    step(floor, coup, K.CARD_TO_BANKER, card="6S")
    step(floor, coup, K.PLAYER_NATURAL)
    result = step(floor, coup, K.REVEAL)
    assert active_punter(result.state.bets) == "seat-2"
    assert result.verdict is not None and result.verdict.settlement is not None
    spectator_key = f"spectator-{floor.spectators[0].pk}"
    assert result.verdict.settlement.punters == {"seat-2": 4, spectator_key: 6}
