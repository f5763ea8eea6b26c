"""The bank's money: a bank declared (the table's bank account brought up to the coup's bank, from
the banker's chips and any club spectators' shares), a bank closed (its chips and the banker's
reserve back to him), a reserve returned; and who holds the chips of a table's bank. When the
house banks a table, its bank comes from and goes back to the cage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from core.atomic import service_atomic
from core.sentence import said
from ledger.models import Account, Entry, Transaction
from ledger.selectors import account_find
from ledger.services import (
    AccountSpec,
    Posting,
    account_spec,
    accounts_by_pk,
    accounts_lock,
    posting_find,
    postings_write,
)
from tables.models import Casino, Coup, Player, Table
from tables.money.rules import (
    BankSide,
    SeriesPurse,
    bank_close_entries,
    bank_close_memo,
    bank_fund_entries,
    bank_fund_memo,
    bank_holder_check,
    bank_increase,
    series_stake_check,
    share_check,
)
from tables.money.settlement import coup_context

Kind = Account.Kind
TKind = Transaction.Kind


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


def bank_check_holder(bank: Account, banker: Player, table: Table) -> None:
    """Refuse to move a bank that still holds another player's chips."""
    bank_holder_check(
        holder_id=bank_holder_id(bank=bank), banker=banker, bank_balance=bank.balance, table_name=table.name
    )


def _locked_unless_posted(
    key: str,
    kind: str,
    *,
    casino: Casino,
    specs: list[AccountSpec],
    actor: Any,
    coup: Coup | None = None,
    players: Mapping[int, Player] | None = None,
    tables: Mapping[int, Table] | None = None,
    coup_new: bool = False,
) -> tuple[Transaction | None, dict[AccountSpec, Account]]:
    """The posting already made under ``key`` (a replay, answered before any lock), or else the
    accounts ``specs`` locked and the posting asked for again: one a request that held these
    accounts made meanwhile (a replay waits for its first run here). Returns (that posting or None,
    the accounts locked). ``coup_new``: ``key`` is the own key of a coup the caller's transaction
    has just written (its start), so nothing can be posted under it yet: the accounts are locked
    and nothing is asked (the INSERT's ON CONFLICT stays the last word)."""
    if coup_new:
        accounts = accounts_lock(casino=casino, specs=specs, actor=actor, players=players, tables=tables)
        return None, accounts
    if (txn := posting_find(key, casino=casino, kind=kind, coup=coup)) is not None:
        return txn, {}
    accounts = accounts_lock(casino=casino, specs=specs, actor=actor, players=players, tables=tables)
    return posting_find(key, casino=casino, kind=kind, coup=coup), accounts


@service_atomic
def bank_fund(
    *,
    coup: Coup,
    amount: int,
    actor: Any,
    key: str,
    borrowing: bool,
    shares: Sequence[tuple[Player, int]] = (),
    series: SeriesPurse | None = None,
    coup_new: bool = False,
) -> Transaction | None:
    """Bank declared: the table's bank account is brought up to the coup's bank, moving the
    increase from the banker's player account and, where he may not borrow and it is short, from
    his reserve. InsufficientChips when he has not got it.

    ``borrowing``: whether the coup's rules let the players borrow (the caller reads it from the
    coup's snapshot). Then the banker's player account pays the whole increase, going below zero
    if need be (his marker), and so does a spectator's putting up a share.

    ``amount`` is the increase over what the bank account holds (``coup.bank`` itself is accepted
    too: the posting is always ``coup.bank`` minus what the bank holds, and any other value is
    refused). Nothing to add posts nothing and returns None.

    ``shares``: club spectators putting up part of a new bank with the banker's consent:
    each (player, chips) comes from that player's account, the banker puts up the rest.

    ``series``: what the home series running at the table lets the banker stake (None: none
    runs): the bank is at most his chips in the series (rules.series_stake_check), borrowing or not.

    ``coup_new``: the caller created ``coup`` in this transaction (its start) and ``key`` is the
    coup's own, so nothing can be posted under it yet: no look for a replay (one statement less
    on every coup's start); the INSERT's ON CONFLICT stays the last word.
    """
    if type(amount) is not int or amount < 0:
        raise ValidationError(
            said("A bank is raised by a whole number of chips, not {amount!r}.", amount=amount)
        )
    coup = coup_context(coup.pk)
    table, banker = coup.shoe.table, coup.banker
    casino = table.casino
    if banker.house:
        if shares:
            raise ValidationError(said("Nobody puts up part of the house's bank."))
        return _house_bank_fund(coup=coup, actor=actor, key=key, coup_new=coup_new)
    specs = [
        account_spec(Kind.BANK, table=table),
        account_spec(Kind.PLAYER, banker),
        account_spec(Kind.RESERVE, banker),
    ]
    share_specs = [account_spec(Kind.PLAYER, player) for player, _ in shares]
    accounts = accounts_lock(
        casino=casino,
        specs=[*specs, *share_specs],
        actor=actor,
        players={banker.pk: banker, **{player.pk: player for player, _ in shares}},
        tables={table.pk: table},
    )
    # a replay, asked once the accounts are locked only: posted by an earlier run, or meanwhile by
    # a request that held these accounts (a replay waits for its first run here). Not asked before
    # the lock too: a replay is rare, and the one read serves both
    if (txn := _replay(key, casino=casino, coup=coup, coup_new=coup_new)) is not None:
        return txn
    bank, wallet, reserve = (accounts[s] for s in specs)
    bank_check_holder(bank, banker, table)
    increase = bank_increase(bank_balance=bank.balance, coup_bank=coup.bank)
    if amount not in (increase, coup.bank):
        raise ValidationError(
            said(
                "Coup {number} declares a bank of {bank} and the bank holds {balance}: "
                "{increase} chips are to be added, not {amount}.",
                number=coup.number,
                bank=coup.bank,
                balance=bank.balance,
                increase=increase,
                amount=amount,
            )
        )
    if increase == 0:
        return None
    if series is not None:
        series_stake_check(
            player=banker,
            purse=series,
            holds=bank.balance + wallet.balance + reserve.balance,
            amount=coup.bank,
            bank=True,
        )
    shared = 0
    share_entries: dict[int, int] = {}
    for (player, chips), spec in zip(shares, share_specs, strict=True):
        if type(chips) is not int or chips <= 0 or player.pk == banker.pk:
            raise ValidationError(said("A spectator's share of a bank is a positive number of chips."))
        account = accounts[spec]
        # the share as it was checked when it was put up (the house limit is the declared bank's)
        share_check(
            player=player, balance=account.balance, amount=chips, borrowing=borrowing, house_limit=None
        )
        share_entries[account.pk] = share_entries.get(account.pk, 0) - chips
        shared += chips
    if shared >= increase:
        raise ValidationError(
            said("The spectators put up part of the bank, not all of it: the banker puts up the rest.")
        )
    side = BankSide(bank=bank, wallet=wallet, reserve=reserve)
    entries = bank_fund_entries(
        side, increase=increase, coup=coup, banker=banker, borrowing=borrowing, shares=share_entries
    )
    posting = Posting(
        TKind.BANK_FUND,
        key,
        entries,
        bank_fund_memo(coup=coup, banker=banker),
        coup=coup,
    )
    overdraft = [wallet.pk, *share_entries] if borrowing else []
    return postings_write(
        casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts), overdraft=overdraft
    )[0]


@transaction.atomic
def bank_close(*, table: Table, banker: Player, actor: Any, key: str) -> Transaction | None:
    """A bank ends (lost or passed): whatever the table's bank account holds, and the banker's
    reserve, go back to his player account. Nothing to return posts nothing (None)."""
    table = Table.objects.select_related("casino").get(pk=table.pk)
    casino = table.casino
    if banker.house:
        return _house_bank_close(table=table, house=banker, actor=actor, key=key)
    specs = [
        account_spec(Kind.BANK, table=table),
        account_spec(Kind.PLAYER, banker),
        account_spec(Kind.RESERVE, banker),
    ]
    posted, accounts = _locked_unless_posted(
        key,
        TKind.BANK_CLOSE,
        casino=casino,
        specs=specs,
        actor=actor,
        players={banker.pk: banker},
        tables={table.pk: table},
    )
    if posted is not None:
        return posted
    bank, wallet, reserve = (accounts[s] for s in specs)
    bank_check_holder(bank, banker, table)
    side = BankSide(bank=bank, wallet=wallet, reserve=reserve)
    entries = bank_close_entries(side)
    if not entries:
        return None
    posting = Posting(
        TKind.BANK_CLOSE, key, entries, bank_close_memo(side, banker=banker, table_name=table.name)
    )
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]


def _replay(key: str, *, casino: Any, coup: Coup, coup_new: bool) -> Transaction | None:
    """The bank's funding already posted under ``key``; never, for a coup its start just wrote."""
    return None if coup_new else posting_find(key, casino=casino, kind=TKind.BANK_FUND, coup=coup)


# --------------------------------------------------------------------------- the house's bank
def _house_bank_fund(*, coup: Coup, actor: Any, key: str, coup_new: bool) -> Transaction | None:
    """The house declared its bank (docs/rules.md §2): the table's bank account is brought to the
    coup's bank from the cage, or what it holds above it goes back to the cage — the house is
    bound by no continuation. Nothing to move posts nothing (None)."""
    table, house = coup.shoe.table, coup.banker
    casino = table.casino
    specs = [account_spec(Kind.BANK, table=table), account_spec(Kind.CAGE)]
    posted, accounts = _locked_unless_posted(
        key, TKind.BANK_FUND, casino=casino, specs=specs, actor=actor, coup=coup, tables={table.pk: table},
        coup_new=coup_new,
    )
    if posted is not None:
        return posted
    bank, cage = (accounts[s] for s in specs)
    bank_check_holder(bank, house, table)
    change = coup.bank - bank.balance
    if change == 0:
        return None
    posting = Posting(
        TKind.BANK_FUND,
        key,
        {bank.pk: change, cage.pk: -change},
        f"coup {coup.number}: bank of {coup.bank} declared by the house (cage {-change:+d})",
        coup=coup,
    )
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]


def _house_bank_close(*, table: Table, house: Player, actor: Any, key: str) -> Transaction | None:
    """The house's bank ends: what the table's bank account holds goes back to the cage."""
    casino = table.casino
    specs = [account_spec(Kind.BANK, table=table), account_spec(Kind.CAGE)]
    posted, accounts = _locked_unless_posted(
        key, TKind.BANK_CLOSE, casino=casino, specs=specs, actor=actor, tables={table.pk: table}
    )
    if posted is not None:
        return posted
    bank, cage = (accounts[s] for s in specs)
    bank_check_holder(bank, house, table)
    memo = f"house bank at {table.name} closed: {bank.balance} back to the cage"
    return _account_empty_into(
        TKind.BANK_CLOSE, key, bank, cage, memo, casino=casino, actor=actor, accounts=accounts
    )


def reserve_return(*, casino: Casino, player: Player, actor: Any, key: str) -> Transaction | None:
    """The player's reserve goes back to his player account (a series' end). Nothing to
    return posts nothing."""
    specs = [account_spec(Kind.PLAYER, player), account_spec(Kind.RESERVE, player)]
    posted, accounts = _locked_unless_posted(
        key, TKind.RESERVE_RETURN, casino=casino, specs=specs, actor=actor, players={player.pk: player}
    )
    if posted is not None:
        return posted
    wallet, reserve = (accounts[s] for s in specs)
    memo = f"reserve of {player} returned"
    return _account_empty_into(
        TKind.RESERVE_RETURN, key, reserve, wallet, memo, casino=casino, actor=actor, accounts=accounts
    )


def _account_empty_into(
    kind: str,
    key: str,
    source: Account,
    to: Account,
    memo: str,
    *,
    casino: Casino,
    actor: Any,
    accounts: Mapping[AccountSpec, Account],
) -> Transaction | None:
    """Everything ``source`` holds goes to ``to``, in one posting on the ``accounts`` the caller
    locked. An empty ``source`` posts nothing (None)."""
    if source.balance == 0:
        return None
    posting = Posting(kind, key, {source.pk: -source.balance, to.pk: source.balance}, memo)
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]
