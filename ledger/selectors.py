"""Reads of the chip ledger: accounts, balances, transactions, the trial balance. No writes here."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import F, Model, QuerySet, Sum
from django.utils import timezone

from ledger.models import Account, Transaction

# The floor's casino, player, table and coup are taken as model instances (a tables.Casino and so
# on), never imported: the ledger imports nothing from the game floor. So the queries name them by
# id (``casino=casino.pk``): the type checker knows the foreign keys want the floor's classes.


def _pk(row: Model | None) -> int | None:
    return row.pk if row is not None else None


def account_find(
    *, casino: Model, kind: str, player: Model | None = None, table: Model | None = None
) -> Account | None:
    return Account.objects.filter(casino=casino.pk, kind=kind, player=_pk(player), table=_pk(table)).first()


def account_balance(
    *, casino: Model, kind: str, player: Model | None = None, table: Model | None = None
) -> int:
    """The balance of one account; 0 for an account never opened."""
    account = account_find(casino=casino, kind=kind, player=player, table=table)
    return account.balance if account is not None else 0


def player_balances(*, casino: Model, player: Model) -> dict[str, int]:
    """{"player": chips in front of him, "reserve": his personal reserve} (0 when unopened)."""
    found = dict(
        Account.objects.filter(
            casino=casino.pk, player=player.pk, kind__in=[Account.Kind.PLAYER, Account.Kind.RESERVE]
        ).values_list("kind", "balance")
    )
    return {
        Account.Kind.PLAYER: found.get(Account.Kind.PLAYER, 0),
        Account.Kind.RESERVE: found.get(Account.Kind.RESERVE, 0),
    }


def chips_by_player(*, players: Iterable[Model]) -> dict[int, int]:
    """{player id: chips in his player account} for ``players`` (0 for an account never opened;
    negative when he owes a marker). One query: what the cage shows, and the floor beside each
    name at the table."""
    ids = [int(p.pk) for p in players]
    if not ids:
        return {}
    found = dict(
        Account.objects.filter(kind=Account.Kind.PLAYER, player_id__in=ids).values_list(
            "player_id", "balance"
        )
    )
    return {pk: found.get(pk, 0) for pk in ids}


def player_available(*, casino: Model, player: Model) -> int:
    """The chips a player holds outside play: his player account plus his reserve.

    This is what he can put up for a bank (tables.money.banks.bank_fund draws on the reserve when the
    player account is short); a bet is checked against the player account alone
    (tables.money.floor.stake_check_affordable).
    Chips in a bank he holds are in play and not counted here.
    """
    return sum(player_balances(casino=casino, player=player).values())


def coup_transactions(*, coup: Model) -> QuerySet[Transaction]:
    """Every posting of a coup (bank funding, provisional, reversal, settlement), oldest first,
    entries and their accounts prefetched."""
    return Transaction.objects.filter(coup=coup.pk).order_by("id").prefetch_related("entries__account")


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
    credits: int  # sum of |negative balances|: the cage's chips in circulation, the markers
    markers: int = 0  # of the credits, what players owe the house (player accounts below zero)

    @property
    def balanced(self) -> bool:
        return self.debits == self.credits


def trial_balance(*, casino: Model | None = None) -> TrialBalance:
    accounts = Account.objects.order_by("casino_id", "kind", "name", "id")
    if casino is not None:
        accounts = accounts.filter(casino=casino.pk)
    rows = [
        TrialBalanceRow(a["id"], a["casino_id"], a["name"], a["kind"], a["balance"])
        for a in accounts.values("id", "casino_id", "name", "kind", "balance")
    ]
    return TrialBalance(
        rows=rows,
        debits=sum(r.balance for r in rows if r.balance > 0),
        credits=sum(-r.balance for r in rows if r.balance < 0),
        markers=sum(-r.balance for r in rows if r.balance < 0 and r.kind == Account.Kind.PLAYER),
    )


# ------------------------------------------------------------------------------------ markers


@dataclass(frozen=True, slots=True)
class Marker:
    """A player's marker: the chips he owes the house (his player account below zero), run up
    where the rules he played under let him borrow."""

    account_id: int
    player_id: int
    account: str
    owed: int


def markers(*, casino: Model | None = None) -> list[Marker]:
    """Every player account below zero (of ``casino``), the largest debt first."""
    accounts = Account.objects.filter(kind=Account.Kind.PLAYER, balance__lt=0)
    if casino is not None:
        accounts = accounts.filter(casino=casino.pk)
    return [
        Marker(a["id"], a["player_id"], a["name"], -a["balance"])
        for a in accounts.order_by("balance", "id").values("id", "player_id", "name", "balance")
    ]


@dataclass(frozen=True, slots=True)
class Drift:
    account_id: int
    account: str
    balance: int
    entries_total: int


def ledger_drift(*, casino: Model | None = None) -> list[Drift]:
    """Accounts whose stored balance differs from the sum of their entries (should be none)."""
    accounts = Account.objects.annotate(entries_total=Sum("entries__amount", default=0)).exclude(
        balance=F("entries_total")
    )
    if casino is not None:
        accounts = accounts.filter(casino=casino.pk)
    return [Drift(a.pk, a.name, a.balance, a.entries_total) for a in accounts.order_by("id")]


def unbalanced_transactions(*, casino: Model | None = None) -> list[tuple[int, int]]:
    """(transaction id, sum of its entries) for every transaction that does not sum to zero."""
    txns = Transaction.objects.annotate(total=Sum("entries__amount", default=0)).exclude(total=0)
    if casino is not None:
        txns = txns.filter(casino=casino.pk)
    return list(txns.order_by("id").values_list("id", "total"))


# ------------------------------------------------------------------------------------ clock hours


def clock_hour_floor(at: dt.datetime) -> dt.datetime:
    """The start of the local clock hour (settings.TIME_ZONE) containing ``at``, in UTC."""
    local = timezone.localtime(at)
    return local.replace(minute=0, second=0, microsecond=0).astimezone(dt.UTC)
