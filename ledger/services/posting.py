"""Posting to the chip ledger. Every posting goes through one function, ``postings_write`` (public
face for a single balanced posting: ``transaction_post``): it writes the transactions and their
entries, which move the balances (one UPDATE, made by the database itself on PostgreSQL), and
records the audit events, all in the caller's database transaction, with the accounts it touches
already locked (``accounts.accounts_lock``).
Every posting is idempotent by its key: posting a key again returns the first transaction and posts
nothing. See docs/ledger.md for the entries each service writes.

Lock order, the same for every poster (tables/services/locking.py has the whole order): the
accounts by ascending id, in one statement; the audit chain last, when the transaction commits
(audit.services). A replayed key is found (``posting_find``) before anything is locked; a replay
racing its first run waits for the first run's account locks and finds the key once it commits
(read again after the locks); the ``UNIQUE`` key is the last word.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from audit.rows import RowWritten
from audit.services import audit_record
from core.atomic import in_whole_transaction
from core.sentence import said
from ledger import selectors
from ledger import sql as hot_sql
from ledger.models import Account, Entry, Transaction
from ledger.services.accounts import LedgerCasino, account_may_go_negative


class InsufficientChips(ValidationError):
    """A player (or account) does not hold the chips a posting needs."""


class IdempotencyConflict(ValidationError):
    """An idempotency key already names a different posting."""


class UnbalancedTransaction(ValueError):
    """Entries that do not sum to zero, or that are not whole chips: a bug in the caller."""


@dataclass
class Posting:
    """One transaction to write: its kind, key and entries, and what it names (a coup, a coup step,
    the transaction it reverses)."""

    kind: str
    key: str
    entries: dict[int, int]  # account id -> amount (aggregated, no zeros)
    memo: str = ""
    coup: Any = None  # a tables.Coup
    coup_step: Any = None  # a tables.CoupStep
    reverses: Transaction | None = None
    game_coup: Any = None  # a tables.GameCoup (an older game's coup)


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


def posting_find(
    key: str, *, casino: LedgerCasino, kind: str | Sequence[str], coup: Any = None
) -> Transaction | None:
    """The transaction already posted under ``key``; IdempotencyConflict if it is another kind of
    posting (a key reused by mistake)."""
    txn = hot_sql.transaction_by_key(key)
    return posting_replay_checked(txn, key, casino=casino, kind=kind, coup=coup) if txn is not None else None


def posting_replay_checked(
    txn: Transaction, key: str, *, casino: LedgerCasino, kind: str | Sequence[str], coup: Any
) -> Transaction:
    """``txn``, found under ``key``; IdempotencyConflict if it is not the posting asked for."""
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    if txn.casino_id != casino.pk or txn.kind not in kinds or (coup is not None and txn.coup_id != coup.pk):
        raise IdempotencyConflict(
            f"The idempotency key {key!r} was already used for {txn.get_kind_display()} #{txn.pk}."
        )
    return txn


def account_debit_check(account: Account, amount: int, *, allow_overdraft: bool, refusal: str) -> None:
    """Refuse, before anything is written, to take ``amount`` from an account that does not hold
    it and may not go below zero (account_may_go_negative): InsufficientChips in the caller's
    words (``refusal``: whose chips and what for), where postings_write's own check could name only
    the account."""
    if account.balance < amount and not account_may_go_negative(account, allow_overdraft=allow_overdraft):
        raise InsufficientChips(refusal)


def _insufficient_message(account: Account, new_balance: int) -> str:
    return said(
        "{account} holds {balance} chips and cannot pay {amount}.",
        account=account.name,
        balance=account.balance,
        amount=account.balance - new_balance,
    )


def postings_check(
    *,
    casino: LedgerCasino,
    postings: Sequence[Posting],
    accounts: Mapping[int, Account],
    overdraft: Collection[int] = (),
) -> dict[int, int]:
    """The ledger's refusals of ``postings`` against the balances of ``accounts`` as the caller
    holds them, before anything is written: entries that are not whole, non-zero and balanced, an
    account of another casino, an account but the cage taken below zero where ``overdraft`` does
    not name it (InsufficientChips). Returns the net movement of each account.

    ``postings_write`` asks it of the accounts it locked; the batched importer of the balances it
    carries from one record to the next (tables/services/import_batch.py)."""
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
        if (
            new_balance < 0
            and delta < 0
            and not account_may_go_negative(account, allow_overdraft=pk in overdraft)
        ):
            raise InsufficientChips(_insufficient_message(account, new_balance))
    return net


def postings_write(
    *,
    casino: LedgerCasino,
    actor: Any,
    postings: Sequence[Posting],
    accounts: Mapping[int, Account],
    overdraft: Collection[int] = (),
) -> list[Transaction]:
    """Write ``postings`` (one or several transactions) and move the balances by their net.

    ``accounts`` must hold every account touched, already locked FOR UPDATE in this transaction.
    Balances move once, by the net of all postings, so a reversal and its replacement never leave
    an account below zero in between.

    ``overdraft``: the player accounts (ids) this posting may take below zero: the caller's
    decision (the player may borrow under the rules of the coup or table that posts). What such
    an account then owes is the player's marker; the audit event of the posting names it
    (``markers``: account id -> chips owed after the posting). Any other account but the cage
    short of chips refuses the posting (InsufficientChips), and nothing is written.
    """
    net = postings_check(casino=casino, postings=postings, accounts=accounts, overdraft=overdraft)

    txns: list[Transaction] = []
    actor_id = actor.pk if getattr(actor, "is_authenticated", False) else None
    for posting in postings:
        try:
            # the UNIQUE key answers a replay in the INSERT itself (ON CONFLICT): a savepoint is
            # kept only for a caller that may catch another refusal and go on (core.atomic)
            with transaction.atomic(savepoint=not in_whole_transaction()):
                txn = hot_sql.transaction_insert(
                    casino_id=casino.pk,  # by id: the ledger does not know the floor's Casino type
                    kind=posting.kind,
                    actor_id=actor_id,
                    memo=posting.memo[:300],
                    key=posting.key,
                    coup_id=_pk(posting.coup),
                    coup_step_id=_pk(posting.coup_step),
                    reverses_id=_pk(posting.reverses),
                    game_coup_id=_pk(posting.game_coup),
                )
        except IntegrityError as error:
            raise ValidationError(_integrity_message(error)) from error
        if txn is None:  # the key is posted already (by a first run that committed meanwhile)
            replay = hot_sql.transaction_by_key(posting.key)
            if replay is not None and len(postings) == 1:
                return [replay]
            raise ValidationError(
                said("The ledger refused this posting: key {key!r} is already posted.", key=posting.key)
            )
        # the rows the caller holds, as the ORM's create() left them on the instance
        for name in ("coup", "coup_step", "reverses", "game_coup"):
            if (related := getattr(posting, name)) is not None:
                setattr(txn, name, related)
        if actor_id is not None:
            txn.actor = actor
        txns.append(txn)

    # the entries move the balances (the database's own trigger on PostgreSQL: nothing else may)
    written = hot_sql.entries_post(
        [
            (txn.pk, pk, amount)
            for txn, posting in zip(txns, postings, strict=True)
            for pk, amount in sorted(posting.entries.items())
        ],
        returning=True,
    )
    entries_of: dict[int, list[Entry]] = {txn.pk: [] for txn in txns}
    for entry in written:
        entries_of[entry.transaction_id].append(entry)
    moved = {pk: delta for pk, delta in net.items() if delta != 0}
    for pk, delta in moved.items():
        accounts[pk].balance += delta

    markers = {
        str(pk): -accounts[pk].balance
        for pk in sorted(moved)
        if accounts[pk].kind == Account.Kind.PLAYER and accounts[pk].balance < 0
    }
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
                # only where set, so that chemin de fer's postings keep the audit shape they had
                **({"game_coup": txn.game_coup_id} if txn.game_coup_id else {}),
                "entries": [
                    {"account": pk, "name": accounts[pk].name, "amount": amount}
                    for pk, amount in sorted(posting.entries.items())
                ],
                "balances_after": {str(pk): accounts[pk].balance for pk in sorted(posting.entries)},
                **({"markers": markers} if markers else {}),
            },
            # the transaction and its entries, bound by their digests (audit.rows): append-only
            # rows, each as its INSERT wrote it and gave it back, so nothing is read again
            rows=[RowWritten(txn), *(RowWritten(entry) for entry in entries_of[txn.pk])],
        )
    return txns


def _pk(row: Any) -> int | None:
    return None if row is None else int(row.pk)


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
    casino: LedgerCasino,
    kind: str,
    entries: list[tuple[Account, int]],
    idempotency_key: str,
    actor: Any,
    memo: str = "",
    coup: Any = None,
    coup_step: Any = None,
    reverses: Transaction | None = None,
    allow_overdraft: bool = False,
) -> Transaction:
    """Post one balanced transaction. Entries on the same account are added up and zero results
    left out (a transaction with no entries is allowed: it records that nothing moved).
    ``allow_overdraft``: its player accounts may go below zero (the caller's decision, see
    ``postings_write``).

    Posting the same ``idempotency_key`` again returns the existing transaction and posts nothing;
    if that key names different entries, IdempotencyConflict. Raises InsufficientChips when an
    account that may not go below zero would, UnbalancedTransaction when the entries do not sum
    to zero.
    """
    if not idempotency_key:
        raise ValueError("a posting needs an idempotency key")
    net = _aggregate(entries)
    existing = posting_find(idempotency_key, casino=casino, kind=kind, coup=coup)
    if existing is not None:
        if selectors.transaction_entries(txn=existing) != net:
            raise IdempotencyConflict(
                f"The idempotency key {idempotency_key!r} was already used for other entries."
            )
        return existing
    locked = {a.pk: a for a in Account.objects.select_for_update().filter(pk__in=list(net)).order_by("pk")}
    if len(locked) != len(net):
        raise ValueError("unknown account in the entries")
    # (a replay that raced past the check above is caught by the UNIQUE key in postings_write)
    posting = Posting(kind, idempotency_key, net, memo, coup, coup_step, reverses)
    overdraft = [pk for pk, a in locked.items() if a.kind == Account.Kind.PLAYER] if allow_overdraft else []
    return postings_write(
        casino=casino, actor=actor, postings=[posting], accounts=locked, overdraft=overdraft
    )[0]
