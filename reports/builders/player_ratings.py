"""The players' rating report (``player-ratings``): each player's rating slip over the period, as
the player's page and the API show it (review/selectors/rating.py, tables/rating.py).

- One **session** line per table session he sat at, bet or banked in and gaming day (a session
  across the cut-off has a line on each of its days), under its day: the day's lines, then its
  **gaming day** subtotal, day after day; one **player** subtotal; then the period's total over
  every player.
- Every subtotal and total is the sum of the lines above it **as printed** (the seconds, the
  hundredths of the expectations), so that each column adds up; an average stake is the summed
  stakes over the summed bets.
- Who is on it: every player of the casino (the house's own bank excepted) seated or watching at
  one of its tables during the period, by name.
- Time seated is his seats' time less the sessions' pauses, in seconds and as h:mm:ss; a coup
  counts on the gaming day it was settled in; an hourly fee on the hour it bills, card money when
  charged.
- ``expected_levy``: the odds engine's expected levy of the banks he held (the coup's profile and
  levy rate, its shoe's decks, the stakes that faced his bank); ``theoretical`` adds the fees
  due; ``actual`` is the levy and fees charged. Expectations are written to the hundredth of a
  chip, rounded half-even from the exact value.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.db.models import Q
from django.utils import timezone

from core.numbers import plain_decimal, rounded
from reports.builders import Scope, in_english, report_facts
from reports.columns import COUPS, GAMING_DAY, LEVY, PLAYER, PLAYER_ID, SESSION_ID, TABLE
from reports.model import Column, ColumnType, Line, LineKind, Report
from review.selectors.rating import SessionName, player_rating, rating_session_names
from tables.gaming_day import GamingCalendar
from tables.models import Player
from tables.rating import RatingLine, RatingSlip

COLUMNS = (
    PLAYER_ID,
    PLAYER.at_width(1.6),
    Column("row", "Row", ColumnType.TEXT, 0.9, shrinks=False),
    GAMING_DAY,
    TABLE.at_width(1.2),
    SESSION_ID,
    Column("seconds_seated", "Seconds seated", ColumnType.INT, 0.9),
    Column("time_seated", "Time seated", ColumnType.DURATION, 0.9),
    COUPS.at_width(0.6),
    Column("coups_banked", "Banked", ColumnType.INT, 0.6),
    Column("staked", "Staked", ColumnType.INT, 0.8),
    Column("average_stake", "Average stake", ColumnType.DECIMAL, 0.8),
    Column("largest_stake", "Largest stake", ColumnType.INT, 0.8),
    Column("net", "Net", ColumnType.INT, 0.8),
    LEVY.at_width(0.7),
    Column("fees", "Fees", ColumnType.INT, 0.7),
    Column("expected_levy", "Expected levy", ColumnType.DECIMAL, 0.9),
    Column("theoretical", "Theoretical", ColumnType.DECIMAL, 0.9),
    Column("actual", "Actual", ColumnType.INT, 0.7),
)


def hundredths(value: Fraction | None) -> str | None:
    """An exact amount to the hundredth, half-even (``Fraction(2099, 305)`` → ``"6.88"``)."""
    return plain_decimal(value, 2)


def hms(seconds: int) -> str:
    """Seconds as hours:minutes:seconds (``2:24:12``), as the slip writes them."""
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


#: the figures of a printed line that its subtotals sum (the largest stake is a maximum instead)
_SUMMED = ("seconds", "coups", "banked", "bets", "staked", "net", "levy", "fees", "expected_levy")


@dataclass
class Printed:
    """A line's figures as the report prints them, and the sum of such lines: a subtotal adds up
    the seconds and the hundredths its lines show (each line's own figures are rounded from its
    exact values, so a sum of exact values rounded once could differ from them by a second or a
    hundredth)."""

    seconds: int = 0
    coups: int = 0
    banked: int = 0
    bets: int = 0
    staked: int = 0
    largest_stake: int = 0
    net: int = 0
    levy: int = 0
    fees: int = 0
    expected_levy: Decimal = Decimal("0.00")

    @classmethod
    def of(cls, line: RatingLine) -> Printed:
        # every figure as the line has it, but the expected levy, printed to the hundredth
        whole = {name: getattr(line, name) for name in (*_SUMMED[:-1], "largest_stake")}
        return cls(**whole, expected_levy=rounded(line.expected_levy, 2))

    def add(self, other: Printed) -> None:
        """Add the figures of a line as printed: a sum of what the report shows, so a subtotal is
        the sum of its lines (the largest stake is the largest of theirs)."""
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.largest_stake = max(self.largest_stake, other.largest_stake)

    def figures(self) -> tuple[object, ...]:
        return (
            self.seconds,
            hms(self.seconds),
            self.coups,
            self.banked,
            self.staked,
            hundredths(Fraction(self.staked, self.bets)) if self.bets else None,
            self.largest_stake,
            self.net,
            self.levy,
            self.fees,
            str(self.expected_levy),
            str(self.expected_levy + self.fees),  # theoretical: the expected levy and the fees due
            self.levy + self.fees,  # actual: the levy and the fees charged
        )


def rated_players(scope: Scope) -> list[Player]:
    """The casino's players seated or watching at one of its tables during the period."""
    lo, hi = scope.bounds()
    at_table = Q(seats__joined_at__lt=hi) & (Q(seats__left_at__isnull=True) | Q(seats__left_at__gt=lo))
    watching = Q(spectating__joined_at__lt=hi) & (
        Q(spectating__left_at__isnull=True) | Q(spectating__left_at__gt=lo)
    )
    return list(
        Player.objects.filter(casino=scope.casino, house=False)
        .filter(at_table | watching)
        .select_related("casino")
        .distinct()
        .order_by("display_name", "pk")
    )


def _same(one: RatingLine, other: RatingLine) -> bool:
    """Whether two lines hold the same exact figures."""
    return (
        one.seated, one.coups, one.banked, one.bets, one.staked, one.largest_stake, one.net, one.levy,
        one.fees, one.expected_levy,
    ) == (
        other.seated, other.coups, other.banked, other.bets, other.staked, other.largest_stake, other.net,
        other.levy, other.fees, other.expected_levy,
    )  # fmt: skip


def session_days(
    *,
    player: Player,
    slip: RatingSlip,
    names: dict[int, SessionName],
    calendar: GamingCalendar,
    now: dt.datetime,
) -> list[tuple[dt.date, list[RatingLine]]]:
    """Each gaming day of ``slip`` with his session lines of that day only, oldest first.

    Most sessions are played within one gaming day: the period's slip gives their lines whole, each
    placed on the day its session opened, when, day by day, those lines add up exactly to the
    slip's day lines (nothing is read again). Otherwise a session ran across a cut-off and counts
    on each of its days: his slip is read again for each of his days, and that day's session lines
    are each session's share of it."""
    days = [d.day for d in slip.days if d.day is not None]
    if len(days) <= 1:
        return [(day, slip.sessions) for day in days]
    by_opening: dict[dt.date, list[RatingLine]] = {}
    for line in slip.sessions:
        assert line.session_id is not None  # a session's line
        by_opening.setdefault(calendar.day_of(names[line.session_id].opened_at), []).append(line)

    def summed(lines: list[RatingLine]) -> RatingLine:
        whole = RatingLine()
        for line in lines:
            whole.add_line(line)
        return whole

    if set(by_opening) == set(days) and all(
        _same(summed(by_opening[d.day]), d) for d in slip.days if d.day is not None
    ):
        return [(day, by_opening[day]) for day in days]
    return [(day, player_rating(player=player, first=day, last=day, now=now).sessions) for day in days]


def _lines(scope: Scope) -> Iterator[Line]:
    now = timezone.now()
    total = Printed()
    for player in rated_players(scope):
        slip = player_rating(player=player, first=scope.start, last=scope.end, now=now)
        names = rating_session_names(slip)
        who = (player.pk, player.display_name)
        mine = Printed()
        days = session_days(player=player, slip=slip, names=names, calendar=scope.calendar, now=now)
        for day, sessions in days:
            today = Printed()
            for line in sessions:
                assert line.session_id is not None  # a session's line
                printed = Printed.of(line)
                today.add(printed)
                name = names[line.session_id].table_name
                yield Line((*who, "session", day, name, line.session_id, *printed.figures()))
            yield Line((*who, "gaming day", day, None, None, *today.figures()), LineKind.SUBTOTAL)
            mine.add(today)
        yield Line((*who, "player", None, None, None, *mine.figures()), LineKind.SUBTOTAL)
        total.add(mine)
    yield Line((None, "all players", "period", None, None, None, *total.figures()), LineKind.TOTAL)


@in_english
def player_ratings_report(scope: Scope) -> Report:
    notes = [
        "Time seated is each seat's time less the table's pauses; a coup counts on the gaming day it "
        "was settled in.",
        "Expected levy: the odds engine's expectation for the banks the player held (the coup's "
        "profile, levy rate and shoe); theoretical adds the fees due; actual is the levy and fees charged.",
    ]
    return Report(
        title="Player ratings",
        facts=report_facts(scope),
        columns=COLUMNS,
        lines=_lines(scope),
        landscape=True,
        notes=notes,
    )
