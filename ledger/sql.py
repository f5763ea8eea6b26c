"""The ledger's hot-path queries, in SQL (the helpers to write more of them are core/sql.py).

Every posting runs these (a coup's settlement at every coup of every table; its game-side queries,
written with the same helpers, are tables/money/settlement.py's). They were ORM queries,
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

from django.db import connection

from core.sql import lock_clause, model_columns, model_fields, model_instances, placeholders, rows_fetch
from ledger.models import PER_PLAYER_KINDS, PER_TABLE_KINDS, Account, Entry, Transaction

# the generic helpers (core.sql), here too: the ledger's tests and callers read them beside the
# queries they build
__all__ = ["lock_clause", "model_columns", "model_fields", "model_instances", "placeholders", "rows_fetch"]

# ----------------------------------------------------------------------------------------- reads

_TRANSACTION = model_fields(Transaction)
_TRANSACTION_BY_KEY_SQL = (
    f"SELECT {model_columns(Transaction)} FROM ledger_transaction WHERE idempotency_key = %s"
)


def transaction_by_key(key: str) -> Transaction | None:
    """The transaction posted under idempotency ``key``, if any."""
    found = model_instances(Transaction, _TRANSACTION, rows_fetch(_TRANSACTION_BY_KEY_SQL, [key]))
    return found[0] if found else None


_TRANSACTION_INSERT_SQL = (
    "INSERT INTO ledger_transaction (casino_id, kind, actor_id, memo, idempotency_key, coup_id, "
    "coup_step_id, reverses_id, game_coup_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
    f"ON CONFLICT (idempotency_key) DO NOTHING RETURNING {model_columns(Transaction)}"
)


def transaction_insert(
    *,
    casino_id: int,
    kind: str,
    actor_id: int | None,
    memo: str,
    key: str,
    coup_id: int | None,
    coup_step_id: int | None,
    reverses_id: int | None,
    game_coup_id: int | None,
) -> Transaction | None:
    """Insert a transaction under idempotency ``key`` and return it as written (its id and the
    database's ``posted_at``); None, having written nothing, when ``key`` is already posted.

    One statement: the UNIQUE key decides a replay (a concurrent first run holding the key is
    waited for, then counted as posted), so no look-up before and no savepoint around it. Every
    other constraint still refuses the row (IntegrityError)."""
    params = [casino_id, kind, actor_id, memo, key, coup_id, coup_step_id, reverses_id, game_coup_id]
    found = model_instances(Transaction, _TRANSACTION, rows_fetch(_TRANSACTION_INSERT_SQL, params))
    return found[0] if found else None


# ----------------------------------------------------------------------------------------- locks

_ACCOUNT = model_fields(Account)
# an account's owner column is fixed by its kind (constraint account_owner_matches_kind)
_OWNER_COLUMN: dict[str, str] = {
    **dict.fromkeys(PER_PLAYER_KINDS, "player_id"),
    **dict.fromkeys(PER_TABLE_KINDS, "table_id"),
}


def accounts_lock(
    casino_id: int, owners: Mapping[str, Iterable[int]], ids: Iterable[int] = ()
) -> list[Account]:
    """The casino's accounts of each kind in ``owners`` owned by one of its ids (player ids for
    player and reserve accounts, table ids for banks; the per-casino kinds, whose accounts have no
    owner, map to nothing) and the accounts ``ids``, locked FOR UPDATE in ascending id order, in
    one statement (one lock order for every poster: no deadlock between postings)."""
    conditions: list[str] = []
    params: list[object] = [casino_id]
    if ids := sorted(set(ids)):
        conditions.append(f"id IN ({placeholders(len(ids))})")
        params += ids
    for kind, owner_ids in sorted(owners.items()):
        if kind in _OWNER_COLUMN:
            owned = sorted(owner_ids)
            conditions.append(f"(kind = %s AND {_OWNER_COLUMN[kind]} IN ({placeholders(len(owned))}))")
            params += [kind, *owned]
        else:
            conditions.append("kind = %s")
            params.append(kind)
    if not conditions:
        return []
    sql = (
        f"SELECT {model_columns(Account)} FROM ledger_account WHERE casino_id = %s "
        f"AND ({' OR '.join(conditions)}) ORDER BY id{lock_clause()}"
    )
    return model_instances(Account, _ACCOUNT, rows_fetch(sql, params))


# ---------------------------------------------------------------------------------------- writes


def entries_post(
    entries: Sequence[tuple[int, int, int]], *, returning: bool = False, ids: Sequence[int] | None = None
) -> list[Entry]:
    """Insert ledger entries ``(transaction id, account id, amount)`` and move the accounts'
    balances by their net, the accounts being already locked by the caller. ``returning``: the
    entries come back as written, each with its id (in no particular order), for the caller to
    bind to its audit event by their values (audit.rows.RowWritten): the rows are append-only, so
    what the INSERT wrote is what the transaction commits; otherwise nothing comes back. ``ids``:
    the entries' ids, one an entry, taken from the table's sequence beforehand by a caller that
    binds them by their values as it builds them (import_coups); else the sequence gives them.

    PostgreSQL: one INSERT, however many entries (arrays, so no limit on bound values); the
    database moves the balances (the entries' statement trigger, ledger migration 0007), and
    refuses any other change of a balance. SQLite (``make run``): INSERTs of at most 30,000
    values (10,000 rows), then one UPDATE of the balances (``_balances_add``). Either way each
    account moves once, by its net, and the balance CHECK constraint applies to the result.
    """
    if not entries:
        return []
    back = ' RETURNING "id", "transaction_id", "account_id", "amount"' if returning else ""
    written: list[tuple[int, int, int, int]] = []
    rows: Sequence[tuple[int, ...]] = entries
    columns = "transaction_id, account_id, amount"
    if ids is not None:
        rows = [(pk, *entry) for pk, entry in zip(ids, entries, strict=True)]
        columns = "id, " + columns
    width = len(rows[0])
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            arrays = [list(column) for column in zip(*rows, strict=True)]
            cursor.execute(
                f"INSERT INTO ledger_entry ({columns}) "
                f"SELECT * FROM unnest({', '.join(['%s::bigint[]'] * width)})" + back,
                arrays,
            )
            return _entries(cursor.fetchall()) if returning else []
        row, per = "(" + ", ".join(["%s"] * width) + ")", 30_000 // width  # SQLite's 32,766 parameters
        for start in range(0, len(rows), per):
            chunk = rows[start : start + per]
            cursor.execute(
                f"INSERT INTO ledger_entry ({columns}) VALUES " + ", ".join([row] * len(chunk)) + back,
                [value for entry in chunk for value in entry],
            )
            if returning:
                written += cursor.fetchall()
    net: dict[int, int] = {}
    for _, account, amount in entries:
        net[account] = net.get(account, 0) + amount
    _balances_add({pk: delta for pk, delta in net.items() if delta})
    return _entries(written)


def _entries(rows: Iterable[Sequence[int]]) -> list[Entry]:
    """Entry instances of rows ``(id, transaction id, account id, amount)`` just inserted."""
    out = []
    for pk, txn_id, account_id, amount in rows:
        entry = Entry(pk=pk, transaction_id=txn_id, account_id=account_id, amount=amount)
        entry._state.adding, entry._state.db = False, connection.alias
        out.append(entry)
    return out


def _balances_add(deltas: Mapping[int, int]) -> None:
    """SQLite: add ``deltas`` (account id -> chips) to the accounts' balances, in one statement."""
    if not deltas:
        return
    values = ", ".join(["(%s, %s)"] * len(deltas))
    with connection.cursor() as cursor:
        # a VALUES list's columns are column1, column2
        cursor.execute(
            f"UPDATE ledger_account SET balance = balance + moved.column2 "
            f"FROM (VALUES {values}) AS moved WHERE ledger_account.id = moved.column1",
            [value for item in deltas.items() for value in item],
        )
        if cursor.rowcount != len(deltas):
            raise RuntimeError(f"balances: {cursor.rowcount} accounts updated, {len(deltas)} expected")
