"""The cage: a player buys chips (buy-in) or cashes them in (cash-out). The cage account is the
counterpart of every chip in circulation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from core.sentence import Listing, said
from ledger.models import Account, Transaction
from ledger.services.accounts import LedgerCasino, LedgerPlayer, account_spec, accounts_by_pk, accounts_lock
from ledger.services.posting import InsufficientChips, Posting, posting_find, postings_write

Kind = Account.Kind
TKind = Transaction.Kind


def cash_out_refusal(
    player: LedgerPlayer, balance: int, amount: int, at_stake: Mapping[str, int] | None = None
) -> str | None:
    """Why a cash-out of ``amount`` is refused to a player holding ``balance`` (None: it is not):
    the cage never pays out more than he holds (a marker is never paid out), nor the chips he
    could still lose in the coups being played: ``at_stake``, by the name of their table (the
    cage asks the games: cage.selectors.chips_at_stake)."""
    if balance < amount:
        # said(): English for the API and the audit trail, said again in the cage screen's language
        return said(
            "{player} has only {balance} chips; a cash-out of {amount} is refused.",
            player=str(player),
            balance=max(balance, 0),
            amount=amount,
        )
    staked = sum((at_stake or {}).values())
    if balance - staked < amount:
        return said(
            "{player} has {balance} chips, {at_stake} of them at stake in a coup in play at {tables}: "
            "a cash-out of {amount} is refused; at most {free} can be cashed out until the coup ends.",
            player=str(player),
            balance=balance,
            at_stake=staked,
            tables=Listing(name for name, chips in (at_stake or {}).items() if chips),
            amount=amount,
            free=max(balance - staked, 0),
        )
    return None


def _cage_move(
    *,
    kind: str,
    casino: LedgerCasino,
    player: LedgerPlayer,
    actor: Any,
    key: str,
    posting: Callable[[Account, Account], Posting],
) -> Transaction:
    """One chip movement between the cage and a player, posted once under ``key``: ``posting``
    makes it from the cage's and the player's accounts, once they are locked (so that what a
    cash-out refuses is read from the balance no other move can change meanwhile)."""
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
    return postings_write(
        casino=casino, actor=actor, postings=[posting(cage, wallet)], accounts=accounts_by_pk(accounts)
    )[0]


@transaction.atomic
def cage_buy_in(
    *, casino: LedgerCasino, player: LedgerPlayer, amount: int, actor: Any, key: str
) -> Transaction:
    """The player buys ``amount`` chips at the cage: cage -amount, player +amount."""
    # type(), not isinstance(): bool is an int subclass, and true or 10.0 are no chips
    if type(amount) is not int or amount <= 0:
        raise ValidationError(
            said("A buy-in is a positive whole number of chips, not {amount!r}.", amount=amount)
        )
    return _cage_move(
        kind=TKind.BUY_IN,
        casino=casino,
        player=player,
        actor=actor,
        key=key,
        posting=lambda cage, wallet: Posting(
            TKind.BUY_IN, key, {cage.pk: -amount, wallet.pk: amount}, f"buy-in {player}"
        ),
    )


@transaction.atomic
def cage_cash_out(
    *,
    casino: LedgerCasino,
    player: LedgerPlayer,
    amount: int,
    actor: Any,
    key: str,
    at_stake: Mapping[str, int] | None = None,
) -> Transaction:
    """The player cashes ``amount`` chips in: player -amount, cage +amount; never more than he
    holds (an overdraft is not paid out), nor what he has ``at_stake`` in the coups being played
    (by table name: the caller asks the games, under the player's account lock)."""
    if type(amount) is not int or amount <= 0:  # a buy-in's check, in words of its own to translate
        raise ValidationError(
            said("A cash-out is a positive whole number of chips, not {amount!r}.", amount=amount)
        )

    def paid_out(cage: Account, wallet: Account) -> Posting:
        if (refusal := cash_out_refusal(player, wallet.balance, amount, at_stake)) is not None:
            raise InsufficientChips(refusal)
        return Posting(TKind.CASH_OUT, key, {wallet.pk: -amount, cage.pk: amount}, f"cash-out {player}")

    return _cage_move(
        kind=TKind.CASH_OUT, casino=casino, player=player, actor=actor, key=key, posting=paid_out
    )
