"""A coup's money: the engine's Settlement posted against the table's bank account (each punter's
delta, the levy, the uncovered part and any bank above the house limit to the banker's reserve),
a restored coup's provisional settlement, its replacement once a pit boss approves and its
reversal once he rejects. docs/ledger.md lists the entries.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict, cast

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from chemin_de_fer.engine.coup import Settlement
from chemin_de_fer.engine.punters import seat_key, spectator_key
from core.atomic import service_atomic
from core.sentence import said
from core.sql import model_columns, model_fields, model_instances, rows_fetch
from ledger import selectors
from ledger.models import Account, Transaction
from ledger.services import (
    Posting,
    account_spec,
    accounts_by_pk,
    accounts_lock,
    posting_find,
    posting_replay_checked,
    postings_write,
)
from tables.models import Casino, Coup, Player, Shoe, Table
from tables.money.rules import (
    CoupAccounts,
    settlement_at_stake_check,
    settlement_entries,
    settlement_memo,
    settlement_punters,
    to_banker_wallet,
)

Kind = Account.Kind
TKind = Transaction.Kind

if TYPE_CHECKING:  # django-stubs-ext is a dev requirement
    from django_stubs_ext import WithAnnotations

# ------------------------------------------------------------------ the hot path's reads, in SQL
# Every coup posting runs them (this module, banks.py, bank_share.py): written with core/sql.py's
# helpers and under its rules (bound parameters only, rows turned into model instances with the
# ORM's converters, fields not read deferred).

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


def _settle_reads_sql(punters: str = "") -> str:
    """The settlement's one read (:func:`coup_settle_reads`); ``punters``: one more column after
    the coup's context (and its comma), the coup's bets' punters."""
    return f"""
    SELECT {_COUP_CONTEXT_COLUMNS}, {punters}{_TRANSACTION_COLUMNS} {_COUP_CONTEXT_FROM}
      LEFT JOIN ledger_transaction x ON {_PRIOR}
     WHERE c.id = %s
     ORDER BY x.id
"""


# a coup's bets' punters (tables.money.floor.coup_punters: every bet of the coup, withdrawn or not,
# in the bets' order, each its seat's number or its spectator and the player who made it), as one
# JSON array per coup: a sub-select of the settlement's one read, planned on its own
_PUNTER_PLAYER = model_fields(Player)
_PUNTERS_FROM = """
          FROM tables_bet b
          LEFT JOIN tables_seat e ON e.id = b.seat_id
          LEFT JOIN tables_spectator v ON v.id = b.spectator_id
          JOIN tables_player pl ON pl.id = COALESCE(e.player_id, v.player_id)
         WHERE b.coup_id = c.id"""
_PUNTER_VALUES = f"b.seat_id, e.number, b.spectator_id, {model_columns(Player, alias='pl')}"
_PUNTERS_JSON = {
    "postgresql": f"""(
        SELECT CAST(json_agg(json_build_array({_PUNTER_VALUES}) ORDER BY b.betting_order, b.id) AS text)
        {_PUNTERS_FROM})""",
    # SQLite's aggregate takes its rows in the sub-select's order (no ORDER BY inside one before 3.44)
    "sqlite": f"""(
        SELECT json_group_array(json(punter)) FROM (
        SELECT json_array({_PUNTER_VALUES}) AS punter
        {_PUNTERS_FROM}
         ORDER BY b.betting_order, b.id))""",
}
_COUP_SETTLE_READS_SQL = _settle_reads_sql()
#: by database vendor: the settlement's one read with the coup's punters
_SETTLE_READS_PUNTERS_SQL = {
    vendor: _settle_reads_sql(f"{column}, ") for vendor, column in _PUNTERS_JSON.items()
}


def _settle_rows(sql: str, coup_id: int, key: str) -> list[tuple[Any, ...]]:
    """The rows of the settlement's read ``sql`` of coup ``coup_id`` (its prior postings: the one
    under ``key`` and its standing settlements, final or provisional); Coup.DoesNotExist if there
    is no such coup."""
    kinds = [Transaction.Kind.COUP_SETTLEMENT, Transaction.Kind.COUP_PROVISIONAL]
    rows = rows_fetch(sql, [key, *kinds, coup_id])
    if not rows:
        raise Coup.DoesNotExist(f"Coup {coup_id} does not exist.")
    return rows


def _prior_of(rows: list[tuple[Any, ...]], start: int) -> list[Transaction]:
    """The prior postings the settlement's read found, their columns from ``start`` on (none on
    the one row of a coup with none: LEFT JOIN)."""
    return model_instances(Transaction, _TRANSACTION, [row[start:] for row in rows if row[start] is not None])


def coup_settle_reads(coup_id: int, key: str) -> tuple[CoupInContext, list[Transaction]]:
    """What settling a coup reads before it locks an account, in one statement: the coup in its
    context (:func:`coup_context`) and its prior postings: the transaction posted under ``key``,
    and the coup's settlements (final or provisional) that no reversal points at, in id order.
    Coup.DoesNotExist if there is no such coup."""
    rows = _settle_rows(_COUP_SETTLE_READS_SQL, coup_id, key)
    return _context_of(rows[0]), _prior_of(rows, _CONTEXT_WIDTH)


def coup_settle_reads_punters(
    coup_id: int, key: str
) -> tuple[CoupInContext, list[Transaction], dict[str, Player]]:
    """:func:`coup_settle_reads` and, in the same statement, the coup's punters as
    tables.money.floor.coup_punters finds them (its bets' punter keys, to the players; the
    players' every field read)."""
    rows = _settle_rows(_SETTLE_READS_PUNTERS_SQL[connection.vendor], coup_id, key)
    bets = json.loads(rows[0][_CONTEXT_WIDTH] or "[]")
    players = model_instances(Player, _PUNTER_PLAYER, [bet[3:] for bet in bets])
    punters = {
        seat_key(bet[1]) if bet[0] is not None else spectator_key(bet[2]): player
        for bet, player in zip(bets, players, strict=True)
    }
    return _context_of(rows[0]), _prior_of(rows, _CONTEXT_WIDTH + 1), punters


def _coup_context(coup: Coup) -> CoupInContext:
    """The coup with its table, casino, banker and bank turn, and whether a later coup of its bank
    turn has started (one query, read under the coup's lock, never a stale instance; in SQL, as it
    runs on every posting of a coup: :func:`coup_context`)."""
    return coup_context(coup.pk)


def _bank_still_in_play(coup: CoupInContext) -> bool:
    """Whether the coup's bank is still the one in the table's bank account: its bank turn has not
    ended and no later coup of that turn has started. When it has moved on (a correction reviewed
    after play went on), the banker's side of a late posting goes to his player account, where
    bank_close returned his chips."""
    return not coup.turn_ended and not coup.later_coup_started  # see _coup_context


def _coup_accounts(
    *,
    coup: Coup,
    settlement: Settlement | None,
    punters: Mapping[str, Player],
    actor: Any,
    extra: Iterable[int] = (),
) -> CoupAccounts:
    """Lock every account a coup posting may touch (and the accounts ``extra``), opening the
    missing ones."""
    table, banker = coup.shoe.table, coup.banker
    punter_players: dict[str, Player] = {}
    if settlement is not None:
        punter_players = settlement_punters(settlement=settlement, punters=punters, banker=banker)
    # the house banks with the cage's money (docs/rules.md §2): what would go to or come from a
    # player banker's chips or reserve goes to or comes from the cage
    banker_side = (
        [account_spec(Kind.CAGE)] * 2
        if banker.house
        else [account_spec(Kind.RESERVE, banker), account_spec(Kind.PLAYER, banker)]
    )
    specs = [
        account_spec(Kind.BANK, table=table),
        *banker_side,
        account_spec(Kind.LEVY),
        *(account_spec(Kind.PLAYER, p) for p in punter_players.values()),
    ]
    # the extra accounts (a provisional settlement's) and the named ones in one batch, by id
    by_spec = accounts_lock(
        casino=table.casino,
        specs=specs,
        actor=actor,
        players={p.pk: p for p in [banker, *punter_players.values()]},
        tables={table.pk: table},
        also=extra,
    )
    return CoupAccounts(
        by_spec=by_spec,
        punters={k: by_spec[account_spec(Kind.PLAYER, p)] for k, p in punter_players.items()},
        bank=by_spec[specs[0]],
        reserve=by_spec[specs[1]],
        wallet=by_spec[specs[2]],
        levy=by_spec[specs[3]],
    )


def _overdraft(accounts: CoupAccounts, borrowing: bool) -> list[int]:
    """The player accounts a coup posting may take below zero: the punters' and the banker's,
    where the coup's rules let players borrow (the shortfall is then the player's marker)."""
    if not borrowing:
        return []
    return [accounts.wallet.pk, *(a.pk for a in accounts.punters.values())]


def _live_provisional(coup: Coup) -> Transaction | None:
    return Transaction.objects.filter(coup=coup, kind=TKind.COUP_PROVISIONAL, reversals__isnull=True).first()


@service_atomic
def coup_settle(
    *,
    coup: Coup,
    settlement: Settlement,
    punters: Mapping[str, Player] | None,
    uncovered_to_reserve: bool,
    house_limit: int | None,
    actor: Any,
    key: str,
    borrowing: bool,
    provisional: bool = False,
) -> Transaction:
    """Post the engine's Settlement of a coup against the table's bank account: each punter's
    delta, the levy to the casino's levy account, the uncovered part to the banker's reserve
    (``uncovered_to_reserve``, every outcome) and, when the banker goes on, any bank above
    ``house_limit`` to his reserve. ``punters`` maps the settlement's punter keys to players
    (None: the coup's bets say, read with the coup: tables.money.floor.coup_punters's map).

    ``borrowing`` (the coup's rules): a punter who loses more than he holds is not refused, the
    shortfall is his marker (his player account goes below zero). Where it is off his bet was
    checked against his chips when he made it (tables.money.floor.bet_check_affordable).

    The bank account must hold exactly the bank at stake (bank_fund first). A stand-off with
    nothing to move posts a transaction with no entries. ``provisional`` marks the settlement of
    a restored coup awaiting a pit boss (coup_settlement_replace / coup_provisional_reverse); a
    coup has at most one live provisional settlement and one final settlement. A provisional
    settlement posted after the coup's bank has moved on settles the banker's side against his
    player account.
    """
    kind = TKind.COUP_PROVISIONAL if provisional else TKind.COUP_SETTLEMENT
    # one read: the coup in its context, a replay of this key, the coup's standing settlements
    # (and its bets' punters, when the caller has not got them)
    if punters is None:
        coup, prior, punters = coup_settle_reads_punters(coup.pk, key)
    else:
        coup, prior = coup_settle_reads(coup.pk, key)
    casino = coup.shoe.table.casino
    for txn in prior:
        if txn.idempotency_key == key:
            return posting_replay_checked(txn, key, casino=casino, kind=kind, coup=coup)
    standing = {txn.kind for txn in prior}
    if TKind.COUP_SETTLEMENT in standing:
        raise ValidationError(said("Coup {number} is already settled.", number=coup.number))
    if TKind.COUP_PROVISIONAL in standing:
        raise ValidationError(
            said(
                "Coup {number} has a provisional settlement awaiting review: approve or reject it.",
                number=coup.number,
            )
        )
    accounts = _coup_accounts(coup=coup, settlement=settlement, punters=punters, actor=actor)
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (found := posting_find(key, casino=casino, kind=kind, coup=coup)) is not None:
        return found
    entries = settlement_entries(
        settlement=settlement,
        accounts=accounts,
        uncovered_to_reserve=uncovered_to_reserve,
        house_limit=house_limit,
    )
    if _bank_still_in_play(coup):
        settlement_at_stake_check(
            settlement=settlement,
            bank_balance=accounts.bank.balance,
            table_name=coup.shoe.table.name,
            coup_number=coup.number,
        )
    elif provisional:
        entries = to_banker_wallet(entries, accounts)
    else:
        raise ValidationError(
            said("The bank of coup {number} has moved on: it can no longer be settled.", number=coup.number)
        )
    posting = Posting(kind, key, entries, settlement_memo(settlement, coup_number=coup.number), coup=coup)
    return postings_write(
        casino=casino,
        actor=actor,
        postings=[posting],
        accounts=accounts_by_pk(accounts.by_spec),
        overdraft=_overdraft(accounts, borrowing),
    )[0]


def _reversal(
    coup: Coup, provisional: Transaction, accounts: CoupAccounts, *, in_play: bool, key: str
) -> Posting:
    entries = {pk: -amount for pk, amount in selectors.transaction_entries(txn=provisional).items()}
    if not in_play:
        entries = to_banker_wallet(entries, accounts)
    return Posting(
        TKind.COUP_REVERSAL,
        key,
        entries,
        f"coup {coup.number}: provisional settlement #{provisional.pk} reversed",
        coup=coup,
        reverses=provisional,
    )


def _players_of(entries: Mapping[int, int], accounts: CoupAccounts, borrowing: bool) -> list[int]:
    """The player accounts among a provisional settlement's ``entries`` (its punters), that a
    reversal may take below zero where ``borrowing``."""
    if not borrowing:
        return []
    return [pk for pk, a in _with_extra(accounts, entries).items() if pk in entries and a.kind == Kind.PLAYER]


def _with_extra(accounts: CoupAccounts, extra: Iterable[int]) -> dict[int, Account]:
    by_pk = accounts_by_pk(accounts.by_spec)
    missing = [pk for pk in extra if pk not in by_pk]
    by_pk.update((a.pk, a) for a in Account.objects.filter(pk__in=missing))  # (locked by _coup_accounts)
    return by_pk


def _provisional_locked(
    coup: Coup,
    *,
    settlement: Settlement | None,
    punters: Mapping[str, Player],
    actor: Any,
    undone: Literal["replace", "reverse"],
) -> tuple[Transaction, dict[int, int], CoupAccounts]:
    """The coup's live provisional settlement (refused when it has none: nothing to ``undone``),
    its entries, and the coup's accounts locked with those the entries moved (a punter gone since)."""
    provisional = _live_provisional(coup)
    if provisional is None:
        # a pattern for each verb: a translation conjugates its own
        if undone == "replace":
            raise ValidationError(
                said("Coup {number} has no provisional settlement to replace.", number=coup.number)
            )
        raise ValidationError(
            said("Coup {number} has no provisional settlement to reverse.", number=coup.number)
        )
    old = selectors.transaction_entries(txn=provisional)
    accounts = _coup_accounts(coup=coup, settlement=settlement, punters=punters, actor=actor, extra=old)
    return provisional, old, accounts


def _undoing_write(
    *,
    casino: Casino,
    actor: Any,
    postings: list[Posting],
    accounts: CoupAccounts,
    old: Mapping[int, int],
    borrowing: bool,
) -> list[Transaction]:
    """Write postings that reverse a provisional settlement (its entries ``old``): on the coup's
    accounts and those the entries moved, and where ``borrowing``, its punters may go below zero
    too (what the reversal takes back from a player who no longer has it is his marker)."""
    return postings_write(
        casino=casino,
        actor=actor,
        postings=postings,
        accounts=_with_extra(accounts, old),
        overdraft=_overdraft(accounts, borrowing) + _players_of(old, accounts, borrowing),
    )


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
    borrowing: bool,
) -> Transaction:
    """A pit boss approved a restored coup: reverse its live provisional settlement (a new
    transaction with the entries negated, ``reverses`` → it, key ``<key>:reverse``) and post the
    restored settlement for good (key ``<key>:settle``). New rows only; the balances move once, by
    the net of the two (nothing, when the approved settlement is the provisional one). Once the
    coup's bank has moved on, both settle the banker's side against his player account.
    Returns the final settlement."""
    coup = _coup_context(coup)
    casino = coup.shoe.table.casino
    if (
        txn := posting_find(f"{key}:settle", casino=casino, kind=TKind.COUP_SETTLEMENT, coup=coup)
    ) is not None:
        return txn
    if Transaction.objects.filter(coup=coup, kind=TKind.COUP_SETTLEMENT).exists():
        raise ValidationError(said("Coup {number} is already settled.", number=coup.number))
    provisional, old, accounts = _provisional_locked(
        coup, settlement=settlement, punters=punters, actor=actor, undone="replace"
    )
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (
        txn := posting_find(f"{key}:settle", casino=casino, kind=TKind.COUP_SETTLEMENT, coup=coup)
    ) is not None:
        return txn
    in_play = _bank_still_in_play(coup)
    final = settlement_entries(
        settlement=settlement,
        accounts=accounts,
        uncovered_to_reserve=uncovered_to_reserve,
        house_limit=house_limit,
    )
    if not in_play:
        final = to_banker_wallet(final, accounts)
    postings = [
        _reversal(coup, provisional, accounts, in_play=in_play, key=f"{key}:reverse"),
        Posting(
            TKind.COUP_SETTLEMENT,
            f"{key}:settle",
            final,
            settlement_memo(settlement, coup_number=coup.number, restored=True),
            coup=coup,
        ),
    ]
    return _undoing_write(
        casino=casino, actor=actor, postings=postings, accounts=accounts, old=old, borrowing=borrowing
    )[1]


@transaction.atomic
def coup_provisional_reverse(*, coup: Coup, actor: Any, key: str, borrowing: bool) -> Transaction:
    """A pit boss rejected a restored coup (or voided it): reverse its live provisional settlement
    (negated entries, ``reverses`` → it); the coup then awaits a new correction. Once the coup's
    bank has moved on, the banker's side is taken from / returned to his player account, where
    bank_close returned his chips. A player who no longer has the chips the reversal takes back:
    his marker where ``borrowing``, InsufficientChips (nothing written) otherwise."""
    coup = _coup_context(coup)
    casino = coup.shoe.table.casino
    if (txn := posting_find(key, casino=casino, kind=TKind.COUP_REVERSAL, coup=coup)) is not None:
        return txn
    provisional, old, accounts = _provisional_locked(
        coup, settlement=None, punters={}, actor=actor, undone="reverse"
    )
    # posted meanwhile by a request that held these accounts: a replay waits for its first run here
    if (txn := posting_find(key, casino=casino, kind=TKind.COUP_REVERSAL, coup=coup)) is not None:
        return txn
    posting = _reversal(coup, provisional, accounts, in_play=_bank_still_in_play(coup), key=key)
    return _undoing_write(
        casino=casino, actor=actor, postings=[posting], accounts=accounts, old=old, borrowing=borrowing
    )[0]
