"""The money rules of the game, one owner each: what a bank declared, a bank closed, a bet and a
coup's settlement move, worked out from balances the caller already holds.

Three callers hold those balances in three ways, and all three ask here so that no rule is
written twice:
- the live services (tables/money/banks.py, settlement.py, floor.py), which read and lock the
  accounts a posting touches;
- the batched importer (tables/services/import_batch.py), which holds a chunk's accounts in memory
  and moves their balances itself;
- the books check (tables/money/books.py), which replays a coup's settlement against its entries.

Nothing here writes; a rule refuses with the same exception and words wherever it is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_noop

from chemin_de_fer.engine.coup import Settlement
from core.sentence import said
from ledger.services import InsufficientChips, UnbalancedTransaction
from tables.models import Player


class Holding(Protocol):
    """An account as these rules read it: its id and its balance (a ledger Account, or the books
    check's id-only stand-in, whose balance is not read)."""

    pk: Any
    balance: int


# --------------------------------------------------------------------------------------- the bank
def bank_holder_check(*, holder_id: int | None, banker: Player, bank_balance: int, table_name: str) -> None:
    """Refuse to move a bank that still holds another player's chips (``holder_id``: whose chips
    the bank account holds, None when it is empty). Reads only to name the holder it refuses."""
    if holder_id is not None and holder_id != banker.pk:
        holder = Player.objects.get(pk=holder_id)
        raise ValidationError(
            said(
                "The bank of {table} still holds {balance} chips of {holder}: close that bank first.",
                table=table_name,
                balance=bank_balance,
                holder=str(holder),
            )
        )


def bank_increase(*, bank_balance: int, coup_bank: int) -> int:
    """What a declared bank adds to the table's bank account; a bank below what it holds is
    refused (the banker gives up the bank instead)."""
    increase = coup_bank - bank_balance
    if increase < 0:
        raise ValidationError(
            said(
                "The bank holds {balance} chips: a bank of {bank} would lower it (give up the bank instead).",
                balance=bank_balance,
                bank=coup_bank,
            )
        )
    return increase


@dataclass(frozen=True)
class BankSide:
    """The three accounts a player's bank moves: the table's bank, the banker's player account
    (his chips) and his reserve."""

    bank: Holding
    wallet: Holding
    reserve: Holding


def bank_fund_entries(
    side: BankSide,
    *,
    increase: int,
    coup: Any,
    banker: Player,
    borrowing: bool,
    shares: Mapping[int, int] | None = None,
) -> dict[int, int]:
    """The entries of a bank raised by ``increase`` for ``coup`` (its number and bank): the club
    spectators' ``shares`` (account id -> chips, negative: what each puts up) and the banker's part
    of the rest. Where he may borrow his player account pays it all (below zero is his marker);
    where he may not, his chips first and then his reserve, and a bank he has not got is refused."""
    shares = shares or {}
    own = increase + sum(shares.values())  # the shares are negative: what the spectators put up
    if borrowing:
        from_wallet, from_reserve = own, 0
    else:
        from_wallet = min(own, max(side.wallet.balance, 0))
        from_reserve = own - from_wallet
        if from_reserve > side.reserve.balance:
            has = side.bank.balance + max(side.wallet.balance, 0) + side.reserve.balance
            # said(): English for the API and the tests, said again in the screen's language
            raise InsufficientChips(
                said(
                    "{banker} has only {has} chips; a bank of {bank} is refused.",
                    banker=str(banker),
                    has=has,
                    bank=coup.bank,
                )
            )
    entries = {side.bank.pk: increase, side.wallet.pk: -from_wallet, side.reserve.pk: -from_reserve, **shares}
    return {pk: a for pk, a in entries.items() if a}


def bank_fund_memo(*, coup: Any, banker: Player) -> str:
    return f"coup {coup.number}: bank of {coup.bank} declared by {banker}"


def bank_close_entries(side: BankSide) -> dict[int, int]:
    """A bank ended: what the table's bank holds and the banker's reserve go back to his player
    account (no entries when there is nothing to return)."""
    bank, reserve = side.bank, side.reserve
    returned = bank.balance + reserve.balance
    if returned == 0:
        return {}
    entries = {bank.pk: -bank.balance, reserve.pk: -reserve.balance, side.wallet.pk: returned}
    return {pk: a for pk, a in entries.items() if a}


def bank_close_memo(side: BankSide, *, banker: Player, table_name: str) -> str:
    return (
        f"bank of {banker} at {table_name} closed: "
        f"{side.bank.balance} from the bank, {side.reserve.balance} from the reserve"
    )


# ---------------------------------------------------------------------------------------- a bet
#: a bet beyond what the player may stake, by whether it is his series chips that fall short, then
#: whether he already staked in the coups being played: whole patterns, not one with optional
#: clauses, so that a translation orders its own words
BET_REFUSALS = {
    False: (
        gettext_noop("{player} has only {balance} chips; a bet of {amount} is refused."),
        gettext_noop(
            "{player} has only {balance} chips; a bet of {amount} besides the {staked} already staked is "
            "refused."
        ),
    ),
    True: (
        gettext_noop("{player} has only {balance} chips in the series; a bet of {amount} is refused."),
        gettext_noop(
            "{player} has only {balance} chips in the series; a bet of {amount} besides the {staked} "
            "already staked is refused."
        ),
    ),
}


def bet_refusal(*, player: Player, balance: int, amount: int, already_staked: int, series: bool) -> None:
    """Refuse a bet of ``amount`` beyond the player's ``balance`` (his account, or his series chips),
    with what he ``already_staked``: InsufficientChips, said in the screen's language."""
    if balance >= amount + already_staked:
        return
    without, besides = BET_REFUSALS[series]
    if already_staked:
        raise InsufficientChips(
            said(besides, player=str(player), balance=balance, amount=amount, staked=already_staked)
        )
    raise InsufficientChips(said(without, player=str(player), balance=balance, amount=amount))


def stake_check(*, player: Player, balance: int, amount: int, already_staked: int) -> None:
    """Refuse a bet the player cannot cover from the ``balance`` of his player account, with what
    he ``already_staked`` in the coups being played. Asked only where the coup's rules forbid
    borrowing."""
    bet_refusal(player=player, balance=balance, amount=amount, already_staked=already_staked, series=False)


# ------------------------------------------------------------------------------- a home series
@dataclass(frozen=True)
class SeriesPurse:
    """What a series running at the table lets a player stake (docs/rules.md §10): his chips
    counted from his series buy-in (tables.money.series: what he holds less ``chips_before``).
    ``chips_before`` None: he is not an entrant of the series, and stakes nothing in it."""

    chips_before: int | None


def series_stake_check(
    *,
    player: Player,
    purse: SeriesPurse,
    holds: int,
    amount: int,
    already_staked: int = 0,
    bank: bool = False,
) -> None:
    """While a series runs at the table, refuse a bet (or a banco), or a ``bank``, beyond the
    chips the player holds in the series: what he ``holds`` (player account and reserve, and the
    bank he holds for a bank) less his ``chips_before``, with what he ``already_staked`` in the
    coup. A player who is not an entrant stakes nothing."""
    if purse.chips_before is None:
        name = str(player)
        if bank:
            raise ValidationError(
                said("{player} is not playing the series at this table: his bank is refused.", player=name)
            )
        raise ValidationError(
            said("{player} is not playing the series at this table: his bet is refused.", player=name)
        )
    has = max(holds - purse.chips_before, 0)
    if has >= amount + already_staked:
        return
    if bank:
        raise InsufficientChips(
            said(
                "{banker} has only {has} chips in the series; a bank of {bank} is refused.",
                banker=str(player),
                has=has,
                bank=amount,
            )
        )
    bet_refusal(player=player, balance=has, amount=amount, already_staked=already_staked, series=True)


# ------------------------------------------------------------------- a club spectator's share
def share_check(
    *, player: Player, balance: int, amount: int, borrowing: bool, house_limit: int | None, shared: int = 0
) -> None:
    """Refuse a club spectator's share of a bank (``amount``) that the bank cannot take: where the
    rules forbid borrowing, more than the ``balance`` of his player account; where the house limits
    the bank, the shares (``shared``: the others' already put up) reaching that limit, since the
    banker puts up part of the bank too."""
    if not borrowing and balance < amount:
        raise InsufficientChips(
            said(
                "{player} has only {balance} chips: a share of {amount} is refused.",
                player=str(player),
                balance=balance,
                amount=amount,
            )
        )
    if house_limit is not None and shared + amount >= house_limit:
        raise ValidationError(
            said(
                "A bank is at most {limit} chips (the house limit) and the banker puts up part of it: "
                "a share of {amount} is refused.",
                limit=house_limit,
                amount=amount,
            )
        )


# ------------------------------------------------------------------------------ a coup's settlement
@dataclass
class CoupAccounts:
    """The accounts a coup's posting touches (for the house's bank, the cage stands for the
    banker's reserve and player account)."""

    by_spec: dict[Any, Any]
    punters: dict[str, Holding]
    bank: Holding
    reserve: Holding  # the banker's reserve (the cage, for the house)
    wallet: Holding  # the banker's player account (the cage, for the house)
    levy: Holding


def settlement_punters(
    *, settlement: Settlement, punters: Mapping[str, Player], banker: Player
) -> dict[str, Player]:
    """The players the engine's ``settlement`` pays or takes from, by punter key: it must sum to
    zero, name only punters given, and never the banker against his own bank."""
    if settlement.banker_net + sum(settlement.punters.values()) + settlement.tax != 0:
        raise UnbalancedTransaction("the settlement does not sum to zero")
    missing = sorted(set(settlement.punters) - set(punters))
    if missing:
        raise ValidationError(said("No player given for punter(s) {punters}.", punters=", ".join(missing)))
    chosen = {k: punters[k] for k in settlement.punters}
    if any(p.pk == banker.pk for p in chosen.values()):
        raise ValidationError(said("{banker} cannot bet against their own bank.", banker=str(banker)))
    return chosen


def settlement_entries(
    *, settlement: Settlement, accounts: CoupAccounts, uncovered_to_reserve: bool, house_limit: int | None
) -> dict[int, int]:
    """The entries of one engine Settlement against the table's bank (docs/ledger.md)."""
    bank, reserve = accounts.bank, accounts.reserve
    entries: dict[int, int] = {}

    def move(account: Holding, amount: int) -> None:
        entries[account.pk] = entries.get(account.pk, 0) + amount

    for punter, delta in settlement.punters.items():
        move(accounts.punters[punter], delta)
        move(bank, -delta)
    if settlement.tax:
        move(bank, -settlement.tax)
        move(accounts.levy, settlement.tax)
    if uncovered_to_reserve and settlement.uncovered:
        move(bank, -settlement.uncovered)
        move(reserve, settlement.uncovered)
    after = settlement.covered + settlement.uncovered + entries.get(bank.pk, 0)
    if settlement.next_bank_min is not None:  # the banker goes on (win or stand-off)
        if house_limit is not None and after > house_limit:
            move(bank, house_limit - after)
            move(reserve, after - house_limit)
            after = house_limit
        if after != settlement.next_bank_min:
            raise ValueError(
                f"the settlement leaves {after} chips in the bank but says the next bank is at least "
                f"{settlement.next_bank_min}: were uncovered_to_reserve/house_limit the engine's?"
            )
    return {pk: a for pk, a in entries.items() if a}


def settlement_at_stake_check(
    *, settlement: Settlement, bank_balance: int, table_name: str, coup_number: int
) -> None:
    """A coup is settled against the bank it was played for: the table's bank account must hold
    exactly it (the bank declared first)."""
    at_stake = settlement.covered + settlement.uncovered
    if bank_balance != at_stake:
        raise ValidationError(
            said(
                "The bank of {table} holds {balance} chips but coup {number} was played for a bank of "
                "{at_stake}: declare the bank (bank_fund) first.",
                table=table_name,
                balance=bank_balance,
                number=coup_number,
                at_stake=at_stake,
            )
        )


def to_banker_wallet(entries: Mapping[int, int], accounts: CoupAccounts) -> dict[int, int]:
    """Move the bank's and the reserve's part of ``entries`` to the banker's player account (the
    coup's bank has moved on: bank_close returned his chips there)."""
    moved = dict(entries)
    side = moved.pop(accounts.bank.pk, 0) + moved.pop(accounts.reserve.pk, 0)
    moved[accounts.wallet.pk] = moved.get(accounts.wallet.pk, 0) + side
    return {pk: a for pk, a in moved.items() if a}


def settlement_memo(settlement: Settlement, *, coup_number: int, restored: bool = False) -> str:
    """What a settlement's posting says: the coup, ``restored`` (a pit boss approved its
    correction), and its outcome."""
    if settlement.next_bank_min is None:
        outcome = "punters win"
    elif settlement.banker_net > 0 or settlement.tax > 0:
        outcome = "bank wins"
    else:
        outcome = "stand-off"
    coup = f"coup {coup_number} restored" if restored else f"coup {coup_number}"
    return f"{coup}: {outcome}, covered {settlement.covered}, levy {settlement.tax}"
