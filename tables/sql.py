"""The floor's hot-path reads, in SQL: what every step of every coup reads before it is judged
(tables.services.locking.lock_coup, tables.services.coups.coup_step_record).

They were ORM queries, and Django spent more CPU building and compiling them than PostgreSQL
spent answering them — per step, more than the rules engine, the rendering and the audit event
together (docs/benchmarks.md, "Many tables at once"). Each is the query its ORM form sent,
written out once per process and database: the same rows, the same locks (PostgreSQL's ``FOR
UPDATE OF`` the one row meant, in the one lock order of tables/services/locking.py; SQLite's
database lock, core.sql.lock_clause), every identifier quoted as the ORM quotes it (``index``
is a keyword of SQLite's). Written with core/sql.py's helpers and
under its rules: every value a bound parameter, rows turned into model instances with the ORM's
own converters, every field of each model read (nothing deferred).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model

from core.sql import lock_clause, model_columns, model_fields, model_instances, rows_fetch
from tables.models import (
    UNPLAYED_COUP_STATES,
    BankTax,
    BankTurn,
    Bet,
    Casino,
    CasinoStaff,
    Coup,
    CoupStep,
    CroupierAssignment,
    Player,
    RuleProfile,
    Seat,
    Series,
    SessionPause,
    Shoe,
    ShoeCard,
    Table,
    TableSession,
)


def _columns(alias: str, model: type[Model]) -> str:
    return model_columns(model, alias=alias)


def _table(model: type[Model]) -> str:
    return f'"{model._meta.db_table}"'


_User = get_user_model()
#: who a locking statement asks about: a croupier's user id, the instant, a group he must hold
Shift = tuple[int, dt.datetime, str | None]
_TABLE, _PROFILE, _CASINO = model_fields(Table), model_fields(RuleProfile), model_fields(Casino)
_SHOE, _COUP, _TURN, _SEAT = (model_fields(m) for m in (Shoe, Coup, BankTurn, Seat))
_STEP, _USER, _SESSION = model_fields(CoupStep), model_fields(_User), model_fields(TableSession)
_PLAYER, _SERIES = model_fields(Player), model_fields(Series)


def _coup_table_sql(question: str = "", *, with_steps: bool = False) -> str:
    """The coup's table row (with the profile and the casino) and its shoe's row, both locked: the
    coup's place and the first two locks of the lock order in one statement, one round trip less
    on every step. The table is found by a sub-select (planned on its own, so no six-table join
    to plan), and nothing but the table and shoe rows is locked. PostgreSQL locks the rows ``FOR
    UPDATE OF`` names in the order it names them, for the one row this returns: the table, then
    the shoe, as tables/services/locking.py orders them (tests/tables/test_sql.py waits on each).
    ``question``: one more column (and its comma) asked by the statement that takes the locks.
    ``with_steps``: the coup's lock too, the third of the order, and the coup's row, its bank turn
    and the turn's seat, and its step rows with their actors, one row of the answer per step
    (ordered by index). The steps are read as the statement's snapshot holds them: when it waited
    on a lock, a step committed meanwhile by the holder is not among them, but the coup's row is
    the one locked, as it stands, and its counter says so (locking.py reads them again then)."""
    coup_columns = (
        f""",
           {_columns("c", Coup)}, {_columns("b", BankTurn)}, {_columns("e", Seat)},
           {_columns("st", CoupStep)}, {_columns("u", _User)}"""
        if with_steps
        else ""
    )
    coup_joins = (
        f"""
      JOIN {_table(Coup)} c ON c.id = %s AND c.shoe_id = s.id
      JOIN {_table(BankTurn)} b ON b.id = c.bank_turn_id
      LEFT JOIN {_table(Seat)} e ON e.id = b.seat_id
      LEFT JOIN {_table(CoupStep)} st ON st.coup_id = c.id
      LEFT JOIN {_table(_User)} u ON u.id = st.actor_id"""
        if with_steps
        else ""
    )
    tail = f' ORDER BY st."index"{lock_clause("t", "s", "c")}' if with_steps else lock_clause("t", "s")
    return f"""
    SELECT {question}
           {_columns("t", Table)}, {_columns("p", RuleProfile)}, {_columns("k", Casino)},
           {_columns("s", Shoe)}{coup_columns}
      FROM {_table(Table)} t
      JOIN {_table(RuleProfile)} p ON p.id = t.profile_id
      JOIN {_table(Casino)} k ON k.id = t.casino_id
      JOIN {_table(Shoe)} s ON s.table_id = t.id
                           AND s.id = (SELECT x.shoe_id FROM {_table(Coup)} x WHERE x.id = %s){coup_joins}
     WHERE t.id = (SELECT y.table_id FROM {_table(Coup)} x JOIN {_table(Shoe)} y ON y.id = x.shoe_id
                    WHERE x.id = %s){tail}
"""


def _session_sql(question: str) -> str:
    """A session's table and the session, locked in that order (the lock order's first two), the
    table read with its profile and casino; ``question``: one more column (and its comma) first."""
    return f"""
    SELECT {question}
           {_columns("t", Table)}, {_columns("p", RuleProfile)}, {_columns("k", Casino)},
           {_columns("ss", TableSession)}
      FROM {_table(Table)} t
      JOIN {_table(RuleProfile)} p ON p.id = t.profile_id
      JOIN {_table(Casino)} k ON k.id = t.casino_id
      JOIN {_table(TableSession)} ss ON ss.id = %s AND ss.table_id = t.id
     WHERE t.id = %s{lock_clause("t", "ss")}
"""


def _open_session_sql(question: str, *, row_locks: bool) -> str:
    """A table (with its profile and casino) and its open session if it has one, locked in that
    order (the lock order's first two); ``question``: one more column (and its comma) first.
    PostgreSQL cannot lock the nullable side of an outer join, and a ``FOR UPDATE`` of the whole
    statement would lock the rows only once the join produced them: the table is locked by a
    sub-select first, then the session by a LATERAL sub-select run for the locked row (after it,
    as a LATERAL is). Having waited for the table's lock, the statement reads as it began: a
    session opened meanwhile is not seen (as the table's open session read before the lock was
    not), and one closed meanwhile is not returned (its lock reads its row again, as it stands).
    SQLite has neither LATERAL nor row locks (its transaction holds the database's lock): the
    session is found by its id's sub-select."""
    columns = f"""
    SELECT {question}
           {_columns("t", Table)}, {_columns("p", RuleProfile)}, {_columns("k", Casino)},
           {_columns("ss", TableSession)}"""
    # the open session as table_open_session reads it (at most one: session_one_open_per_table)
    opened = f"""FROM {_table(TableSession)} x WHERE x."table_id" = t."id" AND x."closed_at" IS NULL
           ORDER BY x."opened_at" DESC LIMIT 1"""
    if row_locks:
        return f"""{columns}
      FROM (SELECT * FROM {_table(Table)} y WHERE y."id" = %s{lock_clause("y")}) t
      JOIN {_table(RuleProfile)} p ON p.id = t.profile_id
      JOIN {_table(Casino)} k ON k.id = t.casino_id
      LEFT JOIN LATERAL (SELECT x.* {opened}{lock_clause("x")}) ss ON TRUE
"""
    return f"""{columns}
      FROM {_table(Table)} t
      JOIN {_table(RuleProfile)} p ON p.id = t.profile_id
      JOIN {_table(Casino)} k ON k.id = t.casino_id
      LEFT JOIN {_table(TableSession)} ss ON ss.id = (SELECT x.id {opened})
     WHERE t.id = %s
"""


@functools.cache
def _lock_sql(vendor: str) -> dict[str, str]:
    """The locking statements for the database ``vendor`` (built once per process and database:
    the locking clause is core.sql.lock_clause's, nothing on SQLite)."""
    del vendor  # the cache key: lock_clause reads the same connection's features
    return {
        "table": f"""
    SELECT {_columns("t", Table)}, {_columns("p", RuleProfile)}, {_columns("k", Casino)}
      FROM {_table(Table)} t
      JOIN {_table(RuleProfile)} p ON p.id = t.profile_id
      JOIN {_table(Casino)} k ON k.id = t.casino_id
     WHERE t.id = %s{lock_clause("t")}
""",
        # the coup's place locked (``coup_table``), with its coup and steps (``_steps``), and
        # whether the croupier asking holds a shift there now (``_on_shift``, ``_role``): the
        # permission check every step makes, answered by the statement that locks the table
        # (croupier_on_shift's question, its table and casino the locked row's)
        **{
            f"coup_table{'_steps' if steps else ''}{'_on_shift' if shift else ''}{'_role' if role else ''}": (
                _coup_table_sql(
                    f"""{_on_shift_exists('t."id"', 't."casino_id"', role)},""" if shift else "",
                    with_steps=steps,
                )
            )
            for steps in (False, True)
            for shift in (False, True)
            for role in ((False, True) if shift else (False,))
        },
        # a session's table and the session, locked in that order (lock_session), with the same
        # question of a croupier (``_on_shift``)
        **{
            f"session{'_on_shift' if shift else ''}{'_role' if role else ''}": _session_sql(
                f"""{_on_shift_exists('t."id"', 't."casino_id"', role)},""" if shift else ""
            )
            for shift in (False, True)
            for role in ((False, True) if shift else (False,))
        },
        # a table and its open session, locked in that order, with the same question: a coup's
        # start at a table, its session not known yet (open_session_lock)
        **{
            f"open_session{'_on_shift' if shift else ''}{'_role' if role else ''}": _open_session_sql(
                f"""{_on_shift_exists('t."id"', 't."casino_id"', role)},""" if shift else "",
                row_locks=bool(connection.features.has_select_for_update),
            )
            for shift in (False, True)
            for role in ((False, True) if shift else (False,))
        },
        "coup": f"""
    SELECT {_columns("c", Coup)}, {_columns("b", BankTurn)}, {_columns("e", Seat)}
      FROM {_table(Coup)} c
      JOIN {_table(BankTurn)} b ON b.id = c.bank_turn_id
      LEFT JOIN {_table(Seat)} e ON e.id = b.seat_id
     WHERE c.id = %s{lock_clause("c")}
""",
    }


def _locking(name: str) -> str:
    return _lock_sql(connection.vendor)[name]


_STEPS_SQL = f"""
    SELECT {_columns("s", CoupStep)}, {_columns("u", _User)}
      FROM {_table(CoupStep)} s
      JOIN {_table(_User)} u ON u.id = s.actor_id
     WHERE s.coup_id = %s
     ORDER BY s."index"
"""


def _split(row: tuple[object, ...], *widths: int) -> list[tuple[object, ...]]:
    parts, start = [], 0
    for width in widths:
        parts.append(row[start : start + width])
        start += width
    return parts


def table_lock(table_id: int) -> Table:
    """Lock the table row (not its profile's or casino's: shared by every table of the casino)
    and return it with its profile and casino loaded."""
    rows = rows_fetch(_locking("table"), [table_id])
    if not rows:
        raise Table.DoesNotExist(f"Table {table_id} does not exist.")
    return _table_loaded(rows[0])


def coup_table_lock(coup_id: int) -> tuple[Table, Shoe]:
    """The coup's place, then ``table_lock`` and the shoe's lock, in one statement: lock the coup's
    table and its shoe and return them (the table's profile and casino loaded); Coup.DoesNotExist
    if there is no coup."""
    return _table_and_shoe_loaded(_coup_place(coup_id, None, with_steps=False)[0])


def coup_table_lock_on_shift(
    coup_id: int, *, user_id: int, at: dt.datetime, role: str | None = None
) -> tuple[Table, Shoe, bool]:
    """``coup_table_lock``, and in the same statement ``croupier_on_shift`` of user ``user_id`` at
    the coup's table at ``at`` (``role`` given: he holds that group too): the table, the coup's
    shoe and whether he is on shift there."""
    shift = (user_id, at, role)
    on_shift, rows = _answered(_coup_place(coup_id, shift, with_steps=False), shift)
    table, shoe = _table_and_shoe_loaded(rows[0])
    return table, shoe, on_shift


def coup_table_steps_lock(
    coup_id: int, *, shift: Shift | None = None
) -> tuple[Table, Shoe, bool, Coup, list[CoupStep]]:
    """``coup_table_lock``, then the coup's lock, the third of the order, in one statement: the
    coup's table and shoe, whether the croupier ``shift`` names (his user id, the instant, a group
    he must hold or None) is on shift there (False when none is named), the locked coup (its bank
    turn and the turn's seat loaded) and its step rows in order, each with its actor. The steps
    are the statement snapshot's: the caller compares them with the locked coup's counter
    (tables.services.locking) and reads them again where a step was committed while it waited."""
    on_shift, rows = _answered(_coup_place(coup_id, shift, with_steps=True), shift)
    width = len(_TABLE) + len(_PROFILE) + len(_CASINO) + len(_SHOE)
    table, shoe = _table_and_shoe_loaded(rows[0][:width])
    coup = _coup_loaded(*_split(rows[0][width:], len(_COUP), len(_TURN), len(_SEAT)))
    # the steps' columns, after the coup's, its turn's and seat's; none on the one row of a coup
    # with no step yet (LEFT JOIN)
    start = width + len(_COUP) + len(_TURN) + len(_SEAT)
    steps = _steps_loaded([row[start:] for row in rows if row[start] is not None])
    return table, shoe, on_shift, coup, steps


def _coup_place(
    coup_id: int, shift: Shift | None, *, with_steps: bool
) -> list[tuple[object, ...]]:
    """The rows of the statement that locks coup ``coup_id``'s place (``_coup_table_sql``), with
    the question of ``shift`` (user id, instant, group) first when one is named."""
    suffix, params = _question(shift)
    name = ("coup_table_steps" if with_steps else "coup_table") + suffix
    rows = rows_fetch(_locking(name), [*params, *[coup_id] * (3 if with_steps else 2)])
    if not rows:
        raise Coup.DoesNotExist(f"Coup {coup_id} does not exist.")
    return rows


def _table_and_shoe_loaded(row: tuple[object, ...]) -> tuple[Table, Shoe]:
    width = len(_TABLE) + len(_PROFILE) + len(_CASINO)
    return _table_loaded(row[:width]), model_instances(Shoe, _SHOE, [row[width:]])[0]


def session_lock(
    session_id: int, table_id: int, *, shift: Shift | None = None
) -> tuple[TableSession, bool]:
    """Lock the session's table, then the session (steps 1 and 2 of the lock order), in one
    statement, and say in it whether the croupier ``shift`` names (his user id, the instant, a
    group he must hold or None) holds a shift at the table (False when none is named): the
    session, its table loaded with the table's profile and casino, and that answer.
    TableSession.DoesNotExist if there is no such session at that table."""
    suffix, params = _question(shift)
    rows = rows_fetch(_locking("session" + suffix), [*params, session_id, table_id])
    if not rows:
        raise TableSession.DoesNotExist(f"Session {session_id} of table {table_id} does not exist.")
    on_shift, rows = _answered(rows, shift)
    width = len(_TABLE) + len(_PROFILE) + len(_CASINO)
    session = model_instances(TableSession, _SESSION, [rows[0][width:]])[0]
    session.table = _table_loaded(rows[0][:width])
    return session, on_shift


def open_session_lock(
    table_id: int, *, shift: Shift | None = None
) -> tuple[Table, TableSession | None, bool]:
    """Lock table ``table_id``, then its open session if it has one (steps 1 and 2 of the lock
    order), in one statement, and say in it whether the croupier ``shift`` names (his user id, the
    instant, a group he must hold or None) holds a shift at the table (False when none is named):
    the table with its profile and casino loaded, its open session (None: none is open; its table
    the one returned) and that answer. Table.DoesNotExist if there is no such table."""
    suffix, params = _question(shift)
    rows = rows_fetch(_locking("open_session" + suffix), [*params, table_id])
    if not rows:
        raise Table.DoesNotExist(f"Table {table_id} does not exist.")
    on_shift, rows = _answered(rows, shift)
    width = len(_TABLE) + len(_PROFILE) + len(_CASINO)
    table = _table_loaded(rows[0][:width])
    if rows[0][width] is None:  # the session's id: no session open (LEFT JOIN)
        return table, None, on_shift
    session = model_instances(TableSession, _SESSION, [rows[0][width:]])[0]
    session.table = table
    return table, session, on_shift


@dataclass(frozen=True)
class CoupStartRead:
    """What a coup's start reads at its table once the table and the session are locked
    (``coup_start_read``)."""

    #: the table's open shoe, locked (None: no shoe open)
    shoe: Shoe | None
    #: the session's open bank turn, its seat (None: the house's) and player loaded
    turn: BankTurn | None
    #: the session's first coup in one of the blocking states (by shoe, then coup number): its
    #: state, its number and its shoe's number; None when there is none
    pending: tuple[str, int, int] | None
    #: whether a pause of the session is running
    paused: bool
    #: the session's running series (None: none runs), its session the one given
    series: Series | None
    #: the highest coup number in the shoe (None: no coup yet)
    last: int | None
    #: how many coups of the open bank turn were played (neither voided nor withdrawn)
    played: int


@functools.cache
def _start_read_sql(vendor: str, blocking: int, unplayed: int) -> str:
    """``coup_start_read``'s statement on ``vendor``'s database, for ``blocking`` states that hold
    a new coup up and ``unplayed`` states of a coup not played. Each part is a sub-select on its
    keys, as the ORM's reads were, each found as they found it (the same order, the first)."""
    del vendor  # the cache key: lock_clause reads the same connection's features
    return f"""
    SELECT {_columns("sh", Shoe)}, {_columns("b", BankTurn)}, {_columns("e", Seat)},
           {_columns("pl", Player)},
           pc."state", pc."number", ps."number",
           EXISTS (SELECT 1 FROM {_table(SessionPause)} z
                    WHERE z."session_id" = %s AND z."ended_at" IS NULL),
           {_columns("sr", Series)},
           (SELECT MAX(x."number") FROM {_table(Coup)} x WHERE x."shoe_id" = sh."id"),
           (SELECT COUNT(*) FROM {_table(Coup)} x
             WHERE x."bank_turn_id" = b."id" AND x."state" NOT IN ({", ".join(["%s"] * unplayed)}))
      FROM {_table(Shoe)} sh
      LEFT JOIN {_table(BankTurn)} b ON b."id" = (
           SELECT y."id" FROM {_table(BankTurn)} y WHERE y."session_id" = %s AND y."ended_at" IS NULL
            ORDER BY y."started_at" LIMIT 1)
      LEFT JOIN {_table(Seat)} e ON e."id" = b."seat_id"
      LEFT JOIN {_table(Player)} pl ON pl."id" = b."player_id"
      LEFT JOIN {_table(Coup)} pc ON pc."id" = (
           SELECT c."id" FROM {_table(Coup)} c JOIN {_table(Shoe)} cs ON cs."id" = c."shoe_id"
            WHERE cs."session_id" = %s AND c."state" IN ({", ".join(["%s"] * blocking)})
            ORDER BY cs."number", c."number" LIMIT 1)
      LEFT JOIN {_table(Shoe)} ps ON ps."id" = pc."shoe_id"
      LEFT JOIN {_table(Series)} sr ON sr."id" = (
           SELECT r."id" FROM {_table(Series)} r WHERE r."session_id" = %s AND r."ended_at" IS NULL
            ORDER BY r."started_at" DESC LIMIT 1)
     WHERE sh."table_id" = %s AND sh."state" = %s{lock_clause("sh")}
"""


def coup_start_read(session: TableSession, *, blocking: Sequence[str]) -> CoupStartRead:
    """What a coup's start reads at ``session``'s table (the caller holds the table's and the
    session's locks), in one statement that locks the table's open shoe (the lock order's third,
    that row alone): the shoe, the session's open bank turn, the first of its coups in a state of
    ``blocking``, whether it is paused, its running series, and the shoe's last coup number and
    the count of the turn's coups played. A statement of its own, after the one that locked the
    table: a statement that waited for a lock reads every other row as it stood when it began, so
    in that one these reads would miss what the lock's holder wrote meanwhile (the coup another
    start began); this one begins once the table's lock is held, and nobody changes these rows
    until it is let go (every writer locks the table first)."""
    unplayed = [str(s) for s in UNPLAYED_COUP_STATES]
    sql = _start_read_sql(connection.vendor, len(blocking), len(unplayed))
    params = [session.pk, *unplayed, session.pk, session.pk, *[str(s) for s in blocking], session.pk,
              session.table_id, str(Shoe.State.OPEN)]
    rows = rows_fetch(sql, params)
    if not rows:
        return CoupStartRead(shoe=None, turn=None, pending=None, paused=False, series=None, last=None,
                             played=0)
    row = rows[0]
    sh, b, e, pl, _, sr = _split(row, len(_SHOE), len(_TURN), len(_SEAT), len(_PLAYER), 4, len(_SERIES))
    # the scalars: the pending coup's state, number and shoe's number, the pause, the two counts
    start = len(_SHOE) + len(_TURN) + len(_SEAT) + len(_PLAYER)
    state, number, shoe_number, paused = row[start : start + 4]
    last, played = row[-2:]
    turn = None
    if b[0] is not None:  # the turn's id, None when nobody holds the bank (LEFT JOIN)
        turn = model_instances(BankTurn, _TURN, [b])[0]
        turn.seat = model_instances(Seat, _SEAT, [e])[0] if e[0] is not None else None
        turn.player = model_instances(Player, _PLAYER, [pl])[0]
    series = None
    if sr[0] is not None:
        series = model_instances(Series, _SERIES, [sr])[0]
        series.session = session
    return CoupStartRead(
        shoe=model_instances(Shoe, _SHOE, [sh])[0],
        turn=turn,
        pending=(str(state), int(number), int(shoe_number)) if state is not None else None,
        paused=bool(paused),
        series=series,
        last=int(last) if last is not None else None,
        played=int(played),
    )


def _question(shift: Shift | None) -> tuple[str, list[object]]:
    """The suffix of the locking statement that asks ``shift``'s question (``_lock_sql``), and
    the question's parameters, which come first; none when nobody is asked about."""
    if shift is None:
        return "", []
    user_id, at, role = shift
    when = connection.ops.adapt_datetimefield_value(at)
    if role is None:
        return "_on_shift", [user_id, when, when]
    return "_on_shift_role", [user_id, when, when, role]


def _answered(rows: list[tuple[object, ...]], shift: Shift | None) -> tuple[bool, list[tuple[object, ...]]]:
    """The answer to ``shift``'s question (the rows' first column, when one was asked; False when
    none was) and the rows without it."""
    if shift is None:
        return False, rows
    return bool(rows[0][0]), [row[1:] for row in rows]


def _table_loaded(row: tuple[object, ...]) -> Table:
    t, p, k = _split(row, len(_TABLE), len(_PROFILE), len(_CASINO))
    table = model_instances(Table, _TABLE, [t])[0]
    table.profile = model_instances(RuleProfile, _PROFILE, [p])[0]
    table.casino = model_instances(Casino, _CASINO, [k])[0]
    return table


def coup_lock(coup_id: int) -> Coup:
    """Lock the coup row and return it with its bank turn and the turn's seat (None: the house)."""
    rows = rows_fetch(_locking("coup"), [coup_id])
    if not rows:
        raise Coup.DoesNotExist(f"Coup {coup_id} does not exist.")
    return _coup_loaded(*_split(rows[0], len(_COUP), len(_TURN), len(_SEAT)))


def _coup_loaded(c: tuple[object, ...], b: tuple[object, ...], e: tuple[object, ...]) -> Coup:
    coup = model_instances(Coup, _COUP, [c])[0]
    turn = model_instances(BankTurn, _TURN, [b])[0]
    turn.seat = model_instances(Seat, _SEAT, [e])[0] if e[0] is not None else None
    coup.bank_turn = turn
    return coup


def coup_steps(coup_id: int) -> list[CoupStep]:
    """The coup's step rows in order, each with its actor."""
    return _steps_loaded(rows_fetch(_STEPS_SQL, [coup_id]))


def _steps_loaded(rows: list[tuple[object, ...]]) -> list[CoupStep]:
    """Step rows from ``rows`` of a step's columns then its actor's, each step with its actor."""
    steps = model_instances(CoupStep, _STEP, [row[: len(_STEP)] for row in rows])
    actors = model_instances(_User, _USER, [row[len(_STEP) :] for row in rows])
    for step, actor in zip(steps, actors, strict=True):
        step.actor = actor
    return steps


@functools.cache
def _on_shift_sql(casino_given: bool, role_given: bool) -> str:
    """``croupier_on_shift``'s statement: EXISTS on the keys, nothing joined to plan."""
    casino = (
        "%s" if casino_given else f'(SELECT t."casino_id" FROM {_table(Table)} t WHERE t."id" = a."table_id")'
    )
    return f"SELECT {_on_shift_exists('%s', casino, role_given)}"


def _on_shift_exists(table: str, casino: str, role_given: bool) -> str:
    """The EXISTS that says whether a user (``%s``) holds a shift at ``table`` covering an instant
    (``%s`` twice) at a casino he works for (``casino``), and, ``role_given``, holds a group
    (``%s``): the SQL expressions ``table`` and ``casino`` are a parameter or a column."""
    groups, group = _User.groups.through, _User.groups.field.related_model
    role = (
        f"""
       AND EXISTS (SELECT 1 FROM {_table(groups)} ug JOIN {_table(group)} g ON g."id" = ug."group_id"
                    WHERE ug."user_id" = a."user_id" AND g."name" = %s)"""
        if role_given
        else ""
    )
    return f"""EXISTS (
    SELECT 1 FROM {_table(CroupierAssignment)} a
     WHERE a."user_id" = %s AND a."table_id" = {table} AND a."shift_start" <= %s AND a."shift_end" > %s
       AND EXISTS (SELECT 1 FROM {_table(CasinoStaff)} s
                    WHERE s."user_id" = a."user_id" AND s."casino_id" = {casino}){role})"""


def croupier_on_shift(
    *, user_id: int, table_id: int, at: dt.datetime, casino_id: int | None = None, role: str | None = None
) -> bool:
    """Whether user ``user_id`` holds a shift at table ``table_id`` covering ``at``, at a casino he
    works for (``casino_id``: the table's, when the caller has it; else read from the table), and —
    ``role`` given — holds that group: one statement (every step of every coup asks it)."""
    when = connection.ops.adapt_datetimefield_value(at)
    params: list[object] = [user_id, table_id, when, when]
    if casino_id is not None:
        params.append(casino_id)
    if role is not None:
        params.append(role)
    return bool(rows_fetch(_on_shift_sql(casino_id is not None, role is not None), params)[0][0])


#: a bet's row at the coup's next betting order (one more than its last, found by the INSERT)
_BET_ROW = f"""
    INSERT INTO {_table(Bet)} ("coup_id", "seat_id", "spectator_id", "amount", "banco", "banco_suivi",
                               "betting_order", "withdrawn", "replaces_id")
    SELECT %s, %s, %s, %s, %s, %s, COALESCE(MAX(b."betting_order"), 0) + 1, %s, NULL
      FROM {_table(Bet)} b WHERE b."coup_id" = %s
    RETURNING "id", "betting_order"
"""


def bet_insert(
    *,
    coup_id: int,
    seat_id: int | None,
    spectator_id: int | None,
    amount: int,
    banco: bool,
    banco_suivi: bool,
) -> Bet:
    """Write a coup's next bet (the caller holds the coup's lock): its betting order, one more than
    the coup's last, found by the INSERT itself, one round trip instead of a read and a write. The
    instance returned holds the values sent, with the id and the betting order the INSERT gave:
    integers and booleans, the same in Python as stored (nothing for the ORM's converters)."""
    with connection.cursor() as cursor:
        params = [coup_id, seat_id, spectator_id, amount, banco, banco_suivi, False, coup_id]
        cursor.execute(_BET_ROW, params)
        pk, order = cursor.fetchone()
    return _bet_loaded(
        pk, order, coup_id, seat_id, spectator_id, amount, banco=banco, banco_suivi=banco_suivi
    )


def _bet_loaded(
    pk: int,
    order: int,
    coup_id: int,
    seat_id: int | None,
    spectator_id: int | None,
    amount: int,
    *,
    banco: bool = False,
    banco_suivi: bool = False,
) -> Bet:
    """The bet as written: the values sent, with the id and the betting order the INSERT gave."""
    bet = Bet(coup_id=coup_id, seat_id=seat_id, spectator_id=spectator_id, amount=amount, banco=banco,
              banco_suivi=banco_suivi, withdrawn=False, replaces_id=None)
    bet.pk, bet.betting_order = pk, order
    bet._state.adding, bet._state.db = False, connection.alias
    return bet


_STEP_INSERT_FIELDS = [f for f in CoupStep._meta.concrete_fields if not f.primary_key]
#: PostgreSQL's: the step's row and its coup's counter and flag in one statement (a data-modifying
#: WITH; SQLite has none, and keeps the two statements)
_STEP_APPEND = f"""
    WITH counted AS (UPDATE {_table(Coup)} SET "step_count" = %s, "flagged" = %s
                      WHERE "id" = %s)
    INSERT INTO {_table(CoupStep)} ({", ".join(f'"{f.column}"' for f in _STEP_INSERT_FIELDS)})
    VALUES ({", ".join(["%s"] * len(_STEP_INSERT_FIELDS))})
    RETURNING "id"
"""


def step_insert_counted(step: CoupStep, *, flagged: bool) -> bool:
    """Insert ``step`` (not saved yet) and move its coup's step counter to its index and set its
    flag, in one statement where the database can (PostgreSQL): True then, ``step`` saved. False on
    a database that cannot, where the caller writes both as two statements."""
    if connection.vendor != "postgresql":
        return False
    values = [f.get_db_prep_save(getattr(step, f.attname), connection) for f in _STEP_INSERT_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(_STEP_APPEND, [step.index, flagged, step.coup_id, *values])
        step.pk = cursor.fetchone()[0]
    step._state.adding, step._state.db = False, connection.alias
    return True


#: PostgreSQL's: the shoe's cards out so far and how many of them are this one (every row no
#: amendment replaced), and the new card's row at the next position, in one statement; the counts
#: are of the cards before this one (a WITH's statements all see the rows as the statement began)
_CARD_COUNTED_SEEN = f"""
    counted AS (
        SELECT COUNT(*) AS "out", COUNT(*) FILTER (WHERE x."card" = %s) AS "same"
          FROM {_table(ShoeCard)} x
         WHERE x."shoe_id" = %s
           AND NOT EXISTS (SELECT 1 FROM {_table(ShoeCard)} r WHERE r."replaces_id" = x."id")
    ), seen AS (
        INSERT INTO {_table(ShoeCard)}
               ("shoe_id", "position", "card", "coup_id", "role", "seen_at", "replaces_id")
        SELECT %s, counted."out" + 1, %s, %s, %s, %s, NULL FROM counted
        RETURNING "id", "position"
    )
"""
_CARD_SEEN = f"""
    WITH {_CARD_COUNTED_SEEN} SELECT seen."id", seen."position", counted."same" FROM seen, counted
"""


def card_seen(
    *, shoe: Shoe, coup: Coup | None, card: str, role: str, at: dt.datetime
) -> tuple[ShoeCard, int] | None:
    """The next card out of ``shoe`` written at the next position (the caller holds the shoe's
    lock), and how many of that card were out before it, in one statement where the database can
    (PostgreSQL); None on one that cannot, where the caller counts, then writes."""
    if connection.vendor != "postgresql":
        return None
    when = ShoeCard._meta.get_field("seen_at").get_db_prep_save(at, connection)
    coup_id = coup.pk if coup is not None else None
    with connection.cursor() as cursor:
        cursor.execute(_CARD_SEEN, [card, shoe.pk, shoe.pk, card, coup_id, role, when])
        pk, position, same = cursor.fetchone()
    seen = ShoeCard(pk=pk, shoe=shoe, position=position, card=card, coup=coup, role=role, seen_at=at)
    seen._state.adding, seen._state.db = False, connection.alias
    return seen, int(same)


def _step_and(rows: str, answer: str) -> str:
    """PostgreSQL's step with a row of its own kind in one statement: the step's row with its coup's
    counter and flag (as _STEP_APPEND), the data-modifying WITHs ``rows``, then ``answer`` (the
    step's id first)."""
    return f"""
    WITH moved AS (UPDATE {_table(Coup)} SET "step_count" = %s, "flagged" = %s
                    WHERE "id" = %s),
    step AS (
        INSERT INTO {_table(CoupStep)} ({", ".join(f'"{f.column}"' for f in _STEP_INSERT_FIELDS)})
        VALUES ({", ".join(["%s"] * len(_STEP_INSERT_FIELDS))})
        RETURNING "id"
    ), {rows}
    SELECT step."id", {answer}
"""


#: a card step: the card's row with the shoe's counts (as _CARD_SEEN)
_STEP_CARD_APPEND = _step_and(
    _CARD_COUNTED_SEEN, 'seen."id", seen."position", counted."same" FROM step, seen, counted'
)
#: a bet: its row (as bet_insert writes it)
_STEP_BET_APPEND = _step_and(f"bet AS ({_BET_ROW})", 'bet."id", bet."betting_order" FROM step, bet')


def _step_and_written(step: CoupStep, flagged: bool, sql: str, more: list[Any]) -> tuple[Any, ...]:
    """Run a :func:`_step_and` statement for ``step`` (not saved yet): ``step`` saved, the answer's
    columns after the step's id returned."""
    values = [f.get_db_prep_save(getattr(step, f.attname), connection) for f in _STEP_INSERT_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(sql, [step.index, flagged, step.coup_id, *values, *more])
        step_pk, *answer = cursor.fetchone()
    step.pk = step_pk
    step._state.adding, step._state.db = False, connection.alias
    return tuple(answer)


def step_bet_insert(
    step: CoupStep, *, flagged: bool, seat_id: int | None, spectator_id: int | None, amount: int
) -> Bet | None:
    """A bet's step in one statement where the database can (PostgreSQL): ``step`` (not saved yet)
    inserted with its coup's counter and flag, and the bet's row at the next betting order (the
    caller holds the coup's lock; :func:`bet_insert`'s row). None on a database that cannot."""
    if connection.vendor != "postgresql":
        return None
    coup_id = step.coup_id
    more: list[Any] = [coup_id, seat_id, spectator_id, amount, False, False, False, coup_id]
    pk, order = _step_and_written(step, flagged, _STEP_BET_APPEND, more)
    return _bet_loaded(int(pk), int(order), coup_id, seat_id, spectator_id, amount)


def step_card_insert(
    step: CoupStep, *, flagged: bool, shoe: Shoe, coup: Coup, card: str, role: str, at: dt.datetime
) -> tuple[ShoeCard, int] | None:
    """A card step's writes in one statement where the database can (PostgreSQL): ``step`` (not
    saved yet) inserted with its coup's counter moved to its index and its flag set, and the card
    out of ``shoe`` (the caller holds the coup's and the shoe's locks) at the next position, with
    how many of that card were out before it. None on a database that cannot, where the caller
    writes the step (step_insert_counted's fallback) and then the card (card_seen's)."""
    if connection.vendor != "postgresql":
        return None
    when = ShoeCard._meta.get_field("seen_at").get_db_prep_save(at, connection)
    pk, position, same = _step_and_written(
        step, flagged, _STEP_CARD_APPEND, [card, shoe.pk, shoe.pk, card, coup.pk, role, when]
    )
    seen = ShoeCard(pk=pk, shoe=shoe, position=position, card=card, coup=coup, role=role, seen_at=at)
    seen._state.adding, seen._state.db = False, connection.alias
    return seen, int(same)


def _instant(value: dt.datetime | None) -> object:
    """A datetime column's value as the ORM sends it."""
    return Coup._meta.get_field("settled_at").get_db_prep_save(value, connection)


@functools.cache
def _settled_sql(levy: bool, minimum: bool) -> str:
    """PostgreSQL's settled coup (``coup_settled_write``): a data-modifying WITH of the coup's
    state, the levy's row when ``levy``, the bank turn's minimum when ``minimum``, answering the
    levy's id and the turn as changed, after the minimum it had."""
    parts = [f'settled AS (UPDATE {_table(Coup)} SET "state" = %s, "settled_at" = %s WHERE "id" = %s)']
    if levy:
        parts.append(
            f'tax AS (INSERT INTO {_table(BankTax)} ("coup_id", "basis", "amount") VALUES (%s, %s, %s) '
            'RETURNING "id")'
        )
    if minimum:
        # bank_after_coup's conditions, asked of the turn as it stands (no new minimum for the
        # house, a bank ended or moved on to a later coup, nor a minimum it has already); ``o``,
        # the same row as the statement found it, gives the minimum it had (the table's lock,
        # held, keeps every other writer of the turn out: tables/services/locking.py)
        parts.append(f"""turn AS (
        UPDATE {_table(BankTurn)} t SET "required_minimum" = %s
          FROM {_table(BankTurn)} o
         WHERE t."id" = %s AND o."id" = t."id" AND t."started_how" <> %s AND t."ended_at" IS NULL
           AND t."required_minimum" <> %s
           AND NOT EXISTS (SELECT 1 FROM {_table(Coup)} x
                            WHERE x."bank_turn_id" = t."id" AND x."created_at" > %s)
        RETURNING o."required_minimum" AS "minimum_before", {_columns("t", BankTurn)})""")
    tax = "(SELECT tax.\"id\" FROM tax)" if levy else "NULL"
    turn = ("turn.*", " LEFT JOIN turn ON TRUE") if minimum else ("NULL", "")
    return f"WITH {', '.join(parts)} SELECT {tax}, {turn[0]} FROM (VALUES (1)) AS one{turn[1]}"


def coup_settled_write(
    coup: Coup, *, levy: tuple[int, int] | None, minimum: int | None
) -> tuple[BankTax | None, tuple[int, BankTurn] | None] | None:
    """Write a coup settled (its ``state`` and ``settled_at`` as set on the locked instance), its
    levy's row (``levy``: the basis and the amount) and, ``minimum`` given, its bank turn's new
    smallest bank where tables.services.banks.bank_after_coup would set it (not the house's, not
    an ended turn's, not one a later coup was started under, not the minimum it has), in one
    statement where the database can (PostgreSQL): the levy's row as written (None without a
    levy) and, when the minimum changed, the one it had and the turn as it now stands. None on a
    database that cannot (SQLite), where nothing was written and the caller writes each."""
    if connection.vendor != "postgresql":
        return None
    params: list[object] = [str(coup.state), _instant(coup.settled_at), coup.pk]
    if levy is not None:
        params += [coup.pk, *levy]
    if minimum is not None:
        params += [minimum, coup.bank_turn_id, str(BankTurn.Start.HOUSE), minimum, _instant(coup.created_at)]
    row = rows_fetch(_settled_sql(levy is not None, minimum is not None), params)[0]
    tax = None
    if levy is not None:
        tax = BankTax(pk=row[0], coup=coup, basis=levy[0], amount=levy[1])
        tax._state.adding, tax._state.db = False, connection.alias
    if minimum is None or row[1] is None:
        return tax, None
    (turn,) = model_instances(BankTurn, _TURN, [row[2:]])
    return tax, (int(row[1]), turn)
