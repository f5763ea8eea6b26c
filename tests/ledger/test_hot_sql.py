"""ledger/sql.py: the hot-path queries written in SQL read and write exactly what their ORM forms
did (compared here with the ORM), and the database still refuses what it refused. (The coup
postings' queries: tests/tables/money/test_sql.py.)"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from chemin_de_fer.engine.coup import Outcome
from ledger import sql as hot_sql
from ledger.models import Account, Entry, Transaction
from tests.ledger.builders import rig

pytestmark = pytest.mark.django_db


def test_a_transaction_read_by_key_equals_the_orm_row() -> None:
    r = rig("casino", players=1, chips=100)
    key = f"test:buyin:{r.players[0].pk}"
    read = hot_sql.transaction_by_key(key)
    assert read is not None
    orm = Transaction.objects.get(idempotency_key=key)
    fields = [f.attname for f in Transaction._meta.concrete_fields]
    assert [getattr(read, f) for f in fields] == [getattr(orm, f) for f in fields]
    assert read.posted_at.tzinfo is not None  # converted as the ORM converts it (SQLite too)
    assert read._state.adding is False and read == orm
    assert hot_sql.transaction_by_key("no such key") is None


def test_the_account_lock_reads_exactly_the_wanted_accounts_in_id_order() -> None:
    r = rig("casino", players=3, chips=100)
    other = rig("casino", players=1, chips=100)  # another casino's accounts are never read
    a, b, c = r.players
    r.play(a, 50, Outcome.BANKER, [(b, 10)], close_if_lost=False)  # opens the bank, levy, reserve
    owners = {"player": {a.pk, c.pk}, "reserve": {a.pk}, "bank": {r.table.pk}, "levy": set(), "cage": set()}
    locked = hot_sql.accounts_lock(r.casino.pk, owners)
    expected = Account.objects.filter(
        Q(kind="player", player__in=[a, c])
        | Q(kind="reserve", player=a)
        | Q(kind="bank", table=r.table)
        | Q(kind__in=["levy", "cage"]),
        casino=r.casino,
    ).order_by("pk")
    assert locked == list(expected) and len(locked) == 6
    assert [x.balance for x in locked] == [x.balance for x in expected]
    assert not {x.casino_id for x in locked} & {other.casino.pk}
    assert hot_sql.accounts_lock(r.casino.pk, {}) == []


def test_the_locking_clause_is_the_databases_own() -> None:
    """Every hand-written locking statement ends in lock_clause: PostgreSQL's row locks, and
    nothing on SQLite (no such clause there: its IMMEDIATE transaction holds the database lock)."""
    if connection.vendor == "postgresql":
        assert hot_sql.lock_clause() == " FOR UPDATE"
        assert hot_sql.lock_clause("t", "c") == " FOR UPDATE OF t, c"
    else:
        assert (connection.vendor, hot_sql.lock_clause(), hot_sql.lock_clause("t")) == ("sqlite", "", "")
        assert connection.settings_dict["OPTIONS"]["transaction_mode"] == "IMMEDIATE"


def _wallet(r) -> Account:
    return Account.objects.get(casino=r.casino, kind="player", player=r.players[0])


def _forged_transaction(r, key: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_transaction (casino_id, kind, memo, idempotency_key) "
            "VALUES (%s, 'hourly_fee', '', %s) RETURNING id",
            [r.casino.pk, key],
        )
        return cursor.fetchone()[0]


def test_entries_move_the_balances_by_their_net_and_still_meet_the_balance_check() -> None:
    r = rig("home", players=2, chips=100)
    wallet, cage = _wallet(r), Account.objects.get(casino=r.casino, kind="cage")
    other = Account.objects.get(casino=r.casino, kind="player", player=r.players[1])
    with transaction.atomic():
        # two transactions in one call: each account moves once, by its net (-30 + 5 for the wallet)
        first, second = _forged_transaction(r, "a"), _forged_transaction(r, "b")
        hot_sql.entries_post(
            [(first, wallet.pk, -30), (first, cage.pk, 30), (second, wallet.pk, 5), (second, other.pk, -5)]
        )
        for account in (wallet, cage, other):
            account.refresh_from_db()
        assert (wallet.balance, cage.balance, other.balance) == (75, -170, 95)
        transaction.set_rollback(True)
    bank = Account.objects.create(
        casino=r.casino, kind="bank", table=r.table, name="bank", opened_at=wallet.opened_at
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        forged = _forged_transaction(r, "c")
        hot_sql.entries_post([(forged, bank.pk, -1), (forged, cage.pk, 1)])  # a bank holds no fewer than 0
    wallet.refresh_from_db()
    bank.refresh_from_db()
    assert (wallet.balance, bank.balance) == (100, 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_entries_written_in_sql_are_still_checked_at_commit() -> None:
    r = rig("casino", players=2, chips=100)
    a, b = (Account.objects.get(casino=r.casino, kind="player", player=p) for p in r.players)
    with pytest.raises(IntegrityError, match="does not balance: its entries sum to 1"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_transaction (casino_id, kind, memo, idempotency_key) "
                "VALUES (%s, 'hourly_fee', '', 'sql') RETURNING id",
                [r.casino.pk],
            )
            (txn_id,) = cursor.fetchone()
        hot_sql.entries_post([(txn_id, a.pk, 10), (txn_id, b.pk, -9)])
    assert not Transaction.objects.filter(idempotency_key="sql").exists()
    assert not Entry.objects.filter(transaction_id=txn_id).exists()
