"""The rating slip's arithmetic (tables/rating.py), on facts small enough to rate by hand."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

from tables.gaming_day import GamingCalendar
from tables.rating import CoupPlayed, FeePaid, Pause, RatingLine, Stay, rating_slip

UTC = dt.UTC
CAL = GamingCalendar(cutoff=dt.time(6, 0), time_zone="UTC")
DAY = dt.date(2026, 12, 1)


def at(day: int, h: int, m: int = 0, s: int = 0) -> dt.datetime:
    return dt.datetime(2026, 12, day, h, m, s, tzinfo=UTC)


def test_time_seated_subtracts_pauses_and_splits_at_the_cutoff() -> None:
    # seated 1 Dec 22:00:00 to 2 Dec 07:30:15; paused 23:00:00-23:12:30 and 05:50:00-06:10:00
    slip = rating_slip(
        first=DAY,
        last=dt.date(2026, 12, 2),
        calendar=CAL,
        stays=[Stay(7, at(1, 22), at(2, 7, 30, 15))],
        pauses=[
            Pause(7, at(1, 23), at(1, 23, 12, 30)),
            Pause(7, at(2, 5, 50), at(2, 6, 10)),
            Pause(8, at(1, 22), at(2, 7)),
        ],
        coups=[],
        fees=[],
    )
    # day 1 Dec (until 06:00): 8 h less 12 min 30 s less 10 min = 7 h 37 min 30 s
    # day 2 Dec (from 06:00): 1 h 30 min 15 s less 10 min = 1 h 20 min 15 s
    assert [(d.day, d.seconds) for d in slip.days] == [
        (DAY, 7 * 3600 + 37 * 60 + 30),
        (dt.date(2026, 12, 2), 3600 + 20 * 60 + 15),
    ]
    assert [(s.session_id, s.seconds) for s in slip.sessions] == [(7, 8 * 3600 + 57 * 60 + 45)]
    assert slip.total.seconds == 8 * 3600 + 57 * 60 + 45


def test_period_keeps_only_its_days() -> None:
    slip = rating_slip(
        first=dt.date(2026, 12, 2),
        last=dt.date(2026, 12, 2),
        calendar=CAL,
        stays=[Stay(7, at(2, 5), at(2, 6, 0, 42))],
        pauses=[],
        coups=[
            CoupPlayed(7, at(2, 5, 30), stake=50, banked=False, net=-50),
            CoupPlayed(7, at(2, 6, 0, 1), stake=20, banked=False, net=20),
        ],
        fees=[FeePaid(7, at(2, 5), 30), FeePaid(7, at(2, 6), 40)],
    )
    assert slip.total.seconds == 42
    assert (slip.total.coups, slip.total.staked, slip.total.net, slip.total.fees) == (1, 20, 20, 40)
    assert [d.day for d in slip.days] == [dt.date(2026, 12, 2)]


def test_stakes_results_levy_and_theory() -> None:
    third = Fraction(1, 3)
    coups = [
        CoupPlayed(1, at(1, 21), stake=0, banked=True, net=190, levy=10, expected_levy=third),
        CoupPlayed(1, at(1, 22), stake=0, banked=True, net=-100, levy=0, expected_levy=third),
        CoupPlayed(1, at(1, 23), stake=120, banked=False, net=-120),
        CoupPlayed(2, at(2, 1), stake=75, banked=False, net=75),
        CoupPlayed(2, at(2, 2), stake=10, banked=False, net=-10),
    ]
    slip = rating_slip(
        first=DAY, last=DAY, calendar=CAL, stays=[], pauses=[], coups=coups, fees=[FeePaid(2, at(2, 1), 25)]
    )
    t = slip.total
    assert (t.coups, t.banked, t.bets, t.staked, t.largest_stake, t.net, t.levy, t.fees) == (
        5,
        2,
        3,
        205,
        120,
        35,
        10,
        25,
    )
    assert t.average_stake == Fraction(205, 3)
    assert t.expected_levy == Fraction(2, 3)
    assert t.theoretical == Fraction(77, 3)
    assert t.actual == 35
    one, two = slip.sessions
    assert (one.session_id, one.coups, one.banked, one.staked, one.net, one.levy, one.fees) == (
        1,
        3,
        2,
        120,
        -30,
        10,
        0,
    )
    assert (two.session_id, two.coups, two.banked, two.staked, two.net, two.average_stake, two.fees) == (
        2,
        2,
        0,
        85,
        65,
        Fraction(85, 2),
        25,
    )
    assert one.average_stake == 120
    assert [d.day for d in slip.days] == [DAY]


def test_nothing_in_the_period_is_an_empty_slip() -> None:
    slip = rating_slip(first=DAY, last=DAY, calendar=CAL, stays=[], pauses=[], coups=[], fees=[])
    assert (slip.sessions, slip.days, slip.total.seconds, slip.total.average_stake) == ([], [], 0, None)


def test_lines_add_up() -> None:
    coups = [
        CoupPlayed(1, at(1, 21), stake=40, banked=False, net=40),
        CoupPlayed(1, at(1, 22), stake=0, banked=True, net=-7, levy=3, expected_levy=Fraction(1, 7)),
    ]
    one = rating_slip(
        first=DAY,
        last=DAY,
        calendar=CAL,
        stays=[Stay(1, at(1, 20), at(1, 21))],
        pauses=[],
        coups=coups,
        fees=[FeePaid(1, at(1, 21), 5)],
    ).total
    total = RatingLine()
    total.add_line(one)
    total.add_line(one)
    assert (total.seconds, total.coups, total.banked, total.bets, total.staked, total.largest_stake) == (
        7200,
        4,
        2,
        2,
        80,
        40,
    )
    assert (total.net, total.levy, total.fees, total.expected_levy, total.average_stake) == (
        66,
        6,
        10,
        Fraction(2, 7),
        40,
    )
