"""A player's rating slip (docs/review.md, "A player's rating"), computed from plain facts: pure
Python, no Django, so the figures can be checked by hand and the same arithmetic serves the player's
page, the API and the report. The facts are read by ``tables.selectors.player_rating``.

Per table session and per gaming day, and in total over a period of gaming days: the time he sat
(his seat's stretches less the session's pauses, to the second), the coups he played (a bet, or the
bank), the coups he banked, his total, average and largest stake, his net result, the levy and fees
he paid, and the house's theoretical revenue from him (the expected levy of the banks he held, as
the odds engine prices it for the coup's profile, shoe and rate, plus the fees due) beside the
actual (levy and fees charged).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol


class Calendar(Protocol):
    """What the slip asks of a casino's gaming calendar (``tables.gaming_day.GamingCalendar``)."""

    def day_of(self, at: dt.datetime) -> dt.date: ...

    def day_start(self, day: dt.date) -> dt.datetime: ...


@dataclass(frozen=True, slots=True)
class Stay:
    """One seat he held in a session (a seat still taken ends at the moment of reading)."""

    session_id: int
    joined_at: dt.datetime
    left_at: dt.datetime


@dataclass(frozen=True, slots=True)
class Pause:
    """A stretch of a session when play stopped (a pause still running ends at the reading)."""

    session_id: int
    started_at: dt.datetime
    ended_at: dt.datetime


@dataclass(frozen=True, slots=True)
class CoupPlayed:
    """One settled coup he took part in: ``stake`` is what he bet on it (0 when he held the bank),
    ``net`` the chips its settlement moved to him (as banker: his bank's side, after the levy),
    ``levy`` what he paid as banker, ``expected_levy`` the odds engine's expectation of it."""

    session_id: int
    at: dt.datetime
    stake: int
    banked: bool
    net: int
    levy: int = 0
    expected_levy: Fraction = Fraction(0)


@dataclass(frozen=True, slots=True)
class FeePaid:
    """Chips he was charged as an hourly fee or card money, for a session, at an instant."""

    session_id: int
    at: dt.datetime
    amount: int


@dataclass
class RatingLine:
    """The figures of one session, one gaming day, or the whole period."""

    session_id: int | None = None
    day: dt.date | None = None
    seated: dt.timedelta = field(default_factory=dt.timedelta)
    coups: int = 0
    banked: int = 0
    bets: int = 0  # coups he staked on (the average stake's divisor)
    staked: int = 0
    largest_stake: int = 0
    net: int = 0
    levy: int = 0
    fees: int = 0
    expected_levy: Fraction = field(default_factory=Fraction)

    @property
    def seconds(self) -> int:
        """Time seated in whole seconds (a fraction of a second is dropped, never rounded up)."""
        return self.seated // dt.timedelta(seconds=1)

    @property
    def seated_hms(self) -> str:
        """Time seated as hours:minutes:seconds (``2:24:12``): digits every language reads."""
        hours, rest = divmod(self.seconds, 3600)
        return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"

    @property
    def average_stake(self) -> Fraction | None:
        return Fraction(self.staked, self.bets) if self.bets else None

    @property
    def theoretical(self) -> Fraction:
        """The house's theoretical revenue from him: expected levy plus the fees due."""
        return self.expected_levy + self.fees

    @property
    def actual(self) -> int:
        """The house's actual revenue from him: the levy and fees charged."""
        return self.levy + self.fees

    def add_line(self, other: RatingLine) -> None:
        """Add another line's figures (several players' totals in one)."""
        self.seated += other.seated
        self.coups += other.coups
        self.banked += other.banked
        self.bets += other.bets
        self.staked += other.staked
        self.largest_stake = max(self.largest_stake, other.largest_stake)
        self.net += other.net
        self.levy += other.levy
        self.fees += other.fees
        self.expected_levy += other.expected_levy

    def add_coup(self, coup: CoupPlayed) -> None:
        self.coups += 1
        self.banked += coup.banked
        if coup.stake:
            self.bets += 1
            self.staked += coup.stake
            self.largest_stake = max(self.largest_stake, coup.stake)
        self.net += coup.net
        self.levy += coup.levy
        self.expected_levy += coup.expected_levy


@dataclass(frozen=True)
class RatingSlip:
    """One player's slip over the gaming days ``first`` to ``last`` (inclusive)."""

    first: dt.date
    last: dt.date
    sessions: list[RatingLine]  # oldest first
    days: list[RatingLine]  # oldest first
    total: RatingLine


def _minus(
    start: dt.datetime, end: dt.datetime, holes: Iterable[Pause]
) -> list[tuple[dt.datetime, dt.datetime]]:
    """[start, end) with the pauses cut out, as ordered pieces."""
    pieces = [(start, end)]
    for hole in sorted(holes, key=lambda p: p.started_at):
        kept: list[tuple[dt.datetime, dt.datetime]] = []
        for a, b in pieces:
            if hole.ended_at <= a or hole.started_at >= b:
                kept.append((a, b))
                continue
            if hole.started_at > a:
                kept.append((a, hole.started_at))
            if hole.ended_at < b:
                kept.append((hole.ended_at, b))
        pieces = kept
    return pieces


def _by_day(
    start: dt.datetime, end: dt.datetime, calendar: Calendar
) -> Iterable[tuple[dt.date, dt.timedelta]]:
    """[start, end) cut at the gaming days' cut-offs: a night across the cut-off counts on both."""
    while start < end:
        day = calendar.day_of(start)
        cut = min(end, calendar.day_start(day + dt.timedelta(days=1)))
        yield day, cut - start
        start = cut


def rating_slip(
    *,
    first: dt.date,
    last: dt.date,
    calendar: Calendar,
    stays: Iterable[Stay],
    pauses: Iterable[Pause],
    coups: Iterable[CoupPlayed],
    fees: Iterable[FeePaid],
) -> RatingSlip:
    """The slip of the gaming days ``first`` to ``last``: facts outside them are left out, and a
    stay across the period's edges counts only its part inside."""
    begin = calendar.day_start(first)
    end = calendar.day_start(last + dt.timedelta(days=1))
    inside: Callable[[dt.datetime], bool] = lambda at: begin <= at < end  # noqa: E731
    sessions: dict[int, RatingLine] = {}
    days: dict[dt.date, RatingLine] = {}
    total = RatingLine()

    def lines(session_id: int, day: dt.date) -> tuple[RatingLine, RatingLine, RatingLine]:
        return (
            sessions.setdefault(session_id, RatingLine(session_id=session_id)),
            days.setdefault(day, RatingLine(day=day)),
            total,
        )

    paused: dict[int, list[Pause]] = {}
    for p in pauses:
        paused.setdefault(p.session_id, []).append(p)
    for stay in stays:
        a, b = max(stay.joined_at, begin), min(stay.left_at, end)
        if a >= b:
            continue
        for piece_start, piece_end in _minus(a, b, paused.get(stay.session_id, ())):
            for day, length in _by_day(piece_start, piece_end, calendar):
                for line in lines(stay.session_id, day):
                    line.seated += length
    for coup in coups:
        if inside(coup.at):
            for line in lines(coup.session_id, calendar.day_of(coup.at)):
                line.add_coup(coup)
    for fee in fees:
        if inside(fee.at):
            for line in lines(fee.session_id, calendar.day_of(fee.at)):
                line.fees += fee.amount
    return RatingSlip(
        first=first,
        last=last,
        sessions=[sessions[k] for k in sorted(sessions)],
        days=[days[k] for k in sorted(days)],
        total=total,
    )
