"""What a player may stake: a bet must be covered by his own chips where he may not borrow."""

from __future__ import annotations

from ledger.models import Account
from ledger.selectors import account_find
from ledger.services import InsufficientChips
from tables.models import Casino, Player

Kind = Account.Kind


def bet_check_affordable(*, casino: Casino, player: Player, amount: int, already_staked: int) -> None:
    """Refuse a bet the player cannot cover from his player account (with what he already staked
    this coup) where he may not borrow. Reads only; the bet itself moves no chips."""
    account = account_find(casino=casino, kind=Kind.PLAYER, player=player)
    overdraft = account.overdraft_allowed if account is not None else casino.players_may_borrow()
    if overdraft:
        return
    balance = account.balance if account is not None else 0
    if balance < amount + already_staked:
        staked = f" besides the {already_staked} already staked" if already_staked else ""
        raise InsufficientChips(f"{player} has only {balance} chips; a bet of {amount}{staked} is refused.")
