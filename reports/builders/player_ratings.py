"""The players' rating report (``player-ratings``): each player's rating slip over the period, as
the player's page and the API show it (review/selectors/rating.py, tables/rating.py).

- One **session** line per table session he sat at, bet or banked in; one **gaming day** subtotal
  per day; one **player** subtotal; then the period's total over every player.
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

from collections.abc import Iterator
from fractions import Fraction

from django.db.models import Q
from django.utils import timezone

from core.numbers import plain_decimal
from reports.builders import Scope, report_facts
from reports.columns import COUPS, GAMING_DAY, LEVY, PLAYER, PLAYER_ID, SESSION_ID, TABLE
from reports.model import Column, ColumnType, Line, LineKind, Report
from review.selectors.rating import player_rating, rating_session_names
from tables.models import Player
from tables.rating import RatingLine

COLUMNS = (
    PLAYER_ID,
    PLAYER.at_width(1.6),
    Column("row", "Row", ColumnType.TEXT, 0.9),
    GAMING_DAY,
    TABLE.at_width(1.2),
    SESSION_ID,
    Column("seconds_seated", "Seconds seated", ColumnType.INT, 0.9),
    Column("time_seated", "Time seated", ColumnType.TEXT, 0.9),
    COUPS.at_width(0.6),
    Column("coups_banked", "Banked", ColumnType.INT, 0.6),
    Column("staked", "Staked", ColumnType.INT, 0.8),
    Column("average_stake", "Average stake", ColumnType.TEXT, 0.8),
    Column("largest_stake", "Largest stake", ColumnType.INT, 0.8),
    Column("net", "Net", ColumnType.INT, 0.8),
    LEVY.at_width(0.7),
    Column("fees", "Fees", ColumnType.INT, 0.7),
    Column("expected_levy", "Expected levy", ColumnType.TEXT, 0.9),
    Column("theoretical", "Theoretical", ColumnType.TEXT, 0.9),
    Column("actual", "Actual", ColumnType.INT, 0.7),
)


def hundredths(value: Fraction | None) -> str | None:
    """An exact amount to the hundredth, half-even (``Fraction(2099, 305)`` → ``"6.88"``)."""
    return plain_decimal(value, 2)


def _figures(line: RatingLine) -> tuple[object, ...]:
    return (
        line.seconds,
        line.seated_hms,
        line.coups,
        line.banked,
        line.staked,
        hundredths(line.average_stake),
        line.largest_stake,
        line.net,
        line.levy,
        line.fees,
        hundredths(line.expected_levy),
        hundredths(line.theoretical),
        line.actual,
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


def _lines(scope: Scope) -> Iterator[Line]:
    now = timezone.now()
    total = RatingLine()
    for player in rated_players(scope):
        slip = player_rating(player=player, first=scope.start, last=scope.end, now=now)
        names = rating_session_names(slip)
        who = (player.pk, player.display_name)
        for line in slip.sessions:
            assert line.session_id is not None  # a session's line
            name = names[line.session_id]
            yield Line((*who, "session", None, name.table_name, line.session_id, *_figures(line)))
        for line in slip.days:
            yield Line((*who, "gaming day", line.day, None, None, *_figures(line)), LineKind.SUBTOTAL)
        yield Line((*who, "player", None, None, None, *_figures(slip.total)), LineKind.SUBTOTAL)
        total.add_line(slip.total)
    yield Line((None, "all players", "period", None, None, None, *_figures(total)), LineKind.TOTAL)


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
