"""Reads for the dashboard's live part (docs/review.md, "The live pit"), which refreshes itself:
per open table the croupier on shift, the banker and the bank, the coups of the last hour, the
minutes since the last step, the shoe's progress, its alarms and the table's open alerts; and
the newest open alerts. A fixed number of queries however many tables are open (the open tables'
own, ``dashboard.open_tables``, then one query per figure for all tables at once). A table of an
older game (Macao, Landsknecht, old baccarat) shows its open game coup instead: its number, its
steps and the minutes since its last step (or its start)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, Max

from review.models import Alert
from review.selectors.alerts import open_alerts
from review.selectors.dashboard import OpenTable
from tables.models import OLDER_GAMES, Coup, CoupStep, CroupierAssignment, GameCoup, GameStep, ShoeAlarm

#: how many of the newest open alerts the dashboard lists (the alerts page has them all)
LIVE_ALERTS_SHOWN = 5
#: "coups in the last hour"
LIVE_COUPS_WINDOW = dt.timedelta(hours=1)


@dataclass(frozen=True)
class LiveGameCoup:
    """An older game's coup in play at a table."""

    coup: GameCoup
    steps: int
    last_step_at: dt.datetime  # its last step's, or its start's while it has none
    minutes_since_last_step: int


@dataclass(frozen=True)
class LiveTable:
    open: OpenTable
    croupiers: list[str]  # usernames on shift at the table now
    coups_last_hour: int
    last_step_at: dt.datetime | None
    minutes_since_last_step: int | None
    shoe_alarms: list[ShoeAlarm]  # raised on the open shoe
    open_alerts: int
    #: an older game's open coup (None at a chemin de fer table, or between coups)
    game_coup: LiveGameCoup | None = None

    @property
    def older_game(self) -> bool:
        return self.open.table.game in OLDER_GAMES

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
    coups = dict(
        Coup.objects.filter(
            shoe__session__in=sessions, created_at__gte=now - LIVE_COUPS_WINDOW, created_at__lte=now
        )
        .values("shoe__table_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("shoe__table_id", "n")
    )
    # the last step at a table is one of its latest coup's: read those coups' steps only, not a
    # session's whole history (a session open for months holds a million steps)
    latest = {t.now.last_coup.pk: t.table.pk for t in tables if t.now.last_coup is not None}
    last_steps = {
        latest[coup_id]: last
        for coup_id, last in CoupStep.objects.filter(coup_id__in=list(latest))
        .values("coup_id")
        .annotate(last=Max("created_at"))
        .order_by()
        .values_list("coup_id", "last")
    }
    # the older games' tables only: a pit of chemin de fer tables costs no query more
    older = [t for t in tables if t.table.game in OLDER_GAMES]
    game_rows = _game_coups_in_play(older, now)
    older_sessions = [t.session.pk for t in older if t.session is not None]
    game_coups_last_hour = dict(
        GameCoup.objects.filter(
            session__in=older_sessions, created_at__gte=now - LIVE_COUPS_WINDOW, created_at__lte=now
        )
        .values("table_id")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("table_id", "n")
    )
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


def _game_coups_in_play(tables: list[OpenTable], now: dt.datetime) -> dict[int, LiveGameCoup]:
    """The open game coup of each older game's table (one per table at most), with its last step:
    two queries for all the tables."""
    if not tables:
        return {}
    coups = {
        c.pk: c
        for c in GameCoup.objects.filter(table__in=[t.table.pk for t in tables], state=GameCoup.State.OPEN)
        .select_related("banker")
        .order_by()
    }
    last = dict(
        GameStep.objects.filter(coup__in=list(coups))
        .values("coup_id")
        .annotate(last=Max("created_at"))
        .order_by()
        .values_list("coup_id", "last")
    )
    out = {}
    for pk, coup in coups.items():
        at = last.get(pk) or coup.created_at
        out[coup.table_id] = LiveGameCoup(
            coup=coup,
            steps=coup.step_count,
            last_step_at=at,
            minutes_since_last_step=max(0, int((now - at).total_seconds() // 60)),
        )
    return out
