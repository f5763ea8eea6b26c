"""A club spectator's share of the bank: taking it out of the table's bank account. (Putting a
share up, with the banker's consent, is part of declaring the bank: banks.bank_fund's ``shares``.)
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from core.sentence import said
from ledger.models import Account, Transaction
from ledger.services import (
    Posting,
    account_spec,
    accounts_by_pk,
    accounts_lock,
    posting_find,
    postings_write,
)
from tables.models import Coup, Player
from tables.money.banks import bank_check_holder
from tables.money.settlement import coup_context

Kind = Account.Kind
TKind = Transaction.Kind


@transaction.atomic
def bank_share_out(*, coup: Coup, player: Player, amount: int, actor: Any, key: str) -> Transaction | None:
    """A club spectator takes his share out of the bank, before a deal: from the
    table's bank account to his player account. ``coup`` is the bank's last coup (the posting
    belongs to that bank). Nothing to take posts nothing."""
    if type(amount) is not int or amount < 0:
        raise ValidationError(said("A share is a whole number of chips, not {amount!r}.", amount=amount))
    coup = coup_context(coup.pk)
    table = coup.shoe.table
    casino = table.casino
    if (txn := posting_find(key, casino=casino, kind=TKind.BANK_SHARE, coup=coup)) is not None:
        return txn
    if amount == 0:
        return None
    specs = [account_spec(Kind.BANK, table=table), account_spec(Kind.PLAYER, player)]
    accounts = accounts_lock(
        casino=casino, specs=specs, actor=actor, players={player.pk: player}, tables={table.pk: table}
    )
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.BANK_SHARE, coup=coup)) is not None:
        return txn
    bank, wallet = (accounts[s] for s in specs)
    bank_check_holder(bank, coup.banker, table)
    if amount > bank.balance:
        raise ValidationError(
            said(
                "The bank holds {balance} chips: a share of {amount} cannot come out of it.",
                balance=bank.balance,
                amount=amount,
            )
        )
    posting = Posting(
        TKind.BANK_SHARE,
        key,
        {bank.pk: -amount, wallet.pk: amount},
        f"coup {coup.number}: {player} takes their share of the bank, {amount}",
        coup=coup,
    )
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]
