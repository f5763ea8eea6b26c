"""The bank's money: a bank declared (the table's bank account brought up to the coup's bank, from
the banker's chips and any club spectators' shares), a bank closed (its chips and the banker's
reserve back to him), a reserve returned; and who holds the chips of a table's bank.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from ledger.models import Account, Entry, Transaction
from ledger.selectors import account_find
from ledger.services import (
    InsufficientChips,
    Posting,
    account_may_go_negative,
    account_spec,
    accounts_by_pk,
    accounts_lock,
    posting_find,
    postings_write,
)
from tables.models import Casino, Coup, Player, RuleProfile, Table
from tables.money.sql import coup_context

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
    holder_id = bank_holder_id(bank=bank)
    if holder_id is not None and holder_id != banker.pk:
        holder = Player.objects.get(pk=holder_id)
        raise ValidationError(
            f"The bank of {table.name} still holds {bank.balance} chips of {holder}: close that bank first."
        )


@transaction.atomic
def bank_fund(
    *,
    coup: Coup,
    amount: int,
    actor: Any,
    key: str,
    shares: Sequence[tuple[Player, int]] = (),
) -> Transaction | None:
    """Bank declared: the table's bank account is brought up to the coup's bank, moving the
    increase from the banker's player account and, where he may not borrow and it is short, from
    his reserve. InsufficientChips when he has not got it.

    ``amount`` is the increase over what the bank account holds (``coup.bank`` itself is accepted
    too: the posting is always ``coup.bank`` minus what the bank holds, and any other value is
    refused). Nothing to add posts nothing and returns None.

    ``shares``: club spectators putting up part of a new bank with the banker's consent:
    each (player, chips) comes from that player's account, the banker puts up the rest.
    """
    if type(amount) is not int or amount < 0:
        raise ValidationError(f"A bank is raised by a whole number of chips, not {amount!r}.")
    coup = coup_context(coup.pk)
    table, banker = coup.shoe.table, coup.banker
    casino = table.casino
    if (txn := posting_find(key, casino=casino, kind=TKind.BANK_FUND, coup=coup)) is not None:
        return txn
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
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.BANK_FUND, coup=coup)) is not None:
        return txn
    bank, wallet, reserve = (accounts[s] for s in specs)
    bank_check_holder(bank, banker, table)
    increase = coup.bank - bank.balance
    if increase < 0:
        raise ValidationError(
            f"The bank holds {bank.balance} chips: a bank of {coup.bank} would lower it "
            "(give up the bank instead)."
        )
    if amount not in (increase, coup.bank):
        raise ValidationError(
            f"Coup {coup.number} declares a bank of {coup.bank} and the bank holds {bank.balance}: "
            f"{increase} chips are to be added, not {amount}."
        )
    if increase == 0:
        return None
    shared = 0
    share_entries: dict[int, int] = {}
    for (player, chips), spec in zip(shares, share_specs, strict=True):
        if type(chips) is not int or chips <= 0 or player.pk == banker.pk:
            raise ValidationError("A spectator's share of a bank is a positive number of chips.")
        account = accounts[spec]
        if account.balance < chips and not account_may_go_negative(account):
            raise InsufficientChips(
                f"{player} has only {account.balance} chips: a share of {chips} is refused."
            )
        share_entries[account.pk] = share_entries.get(account.pk, 0) - chips
        shared += chips
    if shared >= increase:
        raise ValidationError(
            "The spectators put up part of the bank, not all of it: the banker puts up the rest."
        )
    increase -= shared
    if wallet.overdraft_allowed and RuleProfile.objects.get(pk=table.profile_id).borrowing_allowed:
        from_wallet, from_reserve = increase, 0
    else:
        from_wallet = min(increase, max(wallet.balance, 0))
        from_reserve = increase - from_wallet
        if from_reserve > reserve.balance:
            has = bank.balance + max(wallet.balance, 0) + reserve.balance
            raise InsufficientChips(f"{banker} has only {has} chips; a bank of {coup.bank} is refused.")
    entries = {
        bank.pk: increase + shared,
        wallet.pk: -from_wallet,
        reserve.pk: -from_reserve,
        **share_entries,
    }
    posting = Posting(
        TKind.BANK_FUND,
        key,
        {pk: a for pk, a in entries.items() if a},
        f"coup {coup.number}: bank of {coup.bank} declared by {banker}",
        coup=coup,
    )
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]


@transaction.atomic
def bank_close(*, table: Table, banker: Player, actor: Any, key: str) -> Transaction | None:
    """A bank ends (lost or passed): whatever the table's bank account holds, and the banker's
    reserve, go back to his player account. Nothing to return posts nothing (None)."""
    table = Table.objects.select_related("casino").get(pk=table.pk)
    casino = table.casino
    if (txn := posting_find(key, casino=casino, kind=TKind.BANK_CLOSE)) is not None:
        return txn
    specs = [
        account_spec(Kind.BANK, table=table),
        account_spec(Kind.PLAYER, banker),
        account_spec(Kind.RESERVE, banker),
    ]
    accounts = accounts_lock(
        casino=casino, specs=specs, actor=actor, players={banker.pk: banker}, tables={table.pk: table}
    )
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.BANK_CLOSE)) is not None:
        return txn
    bank, wallet, reserve = (accounts[s] for s in specs)
    bank_check_holder(bank, banker, table)
    returned = bank.balance + reserve.balance
    if returned == 0:
        return None
    entries = {bank.pk: -bank.balance, reserve.pk: -reserve.balance, wallet.pk: returned}
    posting = Posting(
        TKind.BANK_CLOSE,
        key,
        {pk: a for pk, a in entries.items() if a},
        f"bank of {banker} at {table.name} closed: "
        f"{bank.balance} from the bank, {reserve.balance} from the reserve",
    )
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]


def reserve_return(*, casino: Casino, player: Player, actor: Any, key: str) -> Transaction | None:
    """The player's reserve goes back to his player account (a series' end). Nothing to
    return posts nothing."""
    if (txn := posting_find(key, casino=casino, kind=TKind.RESERVE_RETURN)) is not None:
        return txn
    specs = [account_spec(Kind.PLAYER, player), account_spec(Kind.RESERVE, player)]
    accounts = accounts_lock(casino=casino, specs=specs, actor=actor, players={player.pk: player})
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.RESERVE_RETURN)) is not None:
        return txn
    wallet, reserve = (accounts[s] for s in specs)
    if reserve.balance == 0:
        return None
    posting = Posting(
        TKind.RESERVE_RETURN,
        key,
        {reserve.pk: -reserve.balance, wallet.pk: reserve.balance},
        f"reserve of {player} returned",
    )
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]
