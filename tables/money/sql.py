"""The game's hot-path money queries, in SQL (written with core/sql.py's helpers and under its
rules: bound parameters only, rows turned into model instances with the ORM's converters, fields
not read deferred). Every coup posting runs them: tables/money/settlement.py, banks.py,
bank_share.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict, cast

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

_COUP_CONTEXT_SQL = """
    SELECT c.id, c.shoe_id, c.number, c.banker_id, c.bank, c.bank_turn_id,
           s.id, s.table_id,
           t.id, t.casino_id, t.name, t.profile_id,
           k.id, k.name, k.house_limit,
           p.id, p.casino_id, p.display_name, p.house,
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
    row = rows[0]
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
_COUP_SETTLE_PRIOR_SQL = f"""
    SELECT {model_columns(Transaction)} FROM ledger_transaction t
     WHERE t.idempotency_key = %s
        OR (t.coup_id = %s AND t.kind IN (%s, %s)
            AND NOT EXISTS (SELECT 1 FROM ledger_transaction r WHERE r.reverses_id = t.id))
     ORDER BY t.id
"""


def coup_settle_prior(key: str, coup_id: int) -> list[Transaction]:
    """In one read: the transaction posted under ``key``, and the coup's settlements (final or
    provisional) that no reversal points at."""
    params = [key, coup_id, Transaction.Kind.COUP_SETTLEMENT, Transaction.Kind.COUP_PROVISIONAL]
    return model_instances(Transaction, _TRANSACTION, rows_fetch(_COUP_SETTLE_PRIOR_SQL, params))
