"""Reads of the chip ledger. No writes here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import F, Max, Q, QuerySet, Sum
from django.utils import timezone

from ledger.fees import HOUR
from ledger.models import Account, Entry, FeeHour, Series, Transaction
from tables.models import Casino, Coup, Player, Table, TableSession

#: coups that count as played in a series: revealed and settled, or restored and awaiting approval
PLAYED_COUP_STATES = ("settled", "awaiting_approval")


def account_find(
    *, casino: Casino, kind: str, player: Player | None = None, table: Table | None = None
) -> Account | None:
    return Account.objects.filter(casino=casino, kind=kind, player=player, table=table).first()


def account_balance(
    *, casino: Casino, kind: str, player: Player | None = None, table: Table | None = None
) -> int:
    """The balance of one account; 0 for an account never opened."""
    account = account_find(casino=casino, kind=kind, player=player, table=table)
    return account.balance if account is not None else 0


def player_balances(*, casino: Casino, player: Player) -> dict[str, int]:
    """{"player": chips in front of him, "reserve": his personal reserve} (0 when unopened)."""
    found = dict(
        Account.objects.filter(
            casino=casino, player=player, kind__in=[Account.Kind.PLAYER, Account.Kind.RESERVE]
        ).values_list("kind", "balance")
    )
    return {
        Account.Kind.PLAYER: found.get(Account.Kind.PLAYER, 0),
        Account.Kind.RESERVE: found.get(Account.Kind.RESERVE, 0),
    }


def player_available(*, casino: Casino, player: Player) -> int:
    """The chips a player holds outside play: his player account plus his reserve.

    This is what he can put up for a bank (bank_fund draws on the reserve when the player account
    is short); a bet is checked against the player account alone (``bet_check_affordable``).
    Chips in a bank he holds are in play and not counted here.
    """
    return sum(player_balances(casino=casino, player=player).values())


def bank_holder_id(*, bank: Account) -> int | None:
    """The player whose chips the bank account holds: the banker of the last coup that moved it
    (None when the bank is empty)."""
    if bank.balance == 0:
        return None
    return (
        Entry.objects.filter(account=bank, transaction__coup__isnull=False)
        .order_by("-transaction_id")
        .values_list("transaction__coup__banker_id", flat=True)
        .first()
    )


def bank_holder(*, table: Table) -> Player | None:
    bank = account_find(casino=table.casino, kind=Account.Kind.BANK, table=table)
    holder_id = bank_holder_id(bank=bank) if bank is not None else None
    return Player.objects.get(pk=holder_id) if holder_id is not None else None


def coup_transactions(*, coup: Coup) -> QuerySet[Transaction]:
    """Every posting of a coup (bank funding, provisional, reversal, settlement), oldest first,
    entries and their accounts prefetched."""
    return Transaction.objects.filter(coup=coup).order_by("id").prefetch_related("entries__account")


def transaction_entries(*, txn: Transaction) -> dict[int, int]:
    """{account id: amount} of one transaction."""
    return dict(txn.entries.values_list("account_id", "amount"))


# --------------------------------------------------------------------------------- trial balance


@dataclass(frozen=True, slots=True)
class TrialBalanceRow:
    account_id: int
    casino_id: int
    account: str
    kind: str
    balance: int


@dataclass(frozen=True, slots=True)
class TrialBalance:
    rows: list[TrialBalanceRow]
    debits: int  # sum of positive balances: chips held by players, banks, reserves, the house
    credits: int  # sum of |negative balances|: the cage's chips in circulation, overdrafts

    @property
    def balanced(self) -> bool:
        return self.debits == self.credits


def trial_balance(*, casino: Casino | None = None) -> TrialBalance:
    accounts = Account.objects.order_by("casino_id", "kind", "name", "id")
    if casino is not None:
        accounts = accounts.filter(casino=casino)
    rows = [
        TrialBalanceRow(a["id"], a["casino_id"], a["name"], a["kind"], a["balance"])
        for a in accounts.values("id", "casino_id", "name", "kind", "balance")
    ]
    return TrialBalance(
        rows=rows,
        debits=sum(r.balance for r in rows if r.balance > 0),
        credits=sum(-r.balance for r in rows if r.balance < 0),
    )


@dataclass(frozen=True, slots=True)
class Drift:
    account_id: int
    account: str
    balance: int
    entries_total: int


def ledger_drift(*, casino: Casino | None = None) -> list[Drift]:
    """Accounts whose stored balance differs from the sum of their entries (should be none)."""
    accounts = Account.objects.annotate(entries_total=Sum("entries__amount", default=0)).exclude(
        balance=F("entries_total")
    )
    if casino is not None:
        accounts = accounts.filter(casino=casino)
    return [Drift(a.pk, a.name, a.balance, a.entries_total) for a in accounts.order_by("id")]


def unbalanced_transactions(*, casino: Casino | None = None) -> list[tuple[int, int]]:
    """(transaction id, sum of its entries) for every transaction that does not sum to zero."""
    txns = Transaction.objects.annotate(total=Sum("entries__amount", default=0)).exclude(total=0)
    if casino is not None:
        txns = txns.filter(casino=casino)
    return list(txns.order_by("id").values_list("id", "total"))


# ------------------------------------------------------------------------------------ hourly fees


def clock_hour_floor(at: dt.datetime) -> dt.datetime:
    """The start of the local clock hour (settings.TIME_ZONE) containing ``at``, in UTC."""
    local = timezone.localtime(at)
    return local.replace(minute=0, second=0, microsecond=0).astimezone(dt.UTC)


def session_fee_hours(*, session: TableSession, now: dt.datetime) -> list[dt.datetime]:
    """The clock hours of a session that are over (or that the closed session no longer reaches)
    and so may be billed, in order (UTC)."""
    end = session.closed_at if session.closed_at is not None else now
    finished = session.closed_at is not None and session.closed_at <= now
    hours = []
    hour = clock_hour_floor(session.opened_at)
    while hour < end:
        if hour + HOUR <= now or finished:
            hours.append(hour)
        hour += HOUR  # UTC arithmetic: a DST change never skips or repeats an hour
    return hours


def hourly_fee_hours_due(*, now: dt.datetime | None = None) -> list[tuple[int, dt.datetime]]:
    """(session id, hour start) of every finished hour of every session of an hourly-fee casino
    that is not yet marked billed."""
    now = now or timezone.now()
    sessions = (
        TableSession.objects.filter(table__casino__levy_mode="hourly_fee", opened_at__lt=now)
        .annotate(last_billed=Max("fee_hours__hour_start"))
        .filter(
            Q(closed_at__isnull=True) | Q(last_billed__isnull=True) | Q(closed_at__gt=F("last_billed") + HOUR)
        )
        .order_by("id")
    )
    due: list[tuple[int, dt.datetime]] = []
    for session in sessions:
        billed = set(FeeHour.objects.filter(session=session).values_list("hour_start", flat=True))
        due.extend((session.pk, h) for h in session_fee_hours(session=session, now=now) if h not in billed)
    return due


# ----------------------------------------------------------------------------------------- series


def series_coups_played(*, series: Series) -> int:
    """Coups of the series' session played since it started (settled or awaiting approval)."""
    coups = Coup.objects.filter(
        shoe__session_id=series.session_id, state__in=PLAYED_COUP_STATES, created_at__gte=series.started_at
    )
    if series.ended_at is not None:
        coups = coups.filter(created_at__lte=series.ended_at)
    return coups.count()


@dataclass(frozen=True, slots=True)
class Standing:
    place: int
    player: Player
    chips: int  # what he holds now, counted from his series buy-in (reserve and bank included)
    delta: int  # chips - the series' starting chips


def _series_holdings(*, series: Series) -> dict[int, int]:
    """{player id: player + reserve (+ the bank he holds)} for the series' entrants."""
    table = series.session.table
    entrants = list(series.entrants.values_list("player_id", flat=True))
    holdings = dict.fromkeys(entrants, 0)
    for player_id, balance in Account.objects.filter(
        casino_id=table.casino_id,
        player_id__in=entrants,
        kind__in=[Account.Kind.PLAYER, Account.Kind.RESERVE],
    ).values_list("player_id", "balance"):
        holdings[player_id] += balance
    bank = account_find(casino=table.casino, kind=Account.Kind.BANK, table=table)
    holder = bank_holder_id(bank=bank) if bank is not None else None
    if holder in holdings:
        holdings[holder] += bank.balance
    return holdings


def series_standings(*, series: Series) -> list[Standing]:
    """Entrants ranked by chips, richest first; equal chips share a place (1, 1, 3 …)."""
    holdings = _series_holdings(series=series)
    entrants = list(series.entrants.select_related("player"))
    scored = sorted(
        ((holdings[e.player_id] - e.chips_before, e.player) for e in entrants),
        key=lambda item: (-item[0], item[1].display_name, item[1].pk),
    )
    standings: list[Standing] = []
    for index, (chips, player) in enumerate(scored):
        place = standings[-1].place if standings and standings[-1].chips == chips else index + 1
        standings.append(Standing(place=place, player=player, chips=chips, delta=chips - series.start_chips))
    return standings


def series_can_continue(*, series: Series) -> tuple[bool, str]:
    """Whether another coup of the series may be played, and if not why (seed 003: the series ends
    after its coups, or early when nobody can open a bank or nobody can bet against it)."""
    if series.ended_at is not None:
        return False, f"The series has ended ({series.get_end_reason_display()})."
    played = series_coups_played(series=series)
    if played >= series.coups_planned:
        return False, f"All {series.coups_planned} coups have been played."
    table = series.session.table
    bank = account_find(casino=table.casino, kind=Account.Kind.BANK, table=table)
    holder = bank_holder_id(bank=bank) if bank is not None else None
    available = {
        e.player_id: sum(player_balances(casino=table.casino, player=e.player).values())
        for e in series.entrants.select_related("player")
    }
    if holder is not None:
        bankers = [holder]
    else:
        bankers = [p for p, chips in available.items() if chips >= series.min_bank]
        if not bankers:
            return False, f"Nobody can open a bank of {series.min_bank} chips."
    if not any(chips >= series.min_bet for b in bankers for p, chips in available.items() if p != b):
        return False, "Nobody can bet against the bank."
    return True, f"{series.coups_planned - played} of {series.coups_planned} coups left."
