"""Opening and locking the ledger's accounts.

An account is named by a spec ``(kind, player id, table id)``: the owner column is fixed by the
kind (constraint account_owner_matches_kind). ``accounts_lock`` locks the accounts of a posting FOR
UPDATE in id order and opens the missing ones, so a poster never has to open an account itself.

The ledger takes the floor's casino, player and table as objects (the Protocols below) and never
imports the floor. Whether a player may borrow is not the account's to know: the game decides it
from the rules a coup is played under and says so with each posting (``postings_write``'s
``overdraft``), so one player may play on credit at one table and not at the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from audit.services import audit_record
from audit.snapshot import model_snapshot
from core.sentence import said
from ledger import sql as hot_sql
from ledger.models import Account

Kind = Account.Kind


class LedgerCasino(Protocol):
    """What the ledger reads of a casino (tables.Casino)."""

    pk: Any
    name: str


class LedgerPlayer(Protocol):
    """What the ledger reads of a player (tables.Player)."""

    pk: Any
    casino_id: Any
    display_name: str


class LedgerTable(Protocol):
    """What the ledger reads of a table (tables.Table)."""

    pk: Any
    casino_id: Any
    name: str


AccountSpec = tuple[str, int | None, int | None]  # (kind, player id, table id)


def account_spec(
    kind: str, player: LedgerPlayer | None = None, table: LedgerTable | None = None
) -> AccountSpec:
    """The spec naming the ``kind`` account of ``player`` or ``table`` (or the casino's own)."""
    return (kind, player.pk if player is not None else None, table.pk if table is not None else None)


def account_name(
    casino: LedgerCasino, kind: str, player: LedgerPlayer | None, table: LedgerTable | None
) -> str:
    """The name an account is opened under (the batched importer opens a player's so too)."""
    if player is not None:
        return f"{kind}: {player.display_name} (#{player.pk})"
    if table is not None:
        return f"{kind}: {table.name} ({casino.name})"
    return f"{str(Kind(kind).label).lower()}: {casino.name}"


def _account_open(
    *, casino: LedgerCasino, kind: str, player: LedgerPlayer | None, table: LedgerTable | None, actor: Any
) -> Account:
    if player is not None and player.casino_id != casino.pk:
        raise ValidationError(
            said("{player} is not a player of {casino}.", player=str(player), casino=str(casino))
        )
    if table is not None and table.casino_id != casino.pk:
        raise ValidationError(
            said("{table} is not a table of {casino}.", table=str(table), casino=str(casino))
        )
    # by id: the floor's models are not the ledger's to import (nor, so, to name as types)
    _, player_id, table_id = account_spec(kind, player, table)
    try:
        with transaction.atomic():
            account = Account.objects.create(
                casino_id=casino.pk,
                kind=kind,
                player_id=player_id,
                table_id=table_id,
                name=account_name(casino, kind, player, table),
                opened_at=timezone.now(),
            )
    except IntegrityError:  # opened meanwhile by another transaction: use that one
        return Account.objects.select_for_update().get(
            casino=casino.pk, kind=kind, player=player_id, table=table_id
        )
    audit_record(actor=actor, action="ledger.account.open", target=account, after=model_snapshot(account))
    return account


def _owner(field: str, pk: int | None, known: Mapping[int, Any]) -> Any:
    """The owner ``pk`` of an account's ``field`` (player or table): from ``known``, else read
    through the foreign key's model (the ledger does not import it)."""
    if pk is None:
        return None
    if pk in known:
        return known[pk]
    model = Account._meta.get_field(field).related_model
    assert model is not None  # player and table are foreign keys
    return model._default_manager.get(pk=pk)


def accounts_lock(
    *,
    casino: LedgerCasino,
    specs: Iterable[AccountSpec],
    actor: Any,
    players: Mapping[int, LedgerPlayer] | None = None,
    tables: Mapping[int, LedgerTable] | None = None,
    also: Iterable[int] = (),
) -> dict[AccountSpec, Account]:
    """The accounts named by ``specs``, locked FOR UPDATE in id order, opening missing ones
    (``players`` and ``tables`` spare reading their owners again). The accounts ``also`` (ids, of
    this casino) are locked in the same statement, in the same order, and returned too."""
    wanted = set(specs)
    # one condition per kind (a kind's owner column is fixed by account_owner_matches_kind)
    owners: dict[str, set[int]] = {}
    for kind, player_id, table_id in wanted:
        owners.setdefault(kind, set()).update(i for i in (player_id, table_id) if i is not None)
    found = {
        (a.kind, a.player_id, a.table_id): a for a in hot_sql.accounts_lock(casino.pk, owners, also)
    }  # the wanted accounts (each (kind, owner) names one) and ``also``
    players, tables = players or {}, tables or {}
    for kind, player_id, table_id in sorted(wanted - found.keys(), key=repr):
        found[(kind, player_id, table_id)] = _account_open(
            casino=casino,
            kind=kind,
            player=_owner("player", player_id, players),
            table=_owner("table", table_id, tables),
            actor=actor,
        )
    return found


def accounts_by_pk(accounts: Mapping[AccountSpec, Account]) -> dict[int, Account]:
    """The locked ``accounts`` by id, as ``postings_write`` takes them."""
    return {a.pk: a for a in accounts.values()}


def account_may_go_negative(account: Account, *, allow_overdraft: bool = False) -> bool:
    """The cage may always hold fewer than zero chips; a player account only where the posting
    allows the overdraft (the game's decision: the player may borrow under the coup's rules).
    What a player account holds below zero is his marker: chips he owes the house."""
    return account.kind == Kind.CAGE or (account.kind == Kind.PLAYER and allow_overdraft)
