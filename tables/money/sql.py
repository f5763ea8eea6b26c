"""The game's hot-path money queries, in SQL (written with core/sql.py's helpers and under its
rules: bound parameters only, rows turned into model instances with the ORM's converters, fields
not read deferred). Every coup posting runs them: tables/money/settlement.py, banks.py,
bank_share.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from core.sql import model_columns, model_fields, model_instances, rows_fetch
from ledger.models import Transaction
from tables.models import Casino, Coup, Player, Shoe, Table

if TYPE_CHECKING:  # django-stubs-ext is a dev requirement
    from django_stubs_ext import WithAnnotations

_COUP = ("id", "shoe_id", "number", "banker_id", "bank", "bank_turn_id")
_SHOE = ("id", "table_id")
_TABLE = ("id", "casino_id", "name", "profile_id")
_CASINO = ("id", "name", "house_limit")
_PLAYER = ("id", "casino_id", "display_name", "house")

# the coup with its shoe, table, casino and banker, and its bank turn's two flags (21 columns)
_COUP_CONTEXT_COLUMNS = """
    c.id, c.shoe_id, c.number, c.banker_id, c.bank, c.bank_turn_id,
    s.id, s.table_id,
    t.id, t.casino_id, t.name, t.profile_id,
    k.id, k.name, k.house_limit,
    p.id, p.casino_id, p.display_name, p.house,
    bt.ended_at IS NOT NULL,
    EXISTS (SELECT 1 FROM tables_coup later
             WHERE later.bank_turn_id = c.bank_turn_id AND later.id > c.id)"""
_CONTEXT_WIDTH = 21
_COUP_CONTEXT_FROM = """
      FROM tables_coup c
      JOIN tables_bankturn bt ON bt.id = c.bank_turn_id
      JOIN tables_shoe s ON s.id = c.shoe_id
      JOIN tables_table t ON t.id = s.table_id
      JOIN tables_casino k ON k.id = t.casino_id
      JOIN tables_player p ON p.id = c.banker_id"""
_COUP_CONTEXT_SQL = f"SELECT {_COUP_CONTEXT_COLUMNS} {_COUP_CONTEXT_FROM} WHERE c.id = %s"


class CoupContextFlags(TypedDict):
    """What :func:`coup_context` adds to the coup it reads."""

    turn_ended: bool
    later_coup_started: bool


if TYPE_CHECKING:
    CoupInContext = WithAnnotations[Coup, CoupContextFlags]


def coup_context(coup_id: int) -> CoupInContext:
    """The coup (only the fields the ledger reads) with ``shoe.table.casino`` and ``banker``, and
    ``turn_ended`` (its bank turn has ended) and ``later_coup_started`` (a later coup of that turn
    exists). Coup.DoesNotExist if there is no such coup."""
    rows = rows_fetch(_COUP_CONTEXT_SQL, [coup_id])
    if not rows:
        raise Coup.DoesNotExist(f"Coup {coup_id} does not exist.")
    return _context_of(rows[0])


def _context_of(row: Sequence[Any]) -> CoupInContext:
    (coup,) = model_instances(Coup, _COUP, [row[0:6]])
    context = cast("CoupInContext", coup)  # the flags are set below
    (shoe,) = model_instances(Shoe, _SHOE, [row[6:8]])
    (table,) = model_instances(Table, _TABLE, [row[8:12]])
    (casino,) = model_instances(Casino, _CASINO, [row[12:15]])
    (banker,) = model_instances(Player, _PLAYER, [row[15:19]])
    table.casino, shoe.table, coup.shoe, coup.banker = casino, table, shoe, banker
    context.turn_ended, context.later_coup_started = bool(row[19]), bool(row[20])
    return context


_TRANSACTION = model_fields(Transaction)
# a settlement's prior postings: the one under its key, and the coup's standing settlements
# (``x``: ``t`` is the table)
_PRIOR = """x.idempotency_key = %s
        OR (x.coup_id = c.id AND x.kind IN (%s, %s)
            AND NOT EXISTS (SELECT 1 FROM ledger_transaction r WHERE r.reverses_id = x.id))"""
_TRANSACTION_COLUMNS = model_columns(Transaction, alias="x")
_COUP_SETTLE_READS_SQL = f"""
    SELECT {_COUP_CONTEXT_COLUMNS}, {_TRANSACTION_COLUMNS} {_COUP_CONTEXT_FROM}
      LEFT JOIN ledger_transaction x ON {_PRIOR}
     WHERE c.id = %s
     ORDER BY x.id
"""


def coup_settle_reads(coup_id: int, key: str) -> tuple[CoupInContext, list[Transaction]]:
    """What settling a coup reads before it locks an account, in one statement: the coup in its
    context (:func:`coup_context`) and its prior postings: the transaction posted under ``key``,
    and the coup's settlements (final or provisional) that no reversal points at, in id order.
    Coup.DoesNotExist if there is no such coup."""
    kinds = [Transaction.Kind.COUP_SETTLEMENT, Transaction.Kind.COUP_PROVISIONAL]
    rows = rows_fetch(_COUP_SETTLE_READS_SQL, [key, *kinds, coup_id])
    if not rows:
        raise Coup.DoesNotExist(f"Coup {coup_id} does not exist.")
    found = [row[_CONTEXT_WIDTH:] for row in rows if row[_CONTEXT_WIDTH] is not None]
    return _context_of(rows[0]), model_instances(Transaction, _TRANSACTION, found)
