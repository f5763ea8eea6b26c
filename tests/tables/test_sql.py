"""tables/sql.py: the step path's statements read what the ORM would, and lock what they say."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, connections, transaction
from django.db.models import Model
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from chemin_de_fer.engine.machine import Move
from tables import services, sql
from tables.lifecycle import CoupRecordsChanged
from tables.models import BankTurn, Bet, Coup, SessionPause, Shoe, Table, TableSession
from tables.services.locking import lock_coup, lock_coup_with_steps
from tests.row_locks import row_free
from tests.tables.play import Floor, open_floor


def start_coup(floor: Floor) -> Coup:
    return services.coup_start(actor=floor.croupier, session=floor.session, amount=200).coup


pytestmark = pytest.mark.django_db


def columns_of(row: Model) -> list[object]:
    """Every column of ``row`` as its instance holds it (attnames, in the model's order)."""
    return [getattr(row, f.attname) for f in type(row)._meta.concrete_fields]


def shift_answers(
    asked: Callable[[sql.Shift | None], bool], *, croupier: Any, other_croupier: Any, at: dt.datetime
) -> list[bool]:
    """A locking statement's answers (``asked``, given the shift it asks about) for: another
    table's croupier; the croupier with a group he does not hold; with the one he holds; nobody's
    shift asked."""
    return [
        asked((other_croupier.pk, at, None)),
        asked((croupier.pk, at, "pit_boss")),
        asked((croupier.pk, at, "croupier")),
        asked(None),
    ]


def started(work: Callable[[], object]) -> tuple[threading.Thread, threading.Event]:
    """``work``, in a transaction of its own on a thread of its own (its own connection), started;
    the event is set once it has ended."""
    done = threading.Event()

    def run() -> None:
        try:
            with transaction.atomic():
                work()
        finally:
            connection.close()
            done.set()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, done


def waits_holding_the_table(
    table_id: int, held: tuple[str, int], work: Callable[[], object]
) -> tuple[bool, ...]:
    """Another transaction holds the row ``held`` (its table's name, its id) locked while ``work``
    runs on a thread of its own: whether ``work`` held the table's row while it waited, whether
    it waited, and whether it ended once the row was let go."""
    holder = connections.create_connection("default")
    try:
        with holder.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute(f"SELECT id FROM {held[0]} WHERE id = %s FOR UPDATE", [held[1]])
            worker, done = started(work)
            deadline = time.monotonic() + 10
            while row_free("tables_table", table_id) and time.monotonic() < deadline:
                time.sleep(0.05)
            table_held = not row_free("tables_table", table_id)
            waiting = not done.is_set()
            cursor.execute("ROLLBACK")
        worker.join(10)
    finally:
        holder.close()
    return table_held, waiting, done.is_set()


def test_the_coups_table_and_shoe_are_locked_and_read_in_one_statement(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start_coup(floor)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked, shoe = sql.coup_table_lock(coup.pk)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1
    # the row locks where the database has them; SQLite's transaction already holds its database lock
    locking = "FOR UPDATE OF t, s" in statements[0]
    assert locking == (connection.vendor == "postgresql"), statements[0]
    assert connection.vendor == "postgresql" or "FOR UPDATE" not in statements[0]
    assert (locked.pk, shoe.pk) == (table.pk, coup.shoe_id)
    # every field as the ORM reads it, the profile and casino loaded
    fresh = type(table).objects.select_related("profile", "casino").get(pk=table.pk)
    assert columns_of(locked) == columns_of(fresh)
    assert (locked.profile, locked.casino) == (fresh.profile, fresh.casino)
    fresh_shoe = Shoe.objects.get(pk=coup.shoe_id)
    assert columns_of(shoe) == columns_of(fresh_shoe)
    with pytest.raises(Coup.DoesNotExist):
        sql.coup_table_lock(10**9)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_one_statement_locks_the_table_before_the_shoe(croupier, table) -> None:
    """The lock order (tables/services/locking.py) inside the one statement: a step that finds the
    shoe locked waits for it holding the table, never the shoe without the table."""
    coup = start_coup(open_floor(croupier, table))
    work = lambda: sql.coup_table_lock(coup.pk)  # noqa: E731
    assert waits_holding_the_table(table.pk, ("tables_shoe", coup.shoe_id), work) == (True, True, True)
    assert row_free("tables_table", table.pk) and row_free("tables_shoe", coup.shoe_id)


def test_the_sessions_table_and_the_session_are_locked_and_read_in_one_statement(
    croupier, other_croupier, table
) -> None:
    floor = open_floor(croupier, table)
    now = timezone.now()
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        session, on_shift = sql.session_lock(floor.session.pk, table.pk, shift=(croupier.pk, now, None))
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1
    assert ("FOR UPDATE OF t, ss" in statements[0]) == (connection.vendor == "postgresql"), statements[0]
    assert on_shift is True
    # every field as the ORM reads it, the table's profile and casino loaded
    fresh = TableSession.objects.select_related("table__profile", "table__casino").get(pk=floor.session.pk)
    loaded = ((session, fresh), (session.table, fresh.table), (session.table.profile, fresh.table.profile))
    for mine, theirs in loaded:
        assert columns_of(mine) == columns_of(theirs)
    assert session.table.casino == fresh.table.casino
    with transaction.atomic():
        answers = shift_answers(lambda shift: sql.session_lock(floor.session.pk, table.pk, shift=shift)[1],
                                croupier=croupier, other_croupier=other_croupier, at=now)
    assert answers == [False, False, True, False]
    with pytest.raises(TableSession.DoesNotExist):
        sql.session_lock(10**9, table.pk)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_one_statement_locks_the_table_before_the_session(croupier, table) -> None:
    """The lock order (tables/services/locking.py): a write that finds the session locked waits
    for it holding the table, never the session without the table."""
    floor = open_floor(croupier, table)
    work = lambda: sql.session_lock(floor.session.pk, table.pk)  # noqa: E731
    held = ("tables_tablesession", floor.session.pk)
    assert waits_holding_the_table(table.pk, held, work) == (True, True, True)
    assert row_free("tables_table", table.pk) and row_free("tables_tablesession", floor.session.pk)


def test_a_tables_open_session_is_locked_and_read_with_the_table_in_one_statement(
    croupier, other_croupier, table
) -> None:
    floor = open_floor(croupier, table)
    now = timezone.now()
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked, session, on_shift = sql.open_session_lock(table.pk, shift=(croupier.pk, now, None))
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1
    # the table's row locked first, by its sub-select, then the session's, by the LATERAL's
    postgres = connection.vendor == "postgresql"
    assert ("FOR UPDATE OF y" in statements[0] and "FOR UPDATE OF x" in statements[0]) == postgres
    assert postgres or "FOR UPDATE" not in statements[0]
    assert on_shift is True
    assert session is not None and session.table is locked
    # every field as the ORM reads them, the table's profile and casino loaded
    fresh = TableSession.objects.select_related("table__profile", "table__casino").get(pk=floor.session.pk)
    loaded = ((session, fresh), (locked, fresh.table), (locked.profile, fresh.table.profile))
    for mine, theirs in loaded:
        assert columns_of(mine) == columns_of(theirs)
    assert locked.casino == fresh.table.casino
    with transaction.atomic():
        answers = shift_answers(lambda shift: sql.open_session_lock(table.pk, shift=shift)[2],
                                croupier=croupier, other_croupier=other_croupier, at=now)
    assert answers == [False, False, True, False]
    services.table_session_close(actor=croupier, session=floor.session, reason="end of the night")
    with transaction.atomic():
        # a closed session is no open one: the table alone, still locked and asked about
        closed = sql.open_session_lock(table.pk, shift=(croupier.pk, now, None))
    assert (closed[0].pk, closed[1], closed[2]) == (table.pk, None, True)
    with pytest.raises(Table.DoesNotExist):
        sql.open_session_lock(10**9)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_open_session_statement_locks_the_table_before_the_session(croupier, table) -> None:
    """The lock order: the coup's start from the API finds the session locked and waits for it
    holding the table, never the session without the table."""
    floor = open_floor(croupier, table)
    work = lambda: sql.open_session_lock(table.pk)  # noqa: E731
    held = ("tables_tablesession", floor.session.pk)
    assert waits_holding_the_table(table.pk, held, work) == (True, True, True)
    assert row_free("tables_table", table.pk) and row_free("tables_tablesession", floor.session.pk)


def test_a_coup_start_reads_what_it_checks_in_one_statement_locking_the_shoe(croupier, table) -> None:
    floor = open_floor(croupier, table)
    first = start_coup(floor)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        read = sql.coup_start_read(floor.session, blocking=["open", "awaiting_correction"])
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1
    assert ("FOR UPDATE OF sh" in statements[0]) == (connection.vendor == "postgresql"), statements[0]
    assert connection.vendor == "postgresql" or "FOR UPDATE" not in statements[0]
    # every field as the ORM reads them
    turn = BankTurn.objects.select_related("seat", "player").get(session=floor.session, ended_at__isnull=True)
    assert read.shoe is not None and read.turn is not None
    seat, fresh_seat = read.turn.seat, turn.seat
    assert seat is not None and fresh_seat is not None
    pairs: tuple[tuple[Model, Model], ...] = (
        (read.shoe, Shoe.objects.get(pk=floor.shoe.pk)),
        (read.turn, turn),
        (seat, fresh_seat),
        (read.turn.player, turn.player),
    )
    for mine, theirs in pairs:
        assert columns_of(mine) == columns_of(theirs)
    assert (read.pending, read.paused, read.series, read.last, read.played) == (
        ("open", 1, 1), False, None, 1, 1,
    )  # fmt: skip
    # a coup no longer in play is not pending; a voided one was not played
    Coup.objects.filter(pk=first.pk).update(state="void")
    SessionPause.objects.create(session=floor.session, started_at=timezone.now(), started_by=croupier)
    read = sql.coup_start_read(floor.session, blocking=["open"])
    assert (read.pending, read.paused, read.series, read.last, read.played) == (None, True, None, 1, 0)
    # no shoe open: nothing else matters
    Shoe.objects.filter(pk=floor.shoe.pk).update(state="closed", closed_at=timezone.now())
    assert sql.coup_start_read(floor.session, blocking=["open"]) == sql.CoupStartRead(
        shoe=None, turn=None, pending=None, paused=False, series=None, last=None, played=0
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_coup_started_while_a_start_waits_for_the_tables_lock_holds_it_up(croupier, table) -> None:
    """The start's reads are a statement of their own after the table's lock: a start that
    waited for that lock while another transaction put a coup in play sees the coup (a read in the
    statement that waited would not: it reads as the rows stood when it began)."""
    floor = open_floor(croupier, table)
    refusals: list[str] = []
    begun, release = threading.Event(), threading.Event()

    def first() -> None:
        # another start, holding the table's lock until told to commit
        start_coup(floor)
        begun.set()
        release.wait(10)

    def second() -> None:
        try:
            services.coup_start(actor=croupier, session=floor.session, amount=100)
        except ValidationError as exc:
            refusals.extend(exc.messages)

    holder, held = started(first)
    try:
        assert begun.wait(10)
        worker, done = started(second)
        time.sleep(0.5)
        waiting = not done.is_set()
    finally:
        release.set()
        holder.join(10)
    worker.join(10)
    assert (waiting, held.is_set(), done.is_set()) == (True, True, True)
    assert refusals == ["First finish coup 1 of shoe 1."]
    assert Coup.objects.filter(shoe__session=floor.session).count() == 1


def test_lock_coup_attaches_the_shoe_and_table_the_audit_chain_is_found_from(croupier, table) -> None:
    coup = start_coup(open_floor(croupier, table))
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked = lock_coup(coup.pk)
        assert (locked.shoe.table.casino_id, locked.shoe_id) == (table.casino_id, coup.shoe_id)
    assert len([q for q in queries if "SAVEPOINT" not in q["sql"]]) == 2  # table and shoe, coup


def test_the_coups_place_and_the_coup_are_locked_and_read_with_its_steps_in_one_statement(
    croupier, table
) -> None:
    floor = open_floor(croupier, table)
    coup = start_coup(floor)
    services.coup_step_record(
        actor=croupier,
        coup=coup,
        request=services.StepRequest(kind=Move.BET, seat=2, amount=50),
        expected_step=1,
    )
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        place, shoe, on_shift, locked, steps = sql.coup_table_steps_lock(coup.pk)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1
    assert ("FOR UPDATE OF t, s, c" in statements[0]) == (connection.vendor == "postgresql"), statements[0]
    # the same table and shoe as coup_table_lock, the same coup, bank turn and seat as coup_lock
    # reads, the same steps and actors as coup_steps
    with transaction.atomic():
        alone_place, alone_shoe = sql.coup_table_lock(coup.pk)
        alone, rows = sql.coup_lock(coup.pk), sql.coup_steps(coup.pk)
    assert on_shift is False  # nobody's shift asked
    for mine, theirs in ((place, alone_place), (shoe, alone_shoe), (place.casino, alone_place.casino)):
        assert columns_of(mine) == columns_of(theirs)
    assert columns_of(locked) == columns_of(alone)
    assert (locked.bank_turn, locked.bank_turn.seat) == (alone.bank_turn, alone.bank_turn.seat)
    assert [(s.pk, s.index, s.kind, s.payload, s.actor.username) for s in steps] == [
        (r.pk, r.index, r.kind, r.payload, r.actor.username) for r in rows
    ]
    assert [(s.index, s.kind) for s in steps] == [(1, "bank_declared"), (2, "bet")]
    with pytest.raises(Coup.DoesNotExist):
        sql.coup_table_steps_lock(10**9)


def test_lock_coup_with_steps_asks_the_croupiers_shift_with_the_tables_lock(
    croupier, other_croupier, table
) -> None:
    coup = start_coup(open_floor(croupier, table))
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked, steps = lock_coup_with_steps(coup.pk, croupier=croupier)
    # table, shoe, coup, shift and steps
    assert len([q for q in queries if "SAVEPOINT" not in q["sql"]]) == 1
    assert (locked.pk, [s.kind for s in steps]) == (coup.pk, ["bank_declared"])
    for stranger in (other_croupier, None):  # another table's croupier, nobody logged in
        with pytest.raises(PermissionDenied), transaction.atomic():
            lock_coup_with_steps(coup.pk, croupier=stranger)
    locked.refresh_from_db()
    assert (locked.step_count, locked.state) == (1, Coup.State.OPEN)  # nothing changed


def test_steps_that_disagree_with_the_coups_counter_are_read_again(croupier, table) -> None:
    coup = start_coup(open_floor(croupier, table))
    real = sql.coup_steps
    calls: list[int] = []

    def counted(coup_id: int) -> list:
        calls.append(coup_id)
        return real(coup_id)

    with transaction.atomic():
        lock_coup_with_steps(coup.pk)
    assert calls == []  # the counter agrees with the rows read: no second read
    # a counter that no step row follows: read again first (a step committed meanwhile would be
    # among the rows then: tests below); still disagreeing, it is no service's doing but a change
    # made outside the application, refused as such (tables.services.vouching)
    Coup.objects.filter(pk=coup.pk).update(step_count=2)
    with transaction.atomic(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(sql, "coup_steps", counted)
        with pytest.raises(CoupRecordsChanged, match=r"\(the coup itself was changed\)"):
            lock_coup_with_steps(coup.pk)
    assert calls == [coup.pk]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_step_committed_while_the_lock_waits_is_read_again(croupier, table) -> None:
    """The one statement reads the steps from the snapshot it began with: when it waits for the
    table's lock while another step is written, that step is not among the rows it read, but the
    coup's counter (the locked row, as it stands) counts it, and the steps are read again."""
    coup = start_coup(open_floor(croupier, table))
    holder = connections.create_connection("default")
    seen: list[tuple[int, list[int]]] = []

    def step() -> None:
        locked, steps = lock_coup_with_steps(coup.pk, croupier=croupier)
        seen.append((locked.step_count, [s.index for s in steps]))

    try:
        with holder.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("SELECT id FROM tables_table WHERE id = %s FOR UPDATE", [table.pk])
            # another step, as a step is written under the table's lock: its row and the counter
            cursor.execute(
                "INSERT INTO tables_coupstep (coup_id, index, kind, payload, actor_id, created_at,"
                " violations, idempotency_key) SELECT coup_id, 2, 'bets_closed', '{}', actor_id,"
                " created_at, '[]', '' FROM tables_coupstep WHERE coup_id = %s AND index = 1",
                [coup.pk],
            )
            cursor.execute("UPDATE tables_coup SET step_count = 2 WHERE id = %s", [coup.pk])
            worker, done = started(step)
            time.sleep(0.5)
            waiting = not done.is_set()
            cursor.execute("COMMIT")
        worker.join(10)
    finally:
        holder.close()
    assert (waiting, done.is_set()) == (True, True)
    assert seen == [(2, [1, 2])]


def test_a_bet_is_written_with_the_coups_next_betting_order_in_one_statement(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start_coup(floor)
    seat = floor.seats[2]
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        first = sql.bet_insert(
            coup_id=coup.pk, seat_id=seat.pk, spectator_id=None, amount=50, banco=False, banco_suivi=False
        )
    assert len([q for q in queries if "SAVEPOINT" not in q["sql"]]) == 1
    second = sql.bet_insert(
        coup_id=coup.pk, seat_id=seat.pk, spectator_id=None, amount=30, banco=True, banco_suivi=True
    )
    assert [(b.betting_order, b.amount, b.banco, b.banco_suivi) for b in (first, second)] == [
        (1, 50, False, False),
        (2, 30, True, True),
    ]
    # the instance is the row as the ORM reads it, every field
    for bet in (first, second):
        assert columns_of(bet) == columns_of(Bet.objects.get(pk=bet.pk))
