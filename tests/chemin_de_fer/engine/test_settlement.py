"""Settlement, levy, active punter and banco priority (docs/rules.md §2, §6)."""

from __future__ import annotations

from typing import Any

import pytest

from chemin_de_fer.engine.coup import Outcome, Stake
from chemin_de_fer.engine.judge import Rules, judge_coup
from chemin_de_fer.engine.profiles import BUILTIN, CASINO, Rounding
from chemin_de_fer.engine.settlement import (
    BancoCaller,
    LevyTerms,
    active_punter,
    banco_winner,
    settle,
    spectator_bank_share,
)

from .cardkit import RecordKwargs, record, record_kwargs


@pytest.mark.parametrize(
    ("covered", "rate_bp", "rounding", "unit", "expected"),
    [
        (200, 500, Rounding.DOWN, 1, 10),
        (199, 500, Rounding.DOWN, 1, 9),  # 9.95 rounds down
        (199, 500, Rounding.NEAREST, 1, 10),
        (190, 500, Rounding.NEAREST, 1, 10),  # 9.5: half a chip rounds up
        (189, 500, Rounding.NEAREST, 1, 9),  # 9.45
        (1000, 500, Rounding.DOWN, 25, 50),
        (990, 500, Rounding.DOWN, 25, 25),  # 49.5 -> 25-chip unit: 25
        (990, 500, Rounding.NEAREST, 25, 50),  # 49.5 is nearer 50 than 25
        (19, 500, Rounding.DOWN, 1, 0),
        (100, 0, Rounding.DOWN, 1, 0),
    ],
)
def test_levy_rounding(covered: int, rate_bp: int, rounding: Rounding, unit: int, expected: int) -> None:
    assert (
        LevyTerms(rate_bp=rate_bp, rounding=rounding, chip_unit=unit).levy(covered, first_coup_of_bank=False)
        == expected
    )


def test_levy_half_chip_exactly_rounds_up() -> None:
    # 5 % of 250 = 12.5 chips, chip unit 25: 12.5 is half a unit -> rounds up to 25
    assert (
        LevyTerms(rate_bp=500, rounding=Rounding.NEAREST, chip_unit=25).levy(250, first_coup_of_bank=False)
        == 25
    )


def test_first_coup_exemption() -> None:
    terms = LevyTerms(rate_bp=500, first_coup_exempt=True)
    assert terms.levy(200, first_coup_of_bank=True) == 0
    assert terms.levy(200, first_coup_of_bank=False) == 10
    assert LevyTerms(rate_bp=500).levy(200, first_coup_of_bank=True) == 10


def _settle(outcome: Outcome, **kw):
    defaults: dict[str, Any] = {  # settle's keyword arguments, as the tests vary them
        "bank": 200,
        "bets": (Stake("seat-4", 120), Stake("seat-7", 50), Stake("spectator-2", 30, True)),
        "levy": LevyTerms.for_profile(CASINO),
        "uncovered_to_reserve": False,
    }
    defaults.update(kw)
    return settle(outcome=outcome, **defaults)


def test_banker_win_casino() -> None:
    s = _settle(Outcome.BANKER)
    assert (s.covered, s.uncovered, s.tax, s.banker_net, s.next_bank_min) == (200, 0, 10, 190, 390)
    assert dict(s.punters) == {"seat-4": -120, "seat-7": -50, "spectator-2": -30}


def test_player_win_pays_each_stake() -> None:
    s = _settle(Outcome.PLAYER)
    assert (s.tax, s.banker_net, s.next_bank_min) == (0, -200, None)
    assert dict(s.punters) == {"seat-4": 120, "seat-7": 50, "spectator-2": 30}


def test_tie_returns_everything() -> None:
    s = _settle(Outcome.TIE, bank=250)
    assert (s.covered, s.uncovered, s.tax, s.banker_net, s.next_bank_min) == (200, 50, 0, 0, 250)
    assert set(s.punters.values()) == {0}


def test_uncovered_part_to_reserve_home_example() -> None:
    """The home rule sheet's example: bank 20 covered 12 -> reserve 8; a win gives 12; the next bank
    is at least 24."""
    s = settle(
        outcome=Outcome.BANKER,
        bank=20,
        bets=(Stake("seat-2", 7), Stake("seat-3", 5)),
        levy=LevyTerms.for_profile(BUILTIN["home"]),
        uncovered_to_reserve=True,
    )
    assert (s.covered, s.uncovered, s.tax, s.banker_net, s.next_bank_min) == (12, 8, 0, 12, 24)
    tie = settle(
        outcome=Outcome.TIE,
        bank=20,
        bets=(Stake("seat-2", 7), Stake("seat-3", 5)),
        levy=LevyTerms(),
        uncovered_to_reserve=True,
    )
    assert tie.next_bank_min == 12


def test_house_limit_caps_the_next_bank() -> None:
    s = _settle(Outcome.BANKER, house_limit=300)
    assert s.next_bank_min == 300
    assert _settle(Outcome.TIE, house_limit=150).next_bank_min == 150


def test_bets_beyond_the_bank_cannot_be_settled() -> None:
    with pytest.raises(ValueError, match="exceed"):
        _settle(Outcome.BANKER, bank=100)


def test_a_punter_who_bet_twice_is_summed() -> None:
    s = _settle(Outcome.PLAYER, bets=(Stake("a", 50), Stake("b", 20), Stake("a", 30)))
    assert dict(s.punters) == {"a": 80, "b": 20}


def test_club_active_punter_stood_on_five_and_lost_reimburses_the_others() -> None:
    rules = Rules.for_profile(BUILTIN["club"])
    rec = record(
        profile="club",
        bank=100,
        bets=(("seat-2", 40), ("seat-5", 30), ("seat-9", 20)),
        player=("2H", "3C"),  # 5: his option
        player_action="stand",
        banker=("4D", "3S"),  # 7 beats 5
        banker_action="stand",
    )
    s = judge_coup(rec, rules).settlement
    assert s is not None
    assert (s.covered, s.banker_net, s.tax) == (90, 90, 0)
    assert dict(s.punters) == {"seat-2": -90, "seat-5": 0, "seat-9": 0}
    assert dict(s.reimbursed) == {"seat-5": 30, "seat-9": 20}
    # drawing on 5 and losing: each loses his own stake
    drew_kwargs: RecordKwargs = {**record_kwargs(rec), "player": ("2H", "3C", "KD"), "player_action": "draw"}
    drew = record(**drew_kwargs)
    s2 = judge_coup(drew, rules).settlement
    assert s2 is not None and dict(s2.punters) == {"seat-2": -40, "seat-5": -30, "seat-9": -20}


def test_club_spectator_share_of_the_bank() -> None:
    """The club rule set's example: bank 10 with 3 from a spectator; after three wins it is 80; he
    takes 24."""
    assert spectator_bank_share(bank=80, contributed=3, initial_bank=10) == 24
    assert 80 - spectator_bank_share(bank=80, contributed=3, initial_bank=10) == 56
    assert spectator_bank_share(bank=25, contributed=1, initial_bank=3) == 8  # 8.33 -> 8
    with pytest.raises(ValueError):
        spectator_bank_share(bank=80, contributed=10, initial_bank=10)


@pytest.mark.parametrize(
    ("bets", "expected"),
    [
        ((Stake("a", 20), Stake("b", 30), Stake("c", 30)), "b"),  # largest; tie goes to the earlier
        ((Stake("a", 20), Stake("s", 90, True), Stake("c", 30)), "c"),  # spectator never plays beside seated
        ((Stake("s", 100, True),), "s"),  # ... unless he is the sole bettor (banco)
        ((Stake("a", 20), Stake("b", 30), Stake("a", 15)), "a"),  # a's 35 in total
        ((Stake("a", 10), Stake("b", 10)), "a"),
    ],
)
def test_active_punter(bets: tuple[Stake, ...], expected: str) -> None:
    assert active_punter(bets) == expected


def test_wrong_active_punter_is_reported() -> None:
    rules = Rules.for_profile(CASINO)
    rec = record(
        player=("2H", "3C", "KD"),
        player_action="draw",
        banker=("4D", "3S"),
        banker_action="stand",
        active_punter="seat-2",
    )
    v = judge_coup(rec, rules)
    assert [(x.code.value, x.side, x.detail) for x in v.violations] == [
        ("WRONG_ACTIVE_PUNTER", "punters", "seat-1 plays, not seat-2")
    ]
    assert v.restored is None  # not a game violation: nothing to restore


@pytest.mark.parametrize(
    ("callers", "suivi_on", "expected"),
    [
        ((BancoCaller("a", order=3), BancoCaller("b", order=1)), False, "b"),
        ((BancoCaller("s", spectator=True, order=0), BancoCaller("b", order=5)), False, "b"),
        ((BancoCaller("b", order=0), BancoCaller("x", suivi=True, order=4)), True, "x"),
        ((BancoCaller("b", order=0), BancoCaller("x", suivi=True, order=4)), False, "b"),
        ((BancoCaller("s", spectator=True, suivi=True, order=2), BancoCaller("b", order=5)), True, "s"),
    ],
)
def test_banco_priority(callers: tuple[BancoCaller, ...], suivi_on: bool, expected: str) -> None:
    assert banco_winner(callers, banco_suivi=suivi_on).punter == expected


def test_settlement_always_sums_to_zero_with_reimbursement() -> None:
    for outcome in Outcome:
        s = settle(
            outcome=outcome,
            bank=100,
            bets=(Stake("a", 40), Stake("b", 35), Stake("c", 25)),
            levy=LevyTerms(rate_bp=500),
            uncovered_to_reserve=True,
            reimbursing_punter="a",
        )
        assert s.banker_net + sum(s.punters.values()) + s.tax == 0
