"""Reads for a player's page (docs/review.md, "A player"): his sessions at the tables, the coups
he bet on with their outcome and what the settlement paid him, his chips (the cage's reading),
time played and average bet. No writes here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.fields.json import KT

from cage.selectors import PlayerChips, player_chips
from ledger.models import Account, Entry, TransactionKind
from tables.games import wings
from tables.models import Bet, Coup, CoupStep, Player, Seat, Spectator

#: coups a page of the player's page
PLAYER_COUPS_PAGE_SIZE = 20
#: before any coup: the player's figures count every coup he played
_EVER = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class PlayerSession:
    table_name: str
    session_id: int
    place: str  # "seat 3" or "spectator"
    joined_at: dt.datetime
    left_at: dt.datetime | None
    played: dt.timedelta
    seat_number: int | None = None  # None: a spectator (the screen says it in its language)


@dataclass(frozen=True)
class PlayedCoup:
    bet: Bet
    outcome: str  # as settled (a corrected coup: its latest restoration); "" before the reveal
    net: int | None  # chips the coup's final settlement moved on his account; None: not settled

    @property
    def coup(self) -> Coup:
        return self.bet.coup


@dataclass(frozen=True)
class PlayerPage:
    player: Player
    chips: PlayerChips
    sessions: list[PlayerSession]
    time_played: dt.timedelta
    bets: int
    staked: int
    average_bet: Fraction | None
    banks_held: int  # coups he was the banker of (played: not voided, not withdrawn)
    coups: Page[Any]  # of PlayedCoup, newest first

    # the time played in parts, for a screen to put in its own words ("1 h 05 min", "1 ч 05 мин")
    @property
    def time_played_hours(self) -> int:
        return int(self.time_played.total_seconds() // 3600)

    @property
    def time_played_minutes(self) -> str:
        return f"{int(self.time_played.total_seconds() // 60) % 60:02d}"


#: coups nobody played: voided (every stake returned), or the bank withdrawn before anyone bet
NOT_PLAYED = (Coup.State.VOID, Coup.State.WITHDRAWN)


def _player_bets(player: Player) -> QuerySet[Bet]:
    """His standing bets: not withdrawn, not replaced by an amendment, in a coup that was played (a
    voided coup's stakes were all returned: no bet of his, as the rating slip counts it)."""
    return Bet.objects.filter(
        Q(seat__player=player) | Q(spectator__player=player), withdrawn=False, replaced_by__isnull=True
    ).exclude(coup__state__in=NOT_PLAYED)


def player_sessions(*, player: Player, now: dt.datetime) -> list[PlayerSession]:
    """Where he sat or watched, newest first; time played counts to now while he is still there."""
    # seated or watching, a stay at a table is one row, read alike: (the stay, its place, its seat)
    stays: list[tuple[Seat | Spectator, str, int | None]] = [
        (seat, f"seat {seat.number}", seat.number)
        for seat in Seat.objects.filter(player=player).select_related("session__table")
    ]
    stays += [
        (spec, "spectator", None)
        for spec in Spectator.objects.filter(player=player).select_related("session__table")
    ]
    rows = [
        PlayerSession(
            stay.session.table.name,
            stay.session_id,
            place,
            stay.joined_at,
            stay.left_at,
            (stay.left_at or now) - stay.joined_at,
            number,
        )
        for stay, place, number in stays
    ]
    return sorted(rows, key=lambda r: r.joined_at, reverse=True)


def player_page(*, player: Player, now: dt.datetime, page: Any = 1) -> PlayerPage:
    bets = _player_bets(player)
    figures = bets.aggregate(n=Count("pk"), staked=Sum("amount"))
    revealed = CoupStep.objects.filter(coup=OuterRef("coup"), kind=CoupStep.Kind.REVEAL).values(
        o=KT("payload__verdict__outcome")
    )[:1]
    restored = (
        CoupStep.objects.filter(coup=OuterRef("coup"), kind=CoupStep.Kind.CORRECTION)
        .order_by("-index")
        .values(o=KT("payload__restored__outcome"))[:1]
    )
    listed = (
        bets.select_related("coup__shoe__table", "seat", "spectator")
        .annotate(played=Subquery(revealed), restored=Subquery(restored))
        .order_by("-coup__created_at", "-pk")
    )
    paged = Paginator(listed, PLAYER_COUPS_PAGE_SIZE).get_page(page)
    coup_ids = [b.coup_id for b in paged.object_list]
    nets = dict(
        Entry.objects.filter(
            account__kind=Account.Kind.PLAYER,
            account__player=player,
            transaction__kind=TransactionKind.COUP_SETTLEMENT,
            transaction__coup__in=coup_ids,
        )
        .values("transaction__coup_id")
        .annotate(net=Sum("amount"))
        .order_by()
        .values_list("transaction__coup_id", "net")
    )
    rows = []
    for b in paged.object_list:
        settled = b.coup.state == Coup.State.SETTLED
        # as settled: a corrected coup's latest restoration, else the outcome as played
        outcome = (getattr(b, "restored", None) if settled else None) or getattr(b, "played", None) or ""
        rows.append(PlayedCoup(bet=b, outcome=outcome, net=nets.get(b.coup_id, 0) if settled else None))
    paged.object_list = rows  # type: ignore[assignment]  # the page shows PlayedCoup rows
    sessions = player_sessions(player=player, now=now)
    # the coups of the games whose coups are not the floor's own (older games), through the games'
    # seam, as the rating slip on the same page counts them: a stake is a bet, a bank held a bank
    others = [
        c
        for wing in wings()
        for c in wing.rating_coups(player=player, start=_EVER, end=now + dt.timedelta(microseconds=1))
    ]
    n = figures["n"] + sum(1 for c in others if not c.banked)
    staked = (figures["staked"] or 0) + sum(c.stake for c in others if not c.banked)
    return PlayerPage(
        player=player,
        chips=player_chips(player=player),
        sessions=sessions,
        time_played=sum((s.played for s in sessions), dt.timedelta()),
        bets=n,
        staked=staked,
        average_bet=Fraction(staked, n) if n else None,
        banks_held=Coup.objects.filter(banker=player).exclude(state__in=NOT_PLAYED).count()
        + sum(1 for c in others if c.banked),
        coups=paged,
    )
