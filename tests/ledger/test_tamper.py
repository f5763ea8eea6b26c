"""What the database refuses on its own (PostgreSQL), and concurrent postings."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import IntegrityError, connection, transaction

from audit.db_triggers import triggers_present
from chemin_de_fer.engine.coup import Outcome
from ledger import services as ledger
from ledger.models import Account, Entry, Transaction
from ledger.selectors import ledger_drift, unbalanced_transactions
from ledger.services import posting
from tables.money import banks
from tables.money import settlement as coup_money
from tests.ledger.builders import rig

pytestmark = [pytest.mark.postgres]


def refused(sql: str, params: list | None = None) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # no pending deferred events before TRUNCATE
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    with pytest.raises(IntegrityError) as info, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)
    return str(info.value)


@pytest.fixture
def posted(db):
    r = rig("casino", players=2, chips=100)
    banker, p1 = r.players
    coup, _ = r.play(banker, 50, Outcome.BANKER, [(p1, 20)])
    return Transaction.objects.get(coup=coup, kind="coup_settlement")


@pytest.mark.django_db
def test_triggers_are_installed() -> None:
    for table in ("ledger_transaction", "ledger_entry", "tables_feehour"):
        assert triggers_present(connection, table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname, tgdeferrable, tginitdeferred FROM pg_trigger "
            "WHERE tgname = 'ledger_entry_balanced'"
        )
        assert cursor.fetchall() == [("ledger_entry_balanced", True, True)]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql",
    [
        'UPDATE "ledger_entry" SET "amount" = "amount" * 2 WHERE "transaction_id" = %s',
        'DELETE FROM "ledger_entry" WHERE "transaction_id" = %s',
        'UPDATE "ledger_transaction" SET "memo" = \'edited\' WHERE "id" = %s',
        'DELETE FROM "ledger_transaction" WHERE "id" = %s',
    ],
)
def test_update_and_delete_of_posted_rows_are_refused(posted, sql: str) -> None:
    before = (
        list(Entry.objects.filter(transaction=posted).values()),
        Transaction.objects.filter(pk=posted.pk).values()[0],
    )
    message = refused(sql, [posted.pk])
    assert "is append-only" in message and "refused" in message
    after = (
        list(Entry.objects.filter(transaction=posted).values()),
        Transaction.objects.filter(pk=posted.pk).values()[0],
    )
    assert after == before


@pytest.mark.django_db
@pytest.mark.parametrize("table", ["ledger_entry", "ledger_transaction", "ledger_account"])
def test_truncate_is_refused(posted, table: str) -> None:
    assert "append-only: TRUNCATE refused" in refused(f'TRUNCATE "{table}" CASCADE')


@pytest.mark.django_db
def test_an_account_is_never_deleted_and_only_its_balance_changes(posted) -> None:
    account = Account.objects.filter(kind="player").first()
    assert account is not None
    assert "ledger_account is append-only: DELETE refused" in refused(
        'DELETE FROM "ledger_account" WHERE "id" = %s', [account.pk]
    )
    for column, value in [
        ("name", "'renamed'"),
        ("kind", "'levy'"),
        ("opened_at", "opened_at + interval '1 day'"),
    ]:
        message = refused(f'UPDATE "ledger_account" SET "{column}" = {value} WHERE "id" = %s', [account.pk])
        assert "only the balance may change" in message


def _commit_raw(statements: Callable[[object], None]) -> str:
    with pytest.raises(IntegrityError) as info, transaction.atomic(), connection.cursor() as cursor:
        statements(cursor)
    return str(info.value)


@pytest.mark.django_db(transaction=True)
def test_an_unbalanced_transaction_inserted_with_raw_sql_is_rejected_at_commit() -> None:
    r = rig("casino", players=2, chips=100)
    a, b = (Account.objects.get(kind="player", player=p) for p in r.players)

    def insert(cursor) -> None:
        cursor.execute(
            "INSERT INTO ledger_transaction (casino_id, kind, memo, idempotency_key) "
            "VALUES (%s, 'hourly_fee', 'forged', 'forged') RETURNING id",
            [r.casino.pk],
        )
        (txn_id,) = cursor.fetchone()
        cursor.execute(
            "INSERT INTO ledger_entry (transaction_id, account_id, amount) VALUES (%s, %s, 10), (%s, %s, -9)",
            [txn_id, a.pk, txn_id, b.pk],
        )  # accepted here: the check is deferred to COMMIT

    message = _commit_raw(insert)
    assert "does not balance: its entries sum to 1" in message
    assert not Transaction.objects.filter(idempotency_key="forged").exists()


@pytest.mark.django_db(transaction=True)
def test_entries_cannot_be_added_to_a_posted_transaction_even_balanced() -> None:
    r = rig("casino", players=3, chips=100)
    _, a, b = (Account.objects.get(kind="player", player=p) for p in r.players)
    old = Transaction.objects.get(kind="buy_in", idempotency_key=f"test:buyin:{r.players[0].pk}")

    def insert(cursor) -> None:
        cursor.execute(
            "INSERT INTO ledger_entry (transaction_id, account_id, amount) VALUES (%s, %s, 5), (%s, %s, -5)",
            [old.pk, a.pk, old.pk, b.pk],
        )

    assert "entries are added only with their transaction" in _commit_raw(insert)


@pytest.mark.django_db(transaction=True)
def test_an_entry_on_another_casinos_account_is_rejected_at_commit() -> None:
    r1, r2 = rig("casino", players=1, chips=10), rig("casino", players=1, chips=10)
    a = Account.objects.get(kind="player", player=r1.players[0])
    foreign = Account.objects.get(kind="player", player=r2.players[0])

    def insert(cursor) -> None:
        cursor.execute(
            "INSERT INTO ledger_transaction (casino_id, kind, memo, idempotency_key) "
            "VALUES (%s, 'hourly_fee', '', 'cross') RETURNING id",
            [r1.casino.pk],
        )
        (txn_id,) = cursor.fetchone()
        cursor.execute(
            "INSERT INTO ledger_entry (transaction_id, account_id, amount) VALUES (%s, %s, 1), (%s, %s, -1)",
            [txn_id, a.pk, txn_id, foreign.pk],
        )

    assert "belongs to another casino" in _commit_raw(insert)


def _race(workers: int, work: Callable[[int], object]) -> tuple[list[object], list[BaseException]]:
    start = threading.Barrier(workers)
    results: list[object] = []
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            start.wait()
            results.append(work(i))
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results, errors


@pytest.fixture
def unsettled(transactional_db):
    r = rig("casino", players=3, chips=1000)
    banker, p1, p2 = r.players
    coup = r.coup(banker, 100)
    banks.bank_fund(coup=coup, amount=100, actor=r.actor, key="race:bank", borrowing=r.borrowing)
    return r, coup, r.settlement("banker", 100, [(p1, 60), (p2, 30)])


def _settle_from_thread(r, coup, result):
    def work(_: int) -> int:
        txn = coup_money.coup_settle(
            coup=coup,
            settlement=result,
            punters=r.punters(),
            uncovered_to_reserve=False,
            house_limit=None,
            actor=r.actor,
            key=f"coup:{coup.pk}:settle",
            borrowing=r.borrowing,
        )
        return txn.pk

    return work


@pytest.mark.concurrency
def test_settling_the_same_coup_from_two_threads_posts_once(unsettled) -> None:
    r, coup, result = unsettled
    ids, errors = _race(2, _settle_from_thread(r, coup, result))
    assert errors == [] and len(ids) == 2 and ids[0] == ids[1]
    assert Transaction.objects.filter(coup=coup, kind="coup_settlement").count() == 1
    assert Account.objects.get(kind="bank", table=r.table).balance == 100 + 90 - 4
    assert ledger_drift() == [] and unbalanced_transactions() == []


@pytest.mark.concurrency
def test_eight_threads_settling_one_coup_post_once(unsettled) -> None:
    """No global ledger lock: the account row locks and the key let only one of eight concurrent
    postings through; the others wait for its account locks, then find and return it."""
    r, coup, result = unsettled
    ids, errors = _race(8, _settle_from_thread(r, coup, result))
    assert errors == [] and len(set(ids)) == 1 and len(ids) == 8
    assert Transaction.objects.filter(coup=coup).count() == 2  # bank_fund + one settlement
    assert Account.objects.get(kind="bank", table=r.table).balance == 186
    assert ledger_drift() == [] and unbalanced_transactions() == []


def test_concurrent_buy_ins_and_bets_keep_every_balance(transactional_db) -> None:
    r = rig("casino", players=4, chips=0)

    def work(i: int) -> int:
        player = r.players[i % 4]
        for n in range(10):
            ledger.cage_buy_in(casino=r.casino, player=player, amount=5, actor=None, key=f"t{i}:{n}")
        return i

    _, errors = _race(8, work)
    assert errors == []
    assert sorted(Account.objects.filter(kind="player").values_list("balance", flat=True)) == [100] * 4
    assert Account.objects.get(kind="cage").balance == -400
    assert ledger_drift() == []


def test_a_replay_that_slips_past_the_read_is_caught_by_the_unique_key(unsettled, monkeypatch) -> None:
    """The last line of defence: the key's UNIQUE constraint, in a savepoint, then a re-read."""
    r, _, _ = unsettled
    wallet, cage = (
        Account.objects.get(casino=r.casino, kind=k, player=p)
        for k, p in [("player", r.players[1]), ("cage", None)]
    )
    first = ledger.transaction_post(
        casino=r.casino, kind="buy_in", entries=[(cage, -7), (wallet, 7)], idempotency_key="once", actor=None
    )
    monkeypatch.setattr(posting, "posting_find", lambda *a, **k: None)  # as if read before the commit
    with transaction.atomic():
        again = ledger.transaction_post(
            casino=r.casino,
            kind="buy_in",
            entries=[(cage, -7), (wallet, 7)],
            idempotency_key="once",
            actor=None,
        )
    assert again == first
    wallet.refresh_from_db()
    assert (wallet.balance, Transaction.objects.filter(idempotency_key="once").count()) == (1007, 1)
