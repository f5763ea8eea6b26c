"""Reads for a player's rating slip (docs/review.md, "A player's rating"): the facts the pure
``tables.rating.rating_slip`` rates, gathered from the seats, the sessions' pauses, the settled
coups he bet on or banked, their bets, levy and settlement postings, and his fee postings. No
writes here.

A coup counts on the gaming day it was settled in (as the levy report and the rollups count it).
His net in a coup is what its settlement postings moved on his accounts, and, for a coup he
banked, on the table's bank account, which held his bank; his levy is the coup's ``BankTax``; its
expectation is the odds engine's expected levy per covered chip for the coup's own rules (profile
and rate as copied at its start) and its shoe's decks, times the stakes that faced his bank (the
rollups' pricing, ``tables.services.rollups``); nothing for a bank's first coup where the profile
exempts it from the levy. Fees count as the fee report counts them: an
hourly fee on the hour it bills, card money when it was charged.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from django.db.models import Q, Sum

from ledger.models import Account, Entry, TransactionKind
from tables.engine_bridge import expected_levy_per_chip
from tables.games import wings
from tables.gaming_day import casino_calendar
from tables.models import BankTax, Bet, Coup, Player, Seat, SessionPause, TableSession
from tables.rating import CoupPlayed, FeePaid, Pause, RatingSlip, Stay, rating_slip


@dataclass(frozen=True)
class SessionName:
    """How a slip's session line names its session: the table and when it opened."""

    table_id: int
    table_name: str
    opened_at: dt.datetime


def _stays(player: Player, begin: dt.datetime, end: dt.datetime, now: dt.datetime) -> list[Stay]:
    seats = Seat.objects.filter(player=player, joined_at__lt=end).filter(
        Q(left_at__isnull=True) | Q(left_at__gt=begin)
    )
    return [
        Stay(session_id=s.session_id, joined_at=s.joined_at, left_at=s.left_at or now)
        for s in seats.order_by("joined_at", "pk")
    ]


def _pauses(session_ids: set[int], now: dt.datetime) -> list[Pause]:
    return [
        Pause(session_id=p.session_id, started_at=p.started_at, ended_at=p.ended_at or now)
        for p in SessionPause.objects.filter(session_id__in=session_ids)
    ]


def _coups(player: Player, begin: dt.datetime, end: dt.datetime) -> list[CoupPlayed]:
    settled = Q(coup__state=Coup.State.SETTLED, coup__settled_at__gte=begin, coup__settled_at__lt=end)
    stakes: dict[int, int] = defaultdict(int)
    for coup_id, amount in Bet.objects.filter(
        settled, Q(seat__player=player) | Q(spectator__player=player), withdrawn=False
    ).values_list("coup_id", "amount"):
        stakes[coup_id] += amount
    banks = list(
        Coup.objects.filter(
            banker=player, state=Coup.State.SETTLED, settled_at__gte=begin, settled_at__lt=end
        ).values_list("pk", "rules_snapshot__content", "shoe__decks", "first_coup_of_bank")
    )
    banked = {pk for pk, *_ in banks}
    ids = set(stakes) | banked
    facts = {
        pk: (session_id, at)
        for pk, session_id, at in Coup.objects.filter(pk__in=ids).values_list(
            "pk", "shoe__session_id", "settled_at"
        )
    }
    covered = dict(
        Bet.objects.filter(coup_id__in=banked, withdrawn=False)
        .values("coup_id")
        .annotate(n=Sum("amount"))
        .order_by()
        .values_list("coup_id", "n")
    )
    levies = dict(BankTax.objects.filter(coup_id__in=banked).values_list("coup_id", "amount"))
    expected: dict[int, Fraction] = {}
    for pk, rules, decks, first_of_bank in banks:
        per_chip = expected_levy_per_chip(rules, decks, first_coup_of_bank=first_of_bank)
        expected[pk] = per_chip * covered.get(pk, 0)
    # his accounts in every coup; the table's bank only in the coups he banked
    nets: dict[int, int] = defaultdict(int)
    for coup_id, amount in Entry.objects.filter(
        Q(account__player=player) | Q(account__kind=Account.Kind.BANK, transaction__coup_id__in=banked),
        transaction__kind=TransactionKind.COUP_SETTLEMENT,
        transaction__coup_id__in=ids,
    ).values_list("transaction__coup_id", "amount"):
        nets[coup_id] += amount
    rows = []
    for pk in sorted(ids):
        session_id, at = facts[pk]
        assert at is not None  # settled coups only
        rows.append(
            CoupPlayed(
                session_id=session_id,
                at=at,
                stake=stakes.get(pk, 0),
                banked=pk in banked,
                net=nets[pk],
                levy=levies.get(pk, 0),
                expected_levy=expected.get(pk, Fraction(0)),
            )
        )
    return rows


def _fees(player: Player, begin: dt.datetime, end: dt.datetime) -> list[FeePaid]:
    charged = Entry.objects.filter(
        account__player=player,
        account__kind=Account.Kind.PLAYER,
        transaction__kind__in=[TransactionKind.HOURLY_FEE, TransactionKind.CARD_MONEY],
        transaction__fee_posting__isnull=False,
    ).filter(
        Q(transaction__fee_posting__hour_start__gte=begin, transaction__fee_posting__hour_start__lt=end)
        | Q(
            transaction__fee_posting__hour_start__isnull=True,
            transaction__posted_at__gte=begin,
            transaction__posted_at__lt=end,
        )
    )
    return [
        FeePaid(session_id=session_id, at=hour or posted, amount=-amount)
        for session_id, hour, posted, amount in charged.values_list(
            "transaction__fee_posting__session_id",
            "transaction__fee_posting__hour_start",
            "transaction__posted_at",
            "amount",
        )
    ]


def player_rating(*, player: Player, first: dt.date, last: dt.date, now: dt.datetime) -> RatingSlip:
    """His slip over the gaming days ``first`` to ``last`` of his casino (``first <= last``)."""
    calendar = casino_calendar(player.casino)
    begin, end = calendar.bounds(first, last)
    stays = _stays(player, begin, end, now)
    return rating_slip(
        first=first,
        last=last,
        calendar=calendar,
        stays=stays,
        pauses=_pauses({s.session_id for s in stays}, now),
        # chemin de fer's coups are the floor's own; every other game's come through its wing
        coups=[
            *_coups(player, begin, end),
            *(c for wing in wings() for c in wing.rating_coups(player=player, start=begin, end=end)),
        ],
        fees=_fees(player, begin, end),
    )


def rating_session_names(slip: RatingSlip) -> dict[int, SessionName]:
    """The table and opening of every session on the slip, by session id."""
    ids = [line.session_id for line in slip.sessions if line.session_id is not None]
    return {
        pk: SessionName(table_id=table_id, table_name=name, opened_at=opened)
        for pk, table_id, name, opened in TableSession.objects.filter(pk__in=ids).values_list(
            "pk", "table_id", "table__name", "opened_at"
        )
    }
