"""Writes at the cage: buy-ins, cash-outs and new players, each one atomic change.

The game-side face of ledger/services/cage.py: these check who acts (cage.permissions), that the
amount is a sane whole number of chips and that the player is the casino's, then post through the
ledger, which writes the balanced transaction and its audit event (``ledger.transaction.buy_in`` /
``cash_out``, with the actor, the entries and the balances after) in the same database
transaction. Nothing is written when a check fails.

Idempotency: every posting carries a one-time key (the screen's form key, the API's
Idempotency-Key). The ledger key is ``cage:<kind>:<actor id>:<key>``, so two cashiers cannot
collide and a buy-in key never names a cash-out. Sending the same key again posts nothing and
answers the first posting (``CageReceipt.replayed``); the same key for another player or amount
is refused (IdempotencyConflict).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext_noop

from cage import selectors as cage_selectors
from cage.permissions import check_can_operate_cage
from compliance import services as compliance
from compliance.models import Direction
from compliance.services import DocumentIn
from core.sentence import said
from core.services.idempotency import idempotency_key_check
from core.types import Staff
from ledger import selectors as ledger_selectors
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables.models import Casino, Player, Seat, Spectator, Table
from tables.services import player_create

BUY_IN = Transaction.Kind.BUY_IN
CASH_OUT = Transaction.Kind.CASH_OUT
_POSTERS: dict[str, Callable[..., Transaction]] = {BUY_IN: ledger.cage_buy_in, CASH_OUT: ledger.cage_cash_out}
_SIGN: dict[str, int] = {BUY_IN: 1, CASH_OUT: -1}  # the player's side of the posting
#: the refusals of an amount, English (the API's words), said in its language by the screen that
#: shows them (tables.wording.say; docs/i18n.md): one sentence per kind, for the languages that
#: decline "a buy-in" and "a cash-out" differently
_NOT_WHOLE: dict[str, str] = {
    BUY_IN: gettext_noop("A buy-in is a positive whole number of chips."),
    CASH_OUT: gettext_noop("A cash-out is a positive whole number of chips."),
}
_ABOVE_LIMIT: dict[str, str] = {
    BUY_IN: gettext_noop("A buy-in moves at most {limit} chips at once."),
    CASH_OUT: gettext_noop("A cash-out moves at most {limit} chips at once."),
}
_KEY_USED: dict[str, str] = {
    BUY_IN: gettext_noop(
        "The key {key!r} was already used for another buy-in (#{transaction}): use a new key."
    ),
    CASH_OUT: gettext_noop(
        "The key {key!r} was already used for another cash-out (#{transaction}): use a new key."
    ),
}
_DIRECTION: dict[str, str] = {BUY_IN: Direction.IN, CASH_OUT: Direction.OUT}  # compliance's word
#: who acts: a staff member (checked), or None for the system itself (the demo data)
Actor = AbstractBaseUser | AnonymousUser | None


@dataclass(frozen=True, slots=True)
class CageReceipt:
    """What a buy-in or cash-out did (or, replayed, had done): the ledger transaction and the
    player's chips after it."""

    kind: str  # Transaction.Kind.BUY_IN or CASH_OUT
    player: Player
    amount: int
    transaction: Transaction
    balance: int  # the player's chips now (negative: he owes a marker)
    replayed: bool  # the key had already posted: nothing was written this time


def cage_ledger_key(*, kind: str, actor: Actor, key: str) -> str:
    """The ledger's idempotency key for a cage posting of ``actor`` under the one-time ``key``."""
    return f"cage:{kind}:{actor.pk if actor is not None else 'system'}:{key}"


def _not_of_casino(player: Player, casino: Casino) -> str:
    return said("{player} is not a player of {casino}.", player=str(player), casino=str(casino))


def _amount_check(amount: Any, kind: str) -> None:
    limit = settings.CAGE_MAX_AMOUNT
    if type(amount) is not int or amount <= 0:
        raise ValidationError({"amount": _NOT_WHOLE[kind]})
    if amount > limit:  # the limit said as a screen writes chips (10 000 000), plain in the API
        raise ValidationError({"amount": said(_ABOVE_LIMIT[kind], limit=limit)})


def _replay_check(txn: Transaction, *, kind: str, player: Player, amount: int, key: str) -> None:
    """The key posted before: it must have been this very posting (same player, same amount)."""
    wallet = ledger_selectors.account_find(casino=player.casino, kind=Account.Kind.PLAYER, player=player)
    entries = ledger_selectors.transaction_entries(txn=txn)
    if wallet is None or entries.get(wallet.pk) != _SIGN[kind] * amount:
        raise ledger.IdempotencyConflict(said(_KEY_USED[kind], key=key, transaction=str(txn.pk)))


def _player_tables_lock(player: Player) -> None:
    """Lock the tables where ``player`` sits or stands as a spectator now, by id, before his
    accounts (the floor's lock order: a table first, tables.services.locking): a step at one of
    them (his stake, his bet, a coup's start) and his cash-out then come one after the other, so
    what he has at stake is read as it stands when the cage pays out. Nothing to lock: no
    statement."""
    tables = {
        *Seat.objects.filter(player=player, left_at__isnull=True).values_list("session__table_id", flat=True),
        *Spectator.objects.filter(player=player, left_at__isnull=True).values_list(
            "session__table_id", flat=True
        ),
    }
    if tables:
        locking = Table.objects.select_for_update().filter(pk__in=tables).order_by("pk")
        list(locking.values_list("pk", flat=True))


def _cage_post(
    *,
    kind: str,
    actor: Actor,
    casino: Casino,
    player: Player,
    amount: Any,
    key: str,
    document: DocumentIn | None,
) -> CageReceipt:
    if actor is not None:  # None is the system itself (the demo data), as in tables.services
        check_can_operate_cage(actor, casino.pk)
    _amount_check(amount, kind)
    key = idempotency_key_check(key)
    if player.casino_id != casino.pk:
        raise ValidationError({"player": _not_of_casino(player, casino)})
    ledger_key = cage_ledger_key(kind=kind, actor=actor, key=key)
    if kind == CASH_OUT:
        _player_tables_lock(player)
    # The accounts the posting locks, first: a concurrent twin of this request posts or replays
    # while we wait, so the replay found here is the truth.
    ledger.accounts_lock(
        casino=casino,
        specs=[ledger.account_spec(Account.Kind.CAGE), ledger.account_spec(Account.Kind.PLAYER, player)],
        actor=actor,
        players={player.pk: player},
    )
    txn = ledger.posting_find(ledger_key, casino=casino, kind=kind)
    replayed = txn is not None
    if txn is not None:
        _replay_check(txn, kind=kind, player=player, amount=amount, key=key)
    else:
        # under the player's account lock: the day's totals cannot move until we commit
        plan = compliance.cash_move_check(
            casino=casino, player=player, direction=_DIRECTION[kind], amount=amount, document=document
        )
        # a cash-out leaves him what he could still lose in the coups being played (every game's,
        # read under his account's lock and his tables' locks): the ledger refuses the rest
        held = {"at_stake": cage_selectors.chips_at_stake(player=player)} if kind == CASH_OUT else {}
        txn = _POSTERS[kind](casino=casino, player=player, amount=amount, actor=actor, key=ledger_key, **held)
        compliance.cash_move_record(actor=actor, plan=plan, txn=txn)
    balance = ledger_selectors.account_balance(casino=casino, kind=Account.Kind.PLAYER, player=player)
    return CageReceipt(kind, player, amount, txn, balance, replayed)


@transaction.atomic
def cage_buy_in(
    *, actor: Actor, casino: Casino, player: Player, amount: int, key: str, document: DocumentIn | None = None
) -> CageReceipt:
    """The player buys ``amount`` chips at the cage (cage -amount, player +amount). ``document``:
    his identity document, when the move needs him identified and none is on file (compliance)."""
    return _cage_post(
        kind=BUY_IN, actor=actor, casino=casino, player=player, amount=amount, key=key, document=document
    )


@transaction.atomic
def cage_cash_out(
    *, actor: Actor, casino: Casino, player: Player, amount: int, key: str, document: DocumentIn | None = None
) -> CageReceipt:
    """The player cashes ``amount`` chips in (player -amount, cage +amount); never more than he
    holds, nor the chips he could still lose in the coups being played, whichever the game
    (cage.selectors.chips_at_stake): InsufficientChips, saying how much is at stake and where."""
    return _cage_post(
        kind=CASH_OUT, actor=actor, casino=casino, player=player, amount=amount, key=key, document=document
    )


def cage_move_check(
    *,
    actor: Actor,
    casino: Casino,
    player: Player,
    kind: str,
    amount: Any,
    document: DocumentIn | None = None,
) -> compliance.CashMovePlan:
    """What a buy-in or cash-out would be refused for, checked before the cashier is asked to
    confirm it (nothing is written, nothing locked): who acts, the amount, the player's casino,
    for a cash-out the chips he holds now less what he has at stake in the coups being played,
    and his identification when the move needs it (compliance.IdentificationRequired). The
    posting checks all of it again, under its locks: chips may move between the question and the
    confirmation. Answers compliance's plan (the day's total, what the move obliges) for the
    confirmation to show."""
    if actor is not None:
        check_can_operate_cage(actor, casino.pk)
    _amount_check(amount, kind)
    if player.casino_id != casino.pk:
        raise ValidationError({"player": _not_of_casino(player, casino)})
    if kind == CASH_OUT:
        balance = ledger_selectors.account_balance(casino=casino, kind=Account.Kind.PLAYER, player=player)
        at_stake = cage_selectors.chips_at_stake(player=player) if balance >= amount else {}
        if (refusal := ledger.cash_out_refusal(player, balance, amount, at_stake)) is not None:
            raise ledger.InsufficientChips(refusal)
    return compliance.cash_move_check(
        casino=casino, player=player, direction=_DIRECTION[kind], amount=amount, document=document
    )


@transaction.atomic
def cage_player_register(
    *, actor: AbstractBaseUser | AnonymousUser, casino: Casino, display_name: str, membership_number: str = ""
) -> Player:
    """A new player of the casino, registered at the cage (audited by tables.services)."""
    check_can_operate_cage(actor, casino.pk)  # so an authenticated user from here on
    return player_create(
        actor=cast(Staff, actor),
        casino=casino,
        display_name=display_name,
        membership_number=membership_number,
    )
