"""Writes to the chip ledger. Every posting goes through one function, ``_post`` (public face:
``transaction_post``): it locks the accounts it touches in id order, writes the transaction and its
entries, moves the balances with F() and records the audit event, all in the caller's database
transaction. Every service here is idempotent by its key: posting a key again returns the first
transaction and posts nothing. See docs/ledger.md for the entries each service writes.

Lock order, the same for every poster: the audit chain's advisory lock (which every posting needs
anyway, for its audit event), then the accounts by ascending id. Taking the chain lock first means
two postings never hold account locks while waiting for each other's audit lock, and a replayed key
is found before anything is computed.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from audit.services import audit_chain_lock, audit_record
from audit.snapshot import model_snapshot
from ledger import fees as feecalc
from ledger import selectors
from ledger import sql as hot_sql
from ledger.models import Account, Entry, FeeHour, Series, SeriesEntrant, Transaction
from tables.models import Casino, Coup, CoupStep, Player, RuleProfile, Seat, SessionPause, Table, TableSession
from tables.rules.coup import Settlement

logger = logging.getLogger(__name__)

Kind = Account.Kind
TKind = Transaction.Kind
NEGATIVE_ALLOWED = "cage"


class InsufficientChips(ValidationError):
    """A player (or account) does not hold the chips a posting needs."""


class IdempotencyConflict(ValidationError):
    """An idempotency key already names a different posting."""


class UnbalancedTransaction(ValueError):
    """Entries that do not sum to zero, or that are not whole chips: a bug in the caller."""


# ------------------------------------------------------------------------------------- accounts


def _borrowing_allowed(casino: Casino) -> bool:
    """Whether the casino's player accounts may be overdrawn: it has tables and all of them allow
    borrowing (the home profile does not). Decided when the account is opened."""
    tables = Table.objects.filter(casino=casino)
    return tables.exists() and not tables.filter(profile__borrowing_allowed=False).exists()


def _account_name(casino: Casino, kind: str, player: Player | None, table: Table | None) -> str:
    if player is not None:
        return f"{kind}: {player.display_name} (#{player.pk})"
    if table is not None:
        return f"bank: {table.name} ({casino.name})"
    return f"{str(Kind(kind).label).lower()}: {casino.name}"


_Spec = tuple[str, int | None, int | None]  # (kind, player id, table id)


def _spec(kind: str, player: Player | None = None, table: Table | None = None) -> _Spec:
    return (kind, player.pk if player is not None else None, table.pk if table is not None else None)


def _account_open(
    *, casino: Casino, kind: str, player: Player | None, table: Table | None, actor: Any
) -> Account:
    if player is not None and player.casino_id != casino.pk:
        raise ValidationError(f"{player} is not a player of {casino}.")
    if table is not None and table.casino_id != casino.pk:
        raise ValidationError(f"{table} is not a table of {casino}.")
    try:
        with transaction.atomic():
            account = Account.objects.create(
                casino=casino,
                kind=kind,
                player=player,
                table=table,
                name=_account_name(casino, kind, player, table),
                overdraft_allowed=kind == Kind.PLAYER and _borrowing_allowed(casino),
                opened_at=timezone.now(),
            )
    except IntegrityError:  # opened meanwhile by another transaction: use that one
        return Account.objects.select_for_update().get(casino=casino, kind=kind, player=player, table=table)
    audit_record(actor=actor, action="ledger.account.open", target=account, after=model_snapshot(account))
    return account


def _accounts_lock(
    *,
    casino: Casino,
    specs: Iterable[_Spec],
    actor: Any,
    players: Mapping[int, Player] | None = None,
    tables: Mapping[int, Table] | None = None,
) -> dict[_Spec, Account]:
    """The accounts named by ``specs``, locked FOR UPDATE in id order, opening missing ones."""
    wanted = set(specs)
    # one condition per kind (a kind's owner column is fixed by account_owner_matches_kind)
    owners: dict[str, set[int]] = {}
    for kind, player_id, table_id in wanted:
        owners.setdefault(kind, set()).update(i for i in (player_id, table_id) if i is not None)
    found = {
        (a.kind, a.player_id, a.table_id): a for a in hot_sql.accounts_lock(casino.pk, owners)
    }  # exactly the wanted accounts: each (kind, owner) names one
    players, tables = players or {}, tables or {}
    for kind, player_id, table_id in sorted(wanted - found.keys(), key=repr):
        player = players.get(player_id) or (Player.objects.get(pk=player_id) if player_id else None)
        table = tables.get(table_id) or (Table.objects.get(pk=table_id) if table_id else None)
        found[(kind, player_id, table_id)] = _account_open(
            casino=casino, kind=kind, player=player, table=table, actor=actor
        )
    return found


def _may_go_negative(account: Account) -> bool:
    return account.kind == Kind.CAGE or (account.kind == Kind.PLAYER and account.overdraft_allowed)


# ------------------------------------------------------------------------------------- posting


def _lock_ledger() -> None:
    """Serialise postings behind the audit chain's lock (see the module docstring)."""
    audit_chain_lock()


@dataclass
class _Posting:
    kind: str
    key: str
    entries: dict[int, int]  # account id -> amount (aggregated, no zeros)
    memo: str = ""
    coup: Coup | None = None
    coup_step: CoupStep | None = None
    reverses: Transaction | None = None


def _aggregate(entries: Iterable[tuple[Account, int]]) -> dict[int, int]:
    net: dict[int, int] = {}
    for account, amount in entries:
        if type(amount) is not int:  # chips are whole numbers: no bool, float or Decimal
            raise UnbalancedTransaction(f"chips are integers, not {amount!r}")
        net[account.pk] = net.get(account.pk, 0) + amount
    net = {pk: amount for pk, amount in net.items() if amount != 0}
    if sum(net.values()) != 0:
        raise UnbalancedTransaction(f"entries must sum to zero, not {sum(net.values())}")
    return net


def _existing(
    key: str, *, casino: Casino, kind: str | Sequence[str], coup: Coup | None = None
) -> Transaction | None:
    """The transaction already posted under ``key``; IdempotencyConflict if it is another kind of
    posting (a key reused by mistake)."""
    txn = hot_sql.transaction_by_key(key)
    return _replay_checked(txn, key, casino=casino, kind=kind, coup=coup) if txn is not None else None


def _replay_checked(
    txn: Transaction, key: str, *, casino: Casino, kind: str | Sequence[str], coup: Coup | None
) -> Transaction:
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    if txn.casino_id != casino.pk or txn.kind not in kinds or (coup is not None and txn.coup_id != coup.pk):
        raise IdempotencyConflict(
            f"The idempotency key {key!r} was already used for {txn.get_kind_display()} #{txn.pk}."
        )
    return txn


def _insufficient_message(account: Account, new_balance: int) -> str:
    return f"{account.name} holds {account.balance} chips and cannot pay {account.balance - new_balance}."


def _post(
    *, casino: Casino, actor: Any, postings: Sequence[_Posting], accounts: Mapping[int, Account]
) -> list[Transaction]:
    """Write ``postings`` (one or several transactions) and move the balances by their net.

    ``accounts`` must hold every account touched, already locked FOR UPDATE in this transaction.
    Balances move once, by the net of all postings, so a reversal and its replacement never leave
    an account below zero in between.
    """
    net: dict[int, int] = {}
    for posting in postings:
        if sum(posting.entries.values()) != 0 or 0 in posting.entries.values():
            raise UnbalancedTransaction(f"{posting.kind} entries must be non-zero and sum to zero")
        for pk, amount in posting.entries.items():
            if accounts[pk].casino_id != casino.pk:
                raise UnbalancedTransaction(f"{accounts[pk]} belongs to another casino")
            net[pk] = net.get(pk, 0) + amount
    for pk, delta in net.items():
        account = accounts[pk]
        new_balance = account.balance + delta
        if new_balance < 0 and delta < 0 and not _may_go_negative(account):
            raise InsufficientChips(_insufficient_message(account, new_balance))

    txns: list[Transaction] = []
    for posting in postings:
        try:
            with transaction.atomic():  # a savepoint: the UNIQUE key is the last word on replays
                txn = Transaction.objects.create(
                    casino=casino,
                    kind=posting.kind,
                    actor=actor if getattr(actor, "is_authenticated", False) else None,
                    memo=posting.memo[:300],
                    idempotency_key=posting.key,
                    coup=posting.coup,
                    coup_step=posting.coup_step,
                    reverses=posting.reverses,
                )
        except IntegrityError as error:
            replay = Transaction.objects.filter(idempotency_key=posting.key).first()
            if replay is not None and len(postings) == 1:
                return [replay]
            raise ValidationError(_integrity_message(error)) from error
        txns.append(txn)

    hot_sql.entries_insert(
        [
            (txn.pk, pk, amount)
            for txn, posting in zip(txns, postings, strict=True)
            for pk, amount in sorted(posting.entries.items())
        ]
    )
    moved = {pk: delta for pk, delta in net.items() if delta != 0}
    hot_sql.balances_add(moved)
    for pk, delta in moved.items():
        accounts[pk].balance += delta

    for txn, posting in zip(txns, postings, strict=True):
        audit_record(
            actor=actor,
            action=f"ledger.transaction.{posting.kind}",
            target=txn,
            after={
                "kind": txn.kind,
                "idempotency_key": txn.idempotency_key,
                "memo": txn.memo,
                "coup": txn.coup_id,
                "coup_step": txn.coup_step_id,
                "reverses": txn.reverses_id,
                "entries": [
                    {"account": pk, "name": accounts[pk].name, "amount": amount}
                    for pk, amount in sorted(posting.entries.items())
                ],
                "balances_after": {str(pk): accounts[pk].balance for pk in sorted(posting.entries)},
            },
        )
    return txns


_CONSTRAINT_MESSAGES = {
    c.name: str(c.violation_error_message)
    for c in Transaction._meta.constraints
    if getattr(c, "violation_error_message", None)
}


def _integrity_message(error: IntegrityError) -> str:
    text = str(error)
    for name, message in _CONSTRAINT_MESSAGES.items():
        if name in text:
            return message
    return f"The ledger refused this posting: {text.splitlines()[0] if text else error!r}"


@transaction.atomic
def transaction_post(
    *,
    casino: Casino,
    kind: str,
    entries: list[tuple[Account, int]],
    idempotency_key: str,
    actor: Any,
    memo: str = "",
    coup: Coup | None = None,
    coup_step: CoupStep | None = None,
    reverses: Transaction | None = None,
) -> Transaction:
    """Post one balanced transaction. Entries on the same account are added up and zero results
    left out (a transaction with no entries is allowed: it records that nothing moved).

    Posting the same ``idempotency_key`` again returns the existing transaction and posts nothing;
    if that key names different entries, IdempotencyConflict. Raises InsufficientChips when an
    account that may not go below zero would, UnbalancedTransaction when the entries do not sum
    to zero.
    """
    if not idempotency_key:
        raise ValueError("a posting needs an idempotency key")
    net = _aggregate(entries)
    _lock_ledger()
    existing = _existing(idempotency_key, casino=casino, kind=kind, coup=coup)
    if existing is not None:
        if selectors.transaction_entries(txn=existing) != net:
            raise IdempotencyConflict(
                f"The idempotency key {idempotency_key!r} was already used for other entries."
            )
        return existing
    locked = {a.pk: a for a in Account.objects.select_for_update().filter(pk__in=list(net)).order_by("pk")}
    if len(locked) != len(net):
        raise ValueError("unknown account in the entries")
    # (a replay that raced past the check above is caught by the UNIQUE key in _post)
    posting = _Posting(kind, idempotency_key, net, memo, coup, coup_step, reverses)
    return _post(casino=casino, actor=actor, postings=[posting], accounts=locked)[0]


# ------------------------------------------------------------------------------------ the cage


def _positive_chips(amount: Any, what: str) -> None:
    if type(amount) is not int or amount <= 0:
        raise ValidationError(f"{what} is a positive whole number of chips, not {amount!r}.")


@transaction.atomic
def cage_buy_in(*, casino: Casino, player: Player, amount: int, actor: Any, key: str) -> Transaction:
    """The player buys ``amount`` chips at the cage: cage -amount, player +amount."""
    _positive_chips(amount, "A buy-in")
    _lock_ledger()
    if (txn := _existing(key, casino=casino, kind=TKind.BUY_IN)) is not None:
        return txn
    accounts = _accounts_lock(
        casino=casino,
        specs=[_spec(Kind.CAGE), _spec(Kind.PLAYER, player)],
        actor=actor,
        players={player.pk: player},
    )
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.BUY_IN)) is not None:
        return txn
    cage, wallet = accounts[_spec(Kind.CAGE)], accounts[_spec(Kind.PLAYER, player)]
    posting = _Posting(TKind.BUY_IN, key, {cage.pk: -amount, wallet.pk: amount}, f"buy-in {player}")
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


@transaction.atomic
def cage_cash_out(*, casino: Casino, player: Player, amount: int, actor: Any, key: str) -> Transaction:
    """The player cashes ``amount`` chips in: player -amount, cage +amount; never more than he
    holds (an overdraft is not paid out)."""
    _positive_chips(amount, "A cash-out")
    _lock_ledger()
    if (txn := _existing(key, casino=casino, kind=TKind.CASH_OUT)) is not None:
        return txn
    accounts = _accounts_lock(
        casino=casino,
        specs=[_spec(Kind.CAGE), _spec(Kind.PLAYER, player)],
        actor=actor,
        players={player.pk: player},
    )
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.CASH_OUT)) is not None:
        return txn
    cage, wallet = accounts[_spec(Kind.CAGE)], accounts[_spec(Kind.PLAYER, player)]
    if wallet.balance < amount:
        raise InsufficientChips(
            f"{player} has only {max(wallet.balance, 0)} chips; a cash-out of {amount} is refused."
        )
    posting = _Posting(TKind.CASH_OUT, key, {wallet.pk: -amount, cage.pk: amount}, f"cash-out {player}")
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


def _by_pk(accounts: Mapping[_Spec, Account]) -> dict[int, Account]:
    return {a.pk: a for a in accounts.values()}


# ---------------------------------------------------------------------------------- coup money


def _coup_context(coup: Coup) -> Coup:
    """The coup with its table, casino, banker and bank turn, and whether a later coup of its bank
    turn has started (one query, read under the ledger lock, never a stale instance; in SQL, as it
    runs on every posting of a coup: ledger/sql.py)."""
    return hot_sql.coup_context(coup.pk)


def _check_holder(bank: Account, banker: Player, table: Table) -> None:
    holder_id = selectors.bank_holder_id(bank=bank)
    if holder_id is not None and holder_id != banker.pk:
        holder = Player.objects.get(pk=holder_id)
        raise ValidationError(
            f"The bank of {table.name} still holds {bank.balance} chips of {holder}: close that bank first."
        )


def _bank_still_in_play(coup: Coup) -> bool:
    """Whether the coup's bank is still the one in the table's bank account: its bank turn has not
    ended and no later coup of that turn has started. When it has moved on (a correction reviewed
    after play went on), the banker's side of a late posting goes to his player account, where
    bank_close returned his chips."""
    return not coup.turn_ended and not coup.later_coup_started  # see _coup_context


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

    ``shares``: club spectators putting up part of a new bank with the banker's consent (seed 002):
    each (player, chips) comes from that player's account, the banker puts up the rest.
    """
    if type(amount) is not int or amount < 0:
        raise ValidationError(f"A bank is raised by a whole number of chips, not {amount!r}.")
    _lock_ledger()
    coup = _coup_context(coup)
    table, banker = coup.shoe.table, coup.banker
    casino = table.casino
    if (txn := _existing(key, casino=casino, kind=TKind.BANK_FUND, coup=coup)) is not None:
        return txn
    specs = [_spec(Kind.BANK, table=table), _spec(Kind.PLAYER, banker), _spec(Kind.RESERVE, banker)]
    share_specs = [_spec(Kind.PLAYER, player) for player, _ in shares]
    accounts = _accounts_lock(
        casino=casino,
        specs=[*specs, *share_specs],
        actor=actor,
        players={banker.pk: banker, **{player.pk: player for player, _ in shares}},
        tables={table.pk: table},
    )
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.BANK_FUND, coup=coup)) is not None:
        return txn
    bank, wallet, reserve = (accounts[s] for s in specs)
    _check_holder(bank, banker, table)
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
        if account.balance < chips and not _may_go_negative(account):
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
    posting = _Posting(
        TKind.BANK_FUND,
        key,
        {pk: a for pk, a in entries.items() if a},
        f"coup {coup.number}: bank of {coup.bank} declared by {banker}",
        coup=coup,
    )
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


@transaction.atomic
def bank_share_out(*, coup: Coup, player: Player, amount: int, actor: Any, key: str) -> Transaction | None:
    """A club spectator takes his share out of the bank (seed 002), before a deal: from the
    table's bank account to his player account. ``coup`` is the bank's last coup (the posting
    belongs to that bank). Nothing to take posts nothing."""
    if type(amount) is not int or amount < 0:
        raise ValidationError(f"A share is a whole number of chips, not {amount!r}.")
    _lock_ledger()
    coup = _coup_context(coup)
    table = coup.shoe.table
    casino = table.casino
    if (txn := _existing(key, casino=casino, kind=TKind.BANK_SHARE, coup=coup)) is not None:
        return txn
    if amount == 0:
        return None
    specs = [_spec(Kind.BANK, table=table), _spec(Kind.PLAYER, player)]
    accounts = _accounts_lock(
        casino=casino, specs=specs, actor=actor, players={player.pk: player}, tables={table.pk: table}
    )
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.BANK_SHARE, coup=coup)) is not None:
        return txn
    bank, wallet = (accounts[s] for s in specs)
    _check_holder(bank, coup.banker, table)
    if amount > bank.balance:
        raise ValidationError(
            f"The bank holds {bank.balance} chips: a share of {amount} cannot come out of it."
        )
    posting = _Posting(
        TKind.BANK_SHARE,
        key,
        {bank.pk: -amount, wallet.pk: amount},
        f"coup {coup.number}: {player} takes his share of the bank, {amount}",
        coup=coup,
    )
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


@dataclass
class _CoupAccounts:
    by_spec: dict[_Spec, Account]
    punters: dict[str, Account]
    bank: Account
    reserve: Account
    wallet: Account  # the banker's player account
    levy: Account


def _settlement_entries(
    *, settlement: Settlement, accounts: _CoupAccounts, uncovered_to_reserve: bool, house_limit: int | None
) -> dict[int, int]:
    """The entries of one engine Settlement against the table's bank (docs/ledger.md)."""
    bank, reserve = accounts.bank, accounts.reserve
    entries: dict[int, int] = {}

    def move(account: Account, amount: int) -> None:
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


def _to_banker_wallet(entries: Mapping[int, int], accounts: _CoupAccounts) -> dict[int, int]:
    """Move the bank's and the reserve's part of ``entries`` to the banker's player account."""
    moved = dict(entries)
    side = moved.pop(accounts.bank.pk, 0) + moved.pop(accounts.reserve.pk, 0)
    moved[accounts.wallet.pk] = moved.get(accounts.wallet.pk, 0) + side
    return {pk: a for pk, a in moved.items() if a}


def _coup_accounts(
    *,
    coup: Coup,
    settlement: Settlement | None,
    punters: Mapping[str, Player],
    actor: Any,
    extra: Iterable[int] = (),
) -> _CoupAccounts:
    """Lock every account a coup posting may touch (and the accounts ``extra``), opening the
    missing ones."""
    table, banker = coup.shoe.table, coup.banker
    punter_players: dict[str, Player] = {}
    if settlement is not None:
        if settlement.banker_net + sum(settlement.punters.values()) + settlement.tax != 0:
            raise UnbalancedTransaction("the settlement does not sum to zero")
        missing = sorted(set(settlement.punters) - set(punters))
        if missing:
            raise ValidationError(f"No player given for punter(s) {', '.join(missing)}.")
        punter_players = {k: punters[k] for k in settlement.punters}
        if any(p.pk == banker.pk for p in punter_players.values()):
            raise ValidationError(f"{banker} cannot bet against his own bank.")
    specs = [
        _spec(Kind.BANK, table=table),
        _spec(Kind.RESERVE, banker),
        _spec(Kind.PLAYER, banker),
        _spec(Kind.LEVY),
        *(_spec(Kind.PLAYER, p) for p in punter_players.values()),
    ]
    # Extra accounts (a provisional settlement's) first, then the named ones: both batches are
    # locked in id order, and the ledger lock already held means no other poster interleaves.
    extra = list(extra)
    if extra:
        list(Account.objects.select_for_update().filter(pk__in=extra).order_by("pk"))
    by_spec = _accounts_lock(
        casino=table.casino,
        specs=specs,
        actor=actor,
        players={p.pk: p for p in [banker, *punter_players.values()]},
        tables={table.pk: table},
    )
    return _CoupAccounts(
        by_spec=by_spec,
        punters={k: by_spec[_spec(Kind.PLAYER, p)] for k, p in punter_players.items()},
        bank=by_spec[specs[0]],
        reserve=by_spec[specs[1]],
        wallet=by_spec[specs[2]],
        levy=by_spec[specs[3]],
    )


def _live_provisional(coup: Coup) -> Transaction | None:
    return Transaction.objects.filter(coup=coup, kind=TKind.COUP_PROVISIONAL, reversals__isnull=True).first()


def _describe(settlement: Settlement) -> str:
    if settlement.next_bank_min is None:
        outcome = "punters win"
    elif settlement.banker_net > 0 or settlement.tax > 0:
        outcome = "bank wins"
    else:
        outcome = "stand-off"
    return f"{outcome}, covered {settlement.covered}, levy {settlement.tax}"


@transaction.atomic
def coup_settle(
    *,
    coup: Coup,
    settlement: Settlement,
    punters: Mapping[str, Player],
    uncovered_to_reserve: bool,
    house_limit: int | None,
    actor: Any,
    key: str,
    provisional: bool = False,
) -> Transaction:
    """Post the engine's Settlement of a coup against the table's bank account: each punter's
    delta, the levy to the casino's levy account, the uncovered part to the banker's reserve
    (``uncovered_to_reserve``, every outcome) and, when the banker goes on, any bank above
    ``house_limit`` to his reserve. ``punters`` maps the settlement's punter keys to players.

    The bank account must hold exactly the bank at stake (bank_fund first). A stand-off with
    nothing to move posts a transaction with no entries. ``provisional`` marks the settlement of
    a restored coup awaiting a pit boss (coup_settlement_replace / coup_provisional_reverse); a
    coup has at most one live provisional settlement and one final settlement. A provisional
    settlement posted after the coup's bank has moved on settles the banker's side against his
    player account.
    """
    kind = TKind.COUP_PROVISIONAL if provisional else TKind.COUP_SETTLEMENT
    _lock_ledger()
    coup = _coup_context(coup)
    casino = coup.shoe.table.casino
    # one read: a replay of this key, and the coup's standing (unreversed) settlements
    prior = hot_sql.coup_settle_prior(key, coup.pk)
    for txn in prior:
        if txn.idempotency_key == key:
            return _replay_checked(txn, key, casino=casino, kind=kind, coup=coup)
    standing = {txn.kind for txn in prior}
    if TKind.COUP_SETTLEMENT in standing:
        raise ValidationError(f"Coup {coup.number} is already settled.")
    if TKind.COUP_PROVISIONAL in standing:
        raise ValidationError(
            f"Coup {coup.number} has a provisional settlement awaiting review: approve or reject it."
        )
    accounts = _coup_accounts(coup=coup, settlement=settlement, punters=punters, actor=actor)
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=kind, coup=coup)) is not None:
        return txn
    entries = _settlement_entries(
        settlement=settlement,
        accounts=accounts,
        uncovered_to_reserve=uncovered_to_reserve,
        house_limit=house_limit,
    )
    at_stake = settlement.covered + settlement.uncovered
    if _bank_still_in_play(coup):
        if accounts.bank.balance != at_stake:
            raise ValidationError(
                f"The bank of {coup.shoe.table.name} holds {accounts.bank.balance} chips but coup "
                f"{coup.number} was played for a bank of {at_stake}: declare the bank (bank_fund) first."
            )
    elif provisional:
        entries = _to_banker_wallet(entries, accounts)
    else:
        raise ValidationError(f"The bank of coup {coup.number} has moved on: it can no longer be settled.")
    posting = _Posting(kind, key, entries, f"coup {coup.number}: {_describe(settlement)}", coup=coup)
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts.by_spec))[0]


def _reversal(
    coup: Coup, provisional: Transaction, accounts: _CoupAccounts, *, in_play: bool, key: str
) -> _Posting:
    entries = {pk: -amount for pk, amount in selectors.transaction_entries(txn=provisional).items()}
    if not in_play:
        entries = _to_banker_wallet(entries, accounts)
    return _Posting(
        TKind.COUP_REVERSAL,
        key,
        entries,
        f"coup {coup.number}: provisional settlement #{provisional.pk} reversed",
        coup=coup,
        reverses=provisional,
    )


def _with_extra(accounts: _CoupAccounts, extra: Iterable[int]) -> dict[int, Account]:
    by_pk = _by_pk(accounts.by_spec)
    missing = [pk for pk in extra if pk not in by_pk]
    by_pk.update((a.pk, a) for a in Account.objects.filter(pk__in=missing))  # locked by _coup_accounts
    return by_pk


@transaction.atomic
def coup_settlement_replace(
    *,
    coup: Coup,
    settlement: Settlement,
    punters: Mapping[str, Player],
    uncovered_to_reserve: bool,
    house_limit: int | None,
    actor: Any,
    key: str,
) -> Transaction:
    """A pit boss approved a restored coup: reverse its live provisional settlement (a new
    transaction with the entries negated, ``reverses`` → it, key ``<key>:reverse``) and post the
    restored settlement for good (key ``<key>:settle``). New rows only; the balances move once, by
    the net of the two (nothing, when the approved settlement is the provisional one). Once the
    coup's bank has moved on, both settle the banker's side against his player account.
    Returns the final settlement."""
    _lock_ledger()
    coup = _coup_context(coup)
    casino = coup.shoe.table.casino
    if (txn := _existing(f"{key}:settle", casino=casino, kind=TKind.COUP_SETTLEMENT, coup=coup)) is not None:
        return txn
    if Transaction.objects.filter(coup=coup, kind=TKind.COUP_SETTLEMENT).exists():
        raise ValidationError(f"Coup {coup.number} is already settled.")
    provisional = _live_provisional(coup)
    if provisional is None:
        raise ValidationError(f"Coup {coup.number} has no provisional settlement to replace.")
    old = selectors.transaction_entries(txn=provisional)
    accounts = _coup_accounts(coup=coup, settlement=settlement, punters=punters, actor=actor, extra=old)
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(f"{key}:settle", casino=casino, kind=TKind.COUP_SETTLEMENT, coup=coup)) is not None:
        return txn
    in_play = _bank_still_in_play(coup)
    final = _settlement_entries(
        settlement=settlement,
        accounts=accounts,
        uncovered_to_reserve=uncovered_to_reserve,
        house_limit=house_limit,
    )
    if not in_play:
        final = _to_banker_wallet(final, accounts)
    postings = [
        _reversal(coup, provisional, accounts, in_play=in_play, key=f"{key}:reverse"),
        _Posting(
            TKind.COUP_SETTLEMENT,
            f"{key}:settle",
            final,
            f"coup {coup.number} restored: {_describe(settlement)}",
            coup=coup,
        ),
    ]
    return _post(casino=casino, actor=actor, postings=postings, accounts=_with_extra(accounts, old))[1]


@transaction.atomic
def coup_provisional_reverse(*, coup: Coup, actor: Any, key: str) -> Transaction:
    """A pit boss rejected a restored coup: reverse its live provisional settlement (negated
    entries, ``reverses`` → it); the coup then awaits a new correction. Once the coup's bank has
    moved on, the banker's side is taken from / returned to his player account, where bank_close
    returned his chips — InsufficientChips if he no longer has them and may not borrow."""
    _lock_ledger()
    coup = _coup_context(coup)
    casino = coup.shoe.table.casino
    if (txn := _existing(key, casino=casino, kind=TKind.COUP_REVERSAL, coup=coup)) is not None:
        return txn
    provisional = _live_provisional(coup)
    if provisional is None:
        raise ValidationError(f"Coup {coup.number} has no provisional settlement to reverse.")
    old = selectors.transaction_entries(txn=provisional)
    accounts = _coup_accounts(coup=coup, settlement=None, punters={}, actor=actor, extra=old)
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.COUP_REVERSAL, coup=coup)) is not None:
        return txn
    posting = _reversal(coup, provisional, accounts, in_play=_bank_still_in_play(coup), key=key)
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_with_extra(accounts, old))[0]


@transaction.atomic
def bank_close(*, table: Table, banker: Player, actor: Any, key: str) -> Transaction | None:
    """A bank ends (lost or passed): whatever the table's bank account holds, and the banker's
    reserve, go back to his player account. Nothing to return posts nothing (None)."""
    table = Table.objects.select_related("casino").get(pk=table.pk)
    casino = table.casino
    _lock_ledger()
    if (txn := _existing(key, casino=casino, kind=TKind.BANK_CLOSE)) is not None:
        return txn
    specs = [_spec(Kind.BANK, table=table), _spec(Kind.PLAYER, banker), _spec(Kind.RESERVE, banker)]
    accounts = _accounts_lock(
        casino=casino, specs=specs, actor=actor, players={banker.pk: banker}, tables={table.pk: table}
    )
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.BANK_CLOSE)) is not None:
        return txn
    bank, wallet, reserve = (accounts[s] for s in specs)
    _check_holder(bank, banker, table)
    returned = bank.balance + reserve.balance
    if returned == 0:
        return None
    entries = {bank.pk: -bank.balance, reserve.pk: -reserve.balance, wallet.pk: returned}
    posting = _Posting(
        TKind.BANK_CLOSE,
        key,
        {pk: a for pk, a in entries.items() if a},
        f"bank of {banker} at {table.name} closed: "
        f"{bank.balance} from the bank, {reserve.balance} from the reserve",
    )
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


def _reserve_return(*, casino: Casino, player: Player, actor: Any, key: str) -> Transaction | None:
    if (txn := _existing(key, casino=casino, kind=TKind.RESERVE_RETURN)) is not None:
        return txn
    specs = [_spec(Kind.PLAYER, player), _spec(Kind.RESERVE, player)]
    accounts = _accounts_lock(casino=casino, specs=specs, actor=actor, players={player.pk: player})
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.RESERVE_RETURN)) is not None:
        return txn
    wallet, reserve = (accounts[s] for s in specs)
    if reserve.balance == 0:
        return None
    posting = _Posting(
        TKind.RESERVE_RETURN,
        key,
        {reserve.pk: -reserve.balance, wallet.pk: reserve.balance},
        f"reserve of {player} returned",
    )
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


# -------------------------------------------------------------------------------------- limits


def bet_check_affordable(*, casino: Casino, player: Player, amount: int, already_staked: int) -> None:
    """Refuse a bet the player cannot cover from his player account (with what he already staked
    this coup) where he may not borrow. Reads only; the bet itself moves no chips."""
    account = selectors.account_find(casino=casino, kind=Kind.PLAYER, player=player)
    overdraft = account.overdraft_allowed if account is not None else _borrowing_allowed(casino)
    if overdraft:
        return
    balance = account.balance if account is not None else 0
    if balance < amount + already_staked:
        staked = f" besides the {already_staked} already staked" if already_staked else ""
        raise InsufficientChips(f"{player} has only {balance} chips; a bet of {amount}{staked} is refused.")


# ----------------------------------------------------------------------------------------- fees


@dataclass
class HourlyFeeBill:
    session_id: int
    hour_start: dt.datetime
    charges: dict[int, int]  # player id -> chips charged
    transactions: list[Transaction] = field(default_factory=list)
    failures: dict[int, str] = field(default_factory=dict)  # player id -> why not charged
    already_billed: bool = False
    unallocated: int = 0

    @property
    def total(self) -> int:
        return sum(self.charges.values())


def _fee_key(session: TableSession, who: str, hour_start: dt.datetime) -> str:
    return f"hourly_fee:session:{session.pk}:{who}:{hour_start.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}"


def _hour_fees(session: TableSession, hour_start: dt.datetime) -> feecalc.HourFees:
    casino = session.table.casino
    hour_end = hour_start + feecalc.HOUR
    seats = Seat.objects.filter(session=session, joined_at__lt=hour_end).filter(
        Q(left_at__isnull=True) | Q(left_at__gt=hour_start)
    )
    pauses = SessionPause.objects.filter(session=session, started_at__lt=hour_end).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=hour_start)
    )
    return feecalc.hour_fees(
        terms=feecalc.FeeTerms(
            amount=casino.hourly_fee_amount,
            basis=casino.hourly_fee_basis,
            billing=casino.hourly_fee_billing,
            chip_unit=casino.chip_unit,
        ),
        hour_start=hour_start,
        session_opened=session.opened_at,
        session_closed=session.closed_at,
        seats=[feecalc.SeatTime(s.player_id, s.joined_at, s.left_at) for s in seats],
        pauses=[(p.started_at, p.ended_at) for p in pauses],
    )


@transaction.atomic
def hourly_fees_bill(
    *, session: TableSession, hour_start: dt.datetime, actor: Any = None, now: dt.datetime | None = None
) -> HourlyFeeBill:
    """Bill one finished clock hour of a session of an hourly-fee casino.

    Per player-hour: one transaction per player (player → fee account), key
    ``hourly_fee:session:S:player:P:HOUR``. Per table-hour: one transaction for the table
    (key ``…:table:HOUR``), the fee shared among the players seated during the hour in proportion to
    their seated, unpaused time (docs/ledger.md). A player who cannot pay (no overdraft) is left
    unbilled and reported in ``failures``; the hour is then not marked billed, so the next run
    retries him and, the other postings being idempotent, charges nobody twice.
    """
    session = TableSession.objects.select_related("table__casino").get(pk=session.pk)
    casino = session.table.casino
    now = now or timezone.now()
    if casino.levy_mode != Casino.LevyMode.HOURLY_FEE:
        raise ValidationError(f"{casino} does not charge hourly fees.")
    if timezone.is_naive(hour_start) or selectors.clock_hour_floor(hour_start) != hour_start:
        raise ValidationError(f"{hour_start} is not the start of a clock hour.")
    hour_start = hour_start.astimezone(dt.UTC)
    if hour_start not in selectors.session_fee_hours(session=session, now=now):
        raise ValidationError("This hour is not over yet, or the session was not open in it.")
    _lock_ledger()
    fees = _hour_fees(session, hour_start)
    bill = HourlyFeeBill(
        session_id=session.pk, hour_start=hour_start, charges={}, unallocated=fees.unallocated
    )
    if FeeHour.objects.filter(session=session, hour_start=hour_start).exists():
        bill.already_billed = True
        keys = [_fee_key(session, "table", hour_start)] + [
            _fee_key(session, f"player:{pid}", hour_start) for pid in fees.charges
        ]
        bill.transactions = list(Transaction.objects.filter(idempotency_key__in=keys).order_by("id"))
        for player_id, amount in Entry.objects.filter(
            transaction__in=bill.transactions, account__kind=Kind.PLAYER
        ).values_list("account__player_id", "amount"):
            bill.charges[player_id] = bill.charges.get(player_id, 0) - amount
        return bill
    hour_label = f"{timezone.localtime(hour_start):%Y-%m-%d %H:%M}"
    players = {p.pk: p for p in Player.objects.filter(pk__in=list(fees.charges))}
    if casino.hourly_fee_basis == Casino.FeeBasis.PER_PLAYER_HOUR:
        for player_id, amount in fees.charges.items():
            try:
                with transaction.atomic():
                    txn = _fee_post(
                        casino=casino,
                        charges={player_id: amount},
                        players=players,
                        key=_fee_key(session, f"player:{player_id}", hour_start),
                        memo=f"hourly fee {hour_label}, {session.table.name}: {players[player_id]}",
                        actor=actor,
                    )
            except InsufficientChips as refusal:
                bill.failures[player_id] = refusal.messages[0]
                continue
            bill.charges[player_id] = amount
            bill.transactions.append(txn)
    elif fees.charges:
        try:
            with transaction.atomic():
                txn = _fee_post(
                    casino=casino,
                    charges=fees.charges,
                    players=players,
                    key=_fee_key(session, "table", hour_start),
                    memo=f"table-hour fee {hour_label}, {session.table.name}: {fees.table_fee} shared",
                    actor=actor,
                )
        except InsufficientChips as refusal:
            bill.failures = dict.fromkeys(fees.charges, refusal.messages[0])
        else:
            bill.charges = dict(fees.charges)
            bill.transactions.append(txn)
    if bill.failures:
        logger.error(
            "hourly fees of session %s at %s not fully billed: %s", session.pk, hour_label, bill.failures
        )
        return bill
    marker = FeeHour.objects.create(session=session, hour_start=hour_start, billed_at=now, total=bill.total)
    audit_record(
        actor=actor,
        action="ledger.feehour.billed",
        target=marker,
        after={
            "session": session.pk,
            "hour_start": hour_start,
            "charges": {str(k): v for k, v in sorted(bill.charges.items())},
            "table_fee": fees.table_fee,
            "unallocated": fees.unallocated,
        },
    )
    return bill


def _fee_post(
    *,
    casino: Casino,
    charges: Mapping[int, int],
    players: Mapping[int, Player],
    key: str,
    memo: str,
    actor: Any,
) -> Transaction:
    if (txn := _existing(key, casino=casino, kind=TKind.HOURLY_FEE)) is not None:
        return txn
    specs = [_spec(Kind.FEE), *(_spec(Kind.PLAYER, players[pid]) for pid in charges)]
    accounts = _accounts_lock(casino=casino, specs=specs, actor=actor, players=players)
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.HOURLY_FEE)) is not None:
        return txn
    entries = {accounts[_spec(Kind.FEE)].pk: sum(charges.values())}
    for pid, amount in charges.items():
        wallet = accounts[_spec(Kind.PLAYER, players[pid])]
        if wallet.balance < amount and not _may_go_negative(wallet):
            raise InsufficientChips(
                f"{players[pid]} has only {wallet.balance} chips; an hourly fee of {amount} is refused."
            )
        entries[wallet.pk] = -amount
    posting = _Posting(TKind.HOURLY_FEE, key, entries, memo)
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


def hourly_fees_enqueue_due(*, session: TableSession) -> None:
    """Ask the worker to bill the finished hours of ``session`` once this transaction commits
    (for a service closing a session: its last, partial hour is billable at once)."""
    from ledger.tasks import bill_hourly_fees

    def enqueue() -> None:
        for hour in selectors.session_fee_hours(session=session, now=timezone.now()):
            if not FeeHour.objects.filter(session=session, hour_start=hour).exists():
                bill_hourly_fees.delay(session.pk, hour.isoformat())

    transaction.on_commit(enqueue)


@transaction.atomic
def card_money_charge(*, session: TableSession, player: Player, actor: Any) -> Transaction | None:
    """Club card money: the casino's ``card_money_amount``, once per seated player per session
    (key ``card_money:session:S:player:P``). None when the amount is zero."""
    session = TableSession.objects.select_related("table__casino", "table__profile").get(pk=session.pk)
    casino = session.table.casino
    if session.table.profile.levy_mode != "card_money":
        raise ValidationError(f"{session.table.name} does not charge card money.")
    if not Seat.objects.filter(session=session, player=player).exists():
        raise ValidationError(f"{player} has not sat at this session.")
    amount = casino.card_money_amount
    if amount == 0:
        return None
    key = f"card_money:session:{session.pk}:player:{player.pk}"
    _lock_ledger()
    if (txn := _existing(key, casino=casino, kind=TKind.CARD_MONEY)) is not None:
        return txn
    specs = [_spec(Kind.CARD_MONEY), _spec(Kind.PLAYER, player)]
    accounts = _accounts_lock(casino=casino, specs=specs, actor=actor, players={player.pk: player})
    # posted meanwhile by a request that held these accounts (if the ledger lock was bypassed)
    if (txn := _existing(key, casino=casino, kind=TKind.CARD_MONEY)) is not None:
        return txn
    house, wallet = (accounts[s] for s in specs)
    if wallet.balance < amount and not _may_go_negative(wallet):
        raise InsufficientChips(
            f"{player} has only {wallet.balance} chips; card money of {amount} is refused."
        )
    posting = _Posting(
        TKind.CARD_MONEY,
        key,
        {wallet.pk: -amount, house.pk: amount},
        f"card money {session.table.name}: {player}",
    )
    return _post(casino=casino, actor=actor, postings=[posting], accounts=_by_pk(accounts))[0]


# --------------------------------------------------------------------------------------- series


@transaction.atomic
def series_start(*, session: TableSession, players: Sequence[Player], actor: Any) -> Series:
    """Start a home series at ``session`` (or continue the one running: idempotent) and buy each
    of ``players`` in for the series' starting chips from the cage, once each."""
    session = TableSession.objects.select_related("table__casino", "table__profile").get(pk=session.pk)
    profile = session.table.profile
    if profile.series_coups is None or profile.series_start_chips is None:
        raise ValidationError(f"{session.table.name} does not play series (profile {profile.slug}).")
    if session.closed_at is not None:
        raise ValidationError("This session is closed.")
    seated = set(
        Seat.objects.filter(session=session, left_at__isnull=True, player__in=players).values_list(
            "player_id", flat=True
        )
    )
    absent = [str(p) for p in players if p.pk not in seated]
    if absent:
        raise ValidationError(f"Not seated at this table: {', '.join(absent)}.")
    series = Series.objects.select_for_update().filter(session=session, ended_at__isnull=True).first()
    if series is None:
        series = Series.objects.create(
            session=session,
            coups_planned=profile.series_coups,
            start_chips=profile.series_start_chips,
            min_bank=profile.min_bank,
            min_bet=profile.min_bet,
            started_at=timezone.now(),
            started_by=actor if getattr(actor, "is_authenticated", False) else None,
        )
        audit_record(actor=actor, action="ledger.series.start", target=series, after=model_snapshot(series))
    casino = session.table.casino
    entered = set(series.entrants.values_list("player_id", flat=True))
    for player in players:
        if player.pk not in entered:
            entrant = SeriesEntrant.objects.create(
                series=series,
                player=player,
                chips_before=selectors.player_available(casino=casino, player=player),
                joined_at=timezone.now(),
            )
            audit_record(
                actor=actor, action="ledger.series.enter", target=entrant, after=model_snapshot(entrant)
            )
        cage_buy_in(
            casino=casino,
            player=player,
            amount=series.start_chips,
            actor=actor,
            key=f"series:{series.pk}:buy_in:player:{player.pk}",
        )
    return series


@transaction.atomic
def series_end(*, series: Series, reason: str, actor: Any) -> Series:
    """End a series: the bank in play and every entrant's reserve go back to their owners; the
    standings (series_standings) then compare what each holds. ``completed`` needs every coup
    played and ``no_bank`` that nobody can open one; ``no_bets`` (everybody refuses to bet) and
    ``abandoned`` are the table's word. Ending an ended series again with its reason is a no-op."""
    series = Series.objects.select_for_update().select_related("session__table__casino").get(pk=series.pk)
    if reason not in Series.EndReason.values:
        raise ValidationError(f"Unknown end reason {reason!r}.")
    if series.ended_at is not None:
        if series.end_reason == reason:
            return series
        raise ValidationError(f"This series already ended ({series.get_end_reason_display()}).")
    if reason == Series.EndReason.COMPLETED:
        played = selectors.series_coups_played(series=series)
        if played < series.coups_planned:
            raise ValidationError(f"Only {played} of {series.coups_planned} coups have been played.")
    if reason == Series.EndReason.NO_BANK:
        ok, why = selectors.series_can_continue(series=series)
        if ok or "open a bank" not in why:
            raise ValidationError("Somebody can still open a bank.")
    before = model_snapshot(series)
    table = series.session.table
    casino = table.casino
    holder = selectors.bank_holder(table=table)
    if holder is not None:
        bank_close(table=table, banker=holder, actor=actor, key=f"series:{series.pk}:end:bank")
    _lock_ledger()
    for entrant in series.entrants.select_related("player"):
        _reserve_return(
            casino=casino,
            player=entrant.player,
            actor=actor,
            key=f"series:{series.pk}:end:reserve:player:{entrant.player_id}",
        )
    series.ended_at = timezone.now()
    series.end_reason = reason
    series.save(update_fields=["ended_at", "end_reason"])
    audit_record(
        actor=actor,
        action="ledger.series.end",
        target=series,
        before=before,
        after={
            **model_snapshot(series),
            "standings": [
                {"place": s.place, "player": s.player.pk, "chips": s.chips, "delta": s.delta}
                for s in selectors.series_standings(series=series)
            ],
        },
    )
    return series
