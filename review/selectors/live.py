"""Reads for the dashboard's live part (docs/review.md, "The live pit"), which refreshes itself:
per open table the croupier on shift, the banker and the bank, the coups of the last hour, the
minutes since the last step, the shoe's progress, its alarms and the table's open alerts; and
the newest open alerts. A fixed number of queries however many tables are open (the open tables'
own, ``dashboard.open_tables``, then one query per figure for all tables at once). A table of a
game with coups of its own (the older games: Macao, Landsknecht, old baccarat) shows its open coup
instead, as its wing reads it (tables.games ``live_coups``): its number, its steps and the minutes
since its last step (or its start)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.db.models import Count, Max, QuerySet

from review.models import Alert
from review.selectors.alerts import open_alerts
from review.selectors.dashboard import OpenTable
from tables.games import LiveCoup, wing_for, wings
from tables.models import Coup, CoupStep, CroupierAssignment, ShoeAlarm

#: how many of the newest open alerts the dashboard lists (the alerts page has them all)
LIVE_ALERTS_SHOWN = 5
#: "coups in the last hour"
LIVE_COUPS_WINDOW = dt.timedelta(hours=1)


@dataclass(frozen=True)
class LiveTable:
    open: OpenTable
    croupiers: list[str]  # usernames on shift at the table now
    coups_last_hour: int
    last_step_at: dt.datetime | None
    minutes_since_last_step: int | None
    shoe_alarms: list[ShoeAlarm]  # raised on the open shoe
    open_alerts: int
    #: the coup in play of a game with coups of its own (None at a chemin de fer table, or between coups)
    game_coup: LiveCoup | None = None

    @cached_property  # asked up to three times a row by the live pit's template
    def pages_url(self) -> str | None:
        """The table's own pages in the back office, for a game that has them (tables.games)."""
        return wing_for(self.open.table.game).review_table_url(self.open.table)

    @property
    def shoe_size(self) -> int | None:
        return self.open.shoe.size if self.open.shoe else None

    @property
    def shoe_percent(self) -> int | None:
        """Cards dealt as a whole percentage of the shoe (for the progress bar)."""
        shoe = self.open.shoe
        return min(100, self.open.cards_dealt * 100 // shoe.size) if shoe else None


@dataclass(frozen=True)
class LivePit:
    now: dt.datetime
    tables: list[LiveTable]
    alerts: list[Alert]  # the newest open ones
    alerts_open: int


def coups_last_hour(*, coups: QuerySet[Any], table: str, now: dt.datetime) -> dict[int, int]:
    """How many of ``coups`` (a game's coups of the open sessions) each table began in the hour up
    to ``now`` (``LIVE_COUPS_WINDOW``), keyed by the table's id (``table``: its path from a coup);
    one grouped query."""
    return dict(
        coups.filter(created_at__gte=now - LIVE_COUPS_WINDOW, created_at__lte=now)
        .values(table)
        .annotate(n=Count("pk"))
        .order_by()
        .values_list(table, "n")
    )


def last_step_times(*, steps: QuerySet[Any]) -> dict[int, dt.datetime]:
    """When the last of ``steps`` (a game's steps of the coups asked about) was entered in each
    coup, keyed by the coup's id; one grouped query."""
    return dict(
        steps.values("coup_id").annotate(last=Max("created_at")).order_by().values_list("coup_id", "last")
    )


def live_pit(*, tables: list[OpenTable], now: dt.datetime) -> LivePit:
    ids = [t.table.pk for t in tables]
    sessions = [t.session.pk for t in tables if t.session is not None]
    on_shift: dict[int, list[str]] = {}
    for table_id, username in (
        CroupierAssignment.objects.filter(table__in=ids, shift_start__lte=now, shift_end__gt=now)
        .order_by("user__username")
        .values_list("table_id", "user__username")
    ):
        on_shift.setdefault(table_id, []).append(username)
    coups = coups_last_hour(
        coups=Coup.objects.filter(shoe__session__in=sessions), table="shoe__table_id", now=now
    )
    # the last step at a table is one of its latest coup's: read those coups' steps only, not a
    # session's whole history (a session open for months holds a million steps)
    latest = {t.now.last_coup.pk: t.table.pk for t in tables if t.now.last_coup is not None}
    last_steps = {
        latest[coup_id]: last
        for coup_id, last in last_step_times(steps=CoupStep.objects.filter(coup_id__in=list(latest))).items()
    }
    # each game with coups of its own reads its tables' (tables.games): a pit of chemin de fer
    # tables costs no query more
    game_rows: dict[int, LiveCoup] = {}
    game_coups_last_hour: dict[int, int] = {}
    for wing in wings():
        mine = [t for t in tables if t.table.game in wing.games]
        if mine:
            in_play, last_hour = wing.live_coups(mine, now)
            game_rows.update(in_play)
            game_coups_last_hour.update(last_hour)
    alerts_by_table = dict(
        open_alerts()
        .filter(table__in=ids)
        .values("table_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("table_id", "n")
    )
    rows = []
    for t in tables:
        last = last_steps.get(t.table.pk)
        game = game_rows.get(t.table.pk)
        if game is not None:
            last = game.last_step_at
        rows.append(
            LiveTable(
                open=t,
                croupiers=on_shift.get(t.table.pk, []),
                coups_last_hour=coups.get(t.table.pk, 0) + game_coups_last_hour.get(t.table.pk, 0),
                last_step_at=last,
                minutes_since_last_step=int((now - last).total_seconds() // 60) if last else None,
                shoe_alarms=[a for a in t.now.alarms if t.shoe is not None and a.shoe_id == t.shoe.pk],
                open_alerts=alerts_by_table.get(t.table.pk, 0),
                game_coup=game,
            )
        )
    newest = list(
        open_alerts().select_related("table", "coup").order_by("-raised_at", "-pk")[: LIVE_ALERTS_SHOWN + 1]
    )
    count = len(newest) if len(newest) <= LIVE_ALERTS_SHOWN else open_alerts().count()
    return LivePit(now=now, tables=rows, alerts=newest[:LIVE_ALERTS_SHOWN], alerts_open=count)
