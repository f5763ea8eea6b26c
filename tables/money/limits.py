"""What a player may stake where he may not borrow: a bet must be covered by his own chips."""

from __future__ import annotations

from ledger.models import Account
from ledger.selectors import account_find
from ledger.services import InsufficientChips
from tables.models import Casino, Player

Kind = Account.Kind


def bet_check_affordable(*, casino: Casino, player: Player, amount: int, already_staked: int) -> None:
    """Refuse a bet the player cannot cover from his player account (with what he already staked
    in the coups being played). Asked only where the coup's rules forbid borrowing (the caller
    decides, tables.money.floor.bet_check_affordable); reads only, the bet itself moves no chips."""
    account = account_find(casino=casino, kind=Kind.PLAYER, player=player)
    balance = account.balance if account is not None else 0
    if balance < amount + already_staked:
        staked = f" besides the {already_staked} already staked" if already_staked else ""
        raise InsufficientChips(f"{player} has only {balance} chips; a bet of {amount}{staked} is refused.")
