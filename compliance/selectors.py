"""Reads of compliance: a casino's policy, a player's cash in and out over a gaming day, his
identification (masked), the day's log and the reports to file."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import QuerySet, Sum
from django.utils import timezone

from compliance.models import CashLogEntry, CashPolicy, CashReport, Direction, PlayerIdentification
from compliance.rules import Thresholds
from ledger.models import Account, Entry, Transaction
from tables.gaming_day import casino_calendar
from tables.models import Casino, Player
from tables.permissions import in_casinos

#: the ledger's kind of each direction's cage transaction
KIND_OF: dict[str, str] = {Direction.IN: Transaction.Kind.BUY_IN, Direction.OUT: Transaction.Kind.CASH_OUT}


def policy_for(casino: Casino) -> CashPolicy:
    """The casino's cash policy; without a row, the defaults (the US preset, a chip worth 1.00)."""
    found = CashPolicy.objects.filter(casino=casino).first()
    return found if found is not None else CashPolicy(casino=casino)


def thresholds_of(policy: CashPolicy) -> Thresholds:
    return Thresholds(
        log=policy.log_threshold,
        report=policy.report_threshold,
        identification=policy.identification_threshold,
        chip_value_cents=policy.chip_value_cents,
    )


def gaming_day_of(casino: Casino, at: dt.datetime) -> dt.date:
    return casino_calendar(casino).day_of(at)


@dataclass(frozen=True, slots=True)
class DayTotals:
    """A player's chips bought (in) and cashed (out) at the cage on one gaming day, never netted."""

    day: dt.date
    cash_in: int
    cash_out: int

    def of(self, direction: str) -> int:
        return self.cash_in if direction == Direction.IN else self.cash_out


def day_totals(*, casino: Casino, player: Player, day: dt.date) -> DayTotals:
    """The ledger's buy-ins and cash-outs of ``player`` posted within gaming day ``day`` (one query)."""
    start, end = casino_calendar(casino).bounds(day, day)
    sums = dict(
        Entry.objects.filter(
            account__casino=casino,
            account__kind=Account.Kind.PLAYER,
            account__player=player,
            transaction__kind__in=list(KIND_OF.values()),
            transaction__posted_at__gte=start,
            transaction__posted_at__lt=end,
        )
        .values("transaction__kind")
        .annotate(total=Sum("amount"))
        .values_list("transaction__kind", "total")
    )
    # a buy-in credits the player's account, a cash-out debits it
    return DayTotals(
        day, int(sums.get(Transaction.Kind.BUY_IN) or 0), -int(sums.get(Transaction.Kind.CASH_OUT) or 0)
    )


def day_totals_now(*, casino: Casino, player: Player) -> DayTotals:
    """The player's cash in and out of the current gaming day."""
    return day_totals(casino=casino, player=player, day=gaming_day_of(casino, timezone.now()))


def identification_of(player: Player) -> PlayerIdentification | None:
    """The player's identification, for its masked form and its type (reading it is not audited:
    the full number is read through compliance.services.identification_read)."""
    return PlayerIdentification.objects.filter(player=player).first()


def identified_players(players: Iterable[Player]) -> dict[int, PlayerIdentification]:
    """Identifications of ``players`` by player id (one query), for the masked column of a list."""
    return {i.player_id: i for i in PlayerIdentification.objects.filter(player__in=list(players))}


def cash_log(*, casinos: frozenset[int] | None, day: dt.date) -> QuerySet[CashLogEntry]:
    """The log entries of ``day`` in ``casinos`` (None: every casino), newest first."""
    entries = in_casinos(CashLogEntry.objects.filter(gaming_day=day), casinos, "casino")
    return entries.select_related("player", "cashier", "table", "casino").order_by("-logged_at", "-pk")


def cash_log_between(
    *, casinos: frozenset[int] | None, start: dt.date, end: dt.date
) -> QuerySet[CashLogEntry]:
    """The log entries of the gaming days ``start`` to ``end`` (``casinos`` None: every casino),
    oldest first."""
    entries = in_casinos(
        CashLogEntry.objects.filter(gaming_day__gte=start, gaming_day__lte=end), casinos, "casino"
    )
    return entries.select_related("player", "cashier", "table", "casino").order_by(
        "gaming_day", "logged_at", "pk"
    )


def cash_reports(*, casinos: frozenset[int] | None, start: dt.date | None = None, end: dt.date | None = None,
                 status: str | None = None) -> QuerySet[CashReport]:  # fmt: skip
    """Reports in ``casinos`` (None: every casino), optionally of some days and of one status."""
    reports = in_casinos(CashReport.objects.all(), casinos, "casino")
    if start is not None:
        reports = reports.filter(gaming_day__gte=start)
    if end is not None:
        reports = reports.filter(gaming_day__lte=end)
    if status is not None:
        reports = reports.filter(status=status)
    return reports.select_related("player", "filed_by", "casino").order_by("gaming_day", "pk")
