"""The ledger's hot-path queries, in SQL.

Every posting runs these (``coup_settle`` at every coup of every table). They were ORM queries,
and building and compiling them cost more client CPU than the database spent answering them
(docs/ledger.md, "Measured"). Each one is the query its ORM form sent, written out: the same
rows, the same locks in the same order, the same constraints and triggers on the writes.

Rules kept here: every value is a bound parameter; the only text put into a statement is column
names read from the models and one ``%s`` per bound value. Rows are turned into model instances
with the ORM's own converters (SQLite, for one, returns datetimes naive), fields not read being
deferred as with ``QuerySet.only()``. Portable: PostgreSQL and SQLite (``make run``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import DEFERRED, Model

from ledger.models import PER_PLAYER_KINDS, Account, Transaction
from tables.models import Casino, Coup, Player, Shoe, Table

_M = TypeVar("_M", bound=Model)


def _fields(model: type[Model]) -> tuple[str, ...]:
    """Every field of ``model`` (attnames), in the order Model.from_db expects them."""
    return tuple(f.attname for f in model._meta.concrete_fields)


def _columns(model: type[Model]) -> str:
    return ", ".join(f'"{f.column}"' for f in model._meta.concrete_fields)


def _placeholders(count: int) -> str:
    return ", ".join(["%s"] * count)


def _instances(model: type[_M], fields: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[_M]:
    """Instances of ``model`` from raw ``rows`` of its ``fields`` (attnames, any order), converted
    as the ORM converts them; the other fields are deferred (reading one queries it, as after
    ``only()``)."""
    db = connections[DEFAULT_DB_ALIAS]
    meta = model._meta
    position = {name: i for i, name in enumerate(fields)}
    converters = {}  # position in the row -> (the backend's and the field's converters, column)
    for field in meta.concrete_fields:
        if field.attname in position:
            col = field.get_col(meta.db_table)
            if found := [*db.ops.get_db_converters(col), *col.get_db_converters(db)]:
                converters[position[field.attname]] = (found, col)
    order = [position.get(field.attname) for field in meta.concrete_fields]
    out = []
    for row in rows:
        if converters:
            row = list(row)
            for i, (found, col) in converters.items():
                for converter in found:
                    row[i] = converter(row[i], col, db)
        values = [DEFERRED if i is None else row[i] for i in order]
        out.append(model.from_db(db.alias, fields, values))
    return out


def _fetchall(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


# ----------------------------------------------------------------------------------------- reads

_COUP = ("id", "shoe_id", "number", "banker_id", "bank", "bank_turn_id")
_SHOE = ("id", "table_id")
_TABLE = ("id", "casino_id", "name", "profile_id")
_CASINO = ("id", "name", "house_limit")
_PLAYER = ("id", "casino_id", "display_name")

_COUP_CONTEXT_SQL = """
    SELECT c.id, c.shoe_id, c.number, c.banker_id, c.bank, c.bank_turn_id,
           s.id, s.table_id,
           t.id, t.casino_id, t.name, t.profile_id,
           k.id, k.name, k.house_limit,
           p.id, p.casino_id, p.display_name,
           bt.ended_at IS NOT NULL,
           EXISTS (SELECT 1 FROM tables_coup later
                    WHERE later.bank_turn_id = c.bank_turn_id AND later.id > c.id)
      FROM tables_coup c
      JOIN tables_bankturn bt ON bt.id = c.bank_turn_id
      JOIN tables_shoe s ON s.id = c.shoe_id
      JOIN tables_table t ON t.id = s.table_id
      JOIN tables_casino k ON k.id = t.casino_id
      JOIN tables_player p ON p.id = c.banker_id
     WHERE c.id = %s
"""


def coup_context(coup_id: int) -> Coup:
    """The coup (only the fields the ledger reads) with ``shoe.table.casino`` and ``banker``, and
    ``turn_ended`` (its bank turn has ended) and ``later_coup_started`` (a later coup of that turn
    exists). Coup.DoesNotExist if there is no such coup."""
    rows = _fetchall(_COUP_CONTEXT_SQL, [coup_id])
    if not rows:
        raise Coup.DoesNotExist(f"Coup {coup_id} does not exist.")
    row = rows[0]
    (coup,) = _instances(Coup, _COUP, [row[0:6]])
    (shoe,) = _instances(Shoe, _SHOE, [row[6:8]])
    (table,) = _instances(Table, _TABLE, [row[8:12]])
    (casino,) = _instances(Casino, _CASINO, [row[12:15]])
    (banker,) = _instances(Player, _PLAYER, [row[15:18]])
    table.casino, shoe.table, coup.shoe, coup.banker = casino, table, shoe, banker
    coup.turn_ended, coup.later_coup_started = bool(row[18]), bool(row[19])
    return coup


_TRANSACTION = _fields(Transaction)
_TRANSACTION_BY_KEY_SQL = f"SELECT {_columns(Transaction)} FROM ledger_transaction WHERE idempotency_key = %s"


def transaction_by_key(key: str) -> Transaction | None:
    """The transaction posted under idempotency ``key``, if any."""
    found = _instances(Transaction, _TRANSACTION, _fetchall(_TRANSACTION_BY_KEY_SQL, [key]))
    return found[0] if found else None


_COUP_SETTLE_PRIOR_SQL = f"""
    SELECT {_columns(Transaction)} FROM ledger_transaction t
     WHERE t.idempotency_key = %s
        OR (t.coup_id = %s AND t.kind IN (%s, %s)
            AND NOT EXISTS (SELECT 1 FROM ledger_transaction r WHERE r.reverses_id = t.id))
     ORDER BY t.id
"""


def coup_settle_prior(key: str, coup_id: int) -> list[Transaction]:
    """In one read: the transaction posted under ``key``, and the coup's settlements (final or
    provisional) that no reversal points at."""
    params = [key, coup_id, Transaction.Kind.COUP_SETTLEMENT, Transaction.Kind.COUP_PROVISIONAL]
    return _instances(Transaction, _TRANSACTION, _fetchall(_COUP_SETTLE_PRIOR_SQL, params))


# ----------------------------------------------------------------------------------------- locks

_ACCOUNT = _fields(Account)
# an account's owner column is fixed by its kind (constraint account_owner_matches_kind)
_OWNER_COLUMN = {**dict.fromkeys(PER_PLAYER_KINDS, "player_id"), Account.Kind.BANK: "table_id"}


def accounts_lock(casino_id: int, owners: Mapping[str, Iterable[int]]) -> list[Account]:
    """The casino's accounts of each kind in ``owners`` owned by one of its ids (player ids for
    player and reserve accounts, table ids for banks; the per-casino kinds, whose accounts have no
    owner, map to nothing), locked FOR UPDATE in ascending id order."""
    conditions, params = [], [casino_id]
    for kind, ids in sorted(owners.items()):
        if kind in _OWNER_COLUMN:
            ids = sorted(ids)
            conditions.append(f"(kind = %s AND {_OWNER_COLUMN[kind]} IN ({_placeholders(len(ids))}))")
            params += [kind, *ids]
        else:
            conditions.append("kind = %s")
            params.append(kind)
    if not conditions:
        return []
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""  # SQLite: the db lock
    sql = (
        f"SELECT {_columns(Account)} FROM ledger_account WHERE casino_id = %s "
        f"AND ({' OR '.join(conditions)}) ORDER BY id{lock}"
    )
    return _instances(Account, _ACCOUNT, _fetchall(sql, params))


# ---------------------------------------------------------------------------------------- writes


def entries_insert(entries: Sequence[tuple[int, int, int]]) -> None:
    """Insert ledger entries ``(transaction id, account id, amount)``."""
    if not entries:
        return
    values = ", ".join(["(%s, %s, %s)"] * len(entries))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO ledger_entry (transaction_id, account_id, amount) VALUES {values}",
            [value for entry in entries for value in entry],
        )


def balances_add(deltas: Mapping[int, int]) -> None:
    """Add ``deltas`` (account id -> chips) to the accounts' balances, in one statement. The
    accounts are already locked by the caller; the balance CHECK constraint and the account guard
    trigger apply as to any UPDATE."""
    if not deltas:
        return
    values = ", ".join(["(%s, %s)"] * len(deltas))
    with connection.cursor() as cursor:
        # a VALUES list's columns are column1, column2 on both PostgreSQL and SQLite
        cursor.execute(
            f"UPDATE ledger_account SET balance = balance + moved.column2 "
            f"FROM (VALUES {values}) AS moved WHERE ledger_account.id = moved.column1",
            [value for item in deltas.items() for value in item],
        )
        if cursor.rowcount != len(deltas):
            raise RuntimeError(f"balances: {cursor.rowcount} accounts updated, {len(deltas)} expected")
