"""The one lock order every writer follows, and the helpers that take its first steps.

The order, for every transaction that writes (the REST API, the croupier's screens, the pit boss's
review, the importer, Celery tasks):

1. the **table** row (``Table``);
2. the **session** (``TableSession``), then what hangs off it: its series, bank turn, seats,
   spectators, pause; the **player** taking a seat or a place (``Player``: one table at a time,
   tables.services.floor);
3. the **shoe** (``Shoe``);
4. the **coup** (``Coup``);
5. the **ledger accounts** (``ledger.Account``), all that a posting touches in one statement,
   by ascending id (``ledger.sql.accounts_lock``); an account opened then is new, locked by its
   INSERT;
6. the **audit chain** last: ``audit.services.audit_record`` keeps its events and they are
   appended, under the chain's advisory lock, just before COMMIT (audit/backends/).

Taking locks in one order is what keeps two tablets (or a tablet and the API, or two tables of one
casino) from deadlocking each other; taking the table row first is what makes two writers at one
table queue instead of race. Every ``select_for_update()`` that joins other rows
(``select_related``) names the rows it means to lock (``of=("self",)``): PostgreSQL would
otherwise lock every joined row too — the casino and the rule profile, shared by all the tables
of a casino — which serialised every table of a casino and closed a cycle with the audit chain.

A deadlock or lock timeout that still happens rolls the whole transaction back; the REST API and
the croupier's screens run it once more, then answer "retry" (core.transient).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError

from audit.rows import rows_loaded
from core.sentence import said
from core.types import Staff
from tables import sql
from tables.models import Coup, CoupStep, GameCoup, Table, TableSession
from tables.permissions import NOT_THE_CROUPIER_HERE, croupier_shift_question
from tables.services.vouching import coup_rows_vouch

#: a lock taken with no croupier to check (``lock_session``, ``lock_coup``): a ``croupier`` given,
#: even None (nobody logged in), is checked
UNCHECKED: Any = object()


def _shift_asked(croupier: Any) -> sql.Shift | None:
    """The question the locking statements ask of ``croupier`` (his user id, the instant, a group
    he must hold: tables.permissions.croupier_shift_question); None: nobody to ask about."""
    question = croupier_shift_question(croupier)
    return (question.user_id, question.at, question.role) if question is not None else None


def lock_session(session: TableSession | int, *, croupier: Any = UNCHECKED) -> TableSession:
    """Lock the session's table, then the session itself (not its table's casino or profile).
    ``croupier``: then check that he is the croupier on shift at the table (``check_croupier_at``,
    PermissionDenied), asked by the statement that locks the table."""
    if isinstance(session, int):
        session_id = session
        table_id = TableSession.objects.values_list("table_id", flat=True).get(pk=session_id)
    else:
        # a session never changes table: the instance's own says which one to lock, with no read
        session_id, table_id = session.pk, session.table_id
    checked = croupier is not UNCHECKED
    shift = _shift_asked(croupier) if checked else None
    # the table, then the session, locked by one statement that reads the table's profile and
    # casino with them and asks the croupier's shift there
    locked, on_shift = sql.session_lock(session_id, table_id, shift=shift)
    if checked and not on_shift:
        raise PermissionDenied(NOT_THE_CROUPIER_HERE)
    return locked


def lock_coup(coup: Coup | int, *, croupier: Any = UNCHECKED) -> Coup:
    """Lock the coup's table, its shoe and the coup (in that order) and return the fresh coup, with
    its shoe, table, rule profile, casino, bank turn and banker's seat loaded. ``croupier``: check
    that he is the croupier on shift at the coup's table (``check_croupier_at``, PermissionDenied)
    once the locks are taken, asked by the statement that locks the table.

    Small statements rather than one that joins the seven rows, in SQL (tables/sql.py): every step
    of every coup takes this path, and PostgreSQL spent longer *planning* a seven-table join than
    running the whole step's other statements, and Django longer compiling it; the rows each
    statement returns are put together here instead (docs/benchmarks.md, "Many tables at once")."""
    return _coup_locked(coup, croupier=croupier, with_steps=False)[0]


def lock_coup_with_steps(coup: Coup | int, *, croupier: Any = UNCHECKED) -> tuple[Coup, list[CoupStep]]:
    """``lock_coup``, and the coup's step rows in order, each with its actor (``sql.coup_steps``),
    read by the one statement that locks the table, the shoe and the coup: what a step replays."""
    return _coup_locked(coup, croupier=croupier, with_steps=True)


def _coup_locked(coup: Coup | int, *, croupier: Any, with_steps: bool) -> tuple[Coup, list[CoupStep]]:
    coup_id = coup if isinstance(coup, int) else coup.pk
    checked = croupier is not UNCHECKED
    shift = _shift_asked(croupier) if checked else None
    steps: list[CoupStep] = []
    if with_steps:
        # the coup's place read, its table, shoe and coup locked, the croupier's shift there asked
        # and the coup's steps read, at once
        table, shoe, on_shift, locked, steps = sql.coup_table_steps_lock(coup_id, shift=shift)
        if (steps[-1].index if steps else 0) != locked.step_count:
            # the counter always equals the last index (step_append): a step committed while this
            # statement waited for a lock is not in the snapshot it read the steps from, but the
            # locked coup's counter counts it; read them again, as they stand now the coup is locked
            steps = sql.coup_steps(coup_id)
    else:
        if shift is not None:
            # the coup's place read, its table and shoe locked and the croupier's shift there
            # asked, at once
            table, shoe, on_shift = sql.coup_table_lock_on_shift(
                coup_id, user_id=shift[0], at=shift[1], role=shift[2]
            )
        else:
            table, shoe = sql.coup_table_lock(coup_id)  # the coup's place read, its table and shoe locked
        locked = sql.coup_lock(coup_id)
    if shift is None:
        on_shift = False  # a croupier named but no question to ask: he cannot be one
    if checked and not on_shift:
        raise PermissionDenied(NOT_THE_CROUPIER_HERE)
    if with_steps and [step.index for step in steps] != list(range(1, locked.step_count + 1)):
        # the steps are 1..step_count, always (step_append): a gap or a count that disagrees is
        # no service's doing but a step inserted or deleted in the database. Said as such, with the
        # pit boss's void the way on, rather than a stale-step conflict that no retry could pass
        coup_rows_vouch(coup=locked, steps=steps, step_model=CoupStep, current_step=locked.step_count)
    # its state as locked, before the service changes it: the binding of the service's audit event
    # carries it, so a change made between two steps behind the application's back is found
    rows_loaded(locked)
    shoe.table = table
    locked.shoe = shoe
    return locked, steps


def lock_game_coup(coup: GameCoup | int) -> GameCoup:
    """Lock an older game's coup's table, then the coup (steps 1 and 4 of the order: it has no
    shoe), and return the fresh coup with its table and casino loaded. Only those two rows are
    locked: the casino, shared by every table of it, is read, not locked."""
    coup_id = coup if isinstance(coup, int) else coup.pk
    table_id = GameCoup.objects.values_list("table_id", flat=True).get(pk=coup_id)
    table = Table.objects.select_for_update(of=("self",)).select_related("casino").get(pk=table_id)
    locked = GameCoup.objects.select_for_update().get(pk=coup_id)
    rows_loaded(locked)  # its state before this step, for the binding (audit.rows)
    locked.table = table
    return locked


def require_open(session: TableSession) -> None:
    if session.closed_at is not None:
        raise ValidationError(said("This session is closed."))


def open_session_lock_at_table(*, actor: Staff, table: int) -> TableSession | None:
    """The first steps of a croupier's write at his table when its session is not known yet (a
    coup's start from the REST API): table ``table`` and its open session locked, in that order,
    and ``actor`` checked to be the croupier assigned there for the shift (PermissionDenied), by
    one statement. Returns the locked session (its table loaded with the table's profile and
    casino), None when the table has no session open; Table.DoesNotExist if there is no such
    table (before the croupier's check, as a lookup of the table before it would)."""
    _, session, on_shift = sql.open_session_lock(table, shift=_shift_asked(actor))
    if not on_shift:  # no question to ask (not a croupier) is no shift either
        raise PermissionDenied(NOT_THE_CROUPIER_HERE)
    return session


def session_lock_at_table(
    *, actor: Staff, session: TableSession | int, must_be_open: bool = True
) -> TableSession:
    """The first steps of every croupier's write at his table, in this order: the session's table
    and the session locked (:func:`lock_session`), ``actor`` checked to be the croupier assigned
    there for the shift, then (``must_be_open``) the session checked to be still open. Returns the
    locked session. A write that says in its own words why a closed session refuses it passes
    ``must_be_open=False`` and checks it itself."""
    session = lock_session(session, croupier=actor)
    if must_be_open:
        require_open(session)
    return session
