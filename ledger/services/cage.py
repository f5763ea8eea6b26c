"""The cage: a player buys chips (buy-in) or cashes them in (cash-out). The cage account is the
counterpart of every chip in circulation."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from core.sentence import said
from ledger.models import Account, Transaction
from ledger.services.accounts import LedgerCasino, LedgerPlayer, account_spec, accounts_by_pk, accounts_lock
from ledger.services.posting import InsufficientChips, Posting, posting_find, postings_write

Kind = Account.Kind
TKind = Transaction.Kind


def _positive_chips(amount: Any, *, buy_in: bool) -> None:
    if type(amount) is not int or amount <= 0:
        # a pattern for each: a translation words a buy-in and a cash-out its own way
        if buy_in:
            raise ValidationError(
                said("A buy-in is a positive whole number of chips, not {amount!r}.", amount=amount)
            )
        raise ValidationError(
            said("A cash-out is a positive whole number of chips, not {amount!r}.", amount=amount)
        )


def cash_out_refusal(player: LedgerPlayer, balance: int, amount: int) -> str | None:
    """Why a cash-out of ``amount`` is refused to a player holding ``balance`` (None: it is not):
    the cage never pays out more than he holds (a marker is never paid out)."""
    if balance < amount:
        # said(): English for the API and the audit trail, said again in the cage screen's language
        return said(
            "{player} has only {balance} chips; a cash-out of {amount} is refused.",
            player=str(player),
            balance=max(balance, 0),
            amount=amount,
        )
    return None


def _cage_move(
    *, kind: str, casino: LedgerCasino, player: LedgerPlayer, amount: int, actor: Any, key: str
) -> Transaction:
    """One chip movement between the cage and a player (``kind`` BUY_IN: to the player, CASH_OUT:
    back to the cage), posted once under ``key``."""
    _positive_chips(amount, buy_in=kind == TKind.BUY_IN)
    if (txn := posting_find(key, casino=casino, kind=kind)) is not None:
        return txn
    accounts = accounts_lock(
        casino=casino,
        specs=[account_spec(Kind.CAGE), account_spec(Kind.PLAYER, player)],
        actor=actor,
        players={player.pk: player},
    )
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=kind)) is not None:
        return txn
    cage, wallet = accounts[account_spec(Kind.CAGE)], accounts[account_spec(Kind.PLAYER, player)]
    if kind == TKind.BUY_IN:
        posting = Posting(kind, key, {cage.pk: -amount, wallet.pk: amount}, f"buy-in {player}")
    else:
        if (refusal := cash_out_refusal(player, wallet.balance, amount)) is not None:
            raise InsufficientChips(refusal)
        posting = Posting(kind, key, {wallet.pk: -amount, cage.pk: amount}, f"cash-out {player}")
    return postings_write(casino=casino, actor=actor, postings=[posting], accounts=accounts_by_pk(accounts))[
        0
    ]


@transaction.atomic
def cage_buy_in(
    *, casino: LedgerCasino, player: LedgerPlayer, amount: int, actor: Any, key: str
) -> Transaction:
    """The player buys ``amount`` chips at the cage: cage -amount, player +amount."""
    return _cage_move(kind=TKind.BUY_IN, casino=casino, player=player, amount=amount, actor=actor, key=key)


@transaction.atomic
def cage_cash_out(
    *, casino: LedgerCasino, player: LedgerPlayer, amount: int, actor: Any, key: str
) -> Transaction:
    """The player cashes ``amount`` chips in: player -amount, cage +amount; never more than he
    holds (an overdraft is not paid out)."""
    return _cage_move(kind=TKind.CASH_OUT, casino=casino, player=player, amount=amount, actor=actor, key=key)
