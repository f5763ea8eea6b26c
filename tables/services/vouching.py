"""A coup's rows vouched for before its money moves (audit.vouch): the refusal, in words.

Besides the coup's own rows (its row and steps), the rows of the floor its money moves on: the bank
turn a coup's start reads (its player is the banker, its minimum the smallest bank), with its seat
and the spectators' shares of the bank, and at the reveal the seats and spectators whose players
its bets pay from. Each against the latest binding the events about it (or about its session,
whose closing binds its places) carry, read in the statement that reads the coup's (one statement:
tests/tables/api/test_step_statements.py), or in the bindings of the upgrade that bound those
written before (tables 0036: events about no object, read by the same statement, and only for a
row that no event about it binds). A row of the floor that nothing binds was inserted in the
database: it is refused as a changed one is."""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Iterable, Sequence
from typing import Any, NoReturn

from django.db import connections, models

from audit.models import AuditEvent
from audit.rows import Bound, binding_unpack, row_reader, rows_loaded
from audit.vouch import CHANGED, GONE, UNBOUND, Unvouched, rows_judged, rows_vouch
from core.sentence import Listing, Sentence, said
from core.sql import model_fields, model_instances
from tables.lifecycle import CoupRecordsChanged
from tables.models import (
    BankShare,
    BankTurn,
    Bet,
    Coup,
    CoupStep,
    GameCoup,
    GameStep,
    Seat,
    Shoe,
    Spectator,
    TableSession,
)

logger = logging.getLogger(__name__)


def _change_said(found: Unvouched, index_of: dict[int, int], subject: type[models.Model]) -> Sentence:
    if found.what == GONE:
        return said("a step was deleted")
    if found.model is subject:
        return said("the coup itself was changed")
    index = index_of.get(found.pk, 0)
    if found.what == UNBOUND:
        return said("step {index} was never recorded at the table", index=index)
    assert found.what == CHANGED, found
    return said("step {index} was changed", index=index)


def coup_rows_vouch(
    *,
    coup: models.Model,
    steps: Sequence[models.Model],
    step_model: type[models.Model],
    steps_are_subjects: bool = False,
    current_step: int | None = None,
) -> None:
    """Refuse (:class:`CoupRecordsChanged`, nothing settled) when the coup's row or its steps
    (instances as loaded, each with an ``index``) differ from what their events bound, or a bound
    step is gone. ``steps_are_subjects``: each step's event is about the step (the older games'),
    not about the coup (chemin de fer's)."""
    found = rows_vouch(
        subject=coup,
        held=[coup, *steps],
        about=steps if steps_are_subjects else (),
        whole=[step_model],
    )
    if not found:
        return
    _log("coup", coup.pk, found)
    index_of = {int(step.pk): int(step.index) for step in steps}  # type: ignore[attr-defined]
    _coup_refused(Listing([_change_said(f, index_of, type(coup)) for f in found]), current_step)


def _coup_refused(changes: Listing, current_step: int | None) -> NoReturn:
    """The coup's refusal: what was changed, said, and the pit boss's void the way on."""
    raise CoupRecordsChanged(
        said(
            "This coup's record was changed outside the application ({changes}): nothing was "
            "settled. Call the pit boss: the coup can only be voided.",
            changes=changes,
        ),
        current_step=current_step,
    )


# ------------------------------------------------------------------------------ the floor's rows


def _floor_said(found: Unvouched, numbers: dict[int, int]) -> Sentence:
    """What changed of the floor's rows, or which was never recorded (a row no event binds: written
    in the database), in words (the columns go to the log)."""
    if found.what == UNBOUND:
        if found.model is BankTurn:
            return said("the bank turn was never recorded at the table")
        if found.model is Seat:
            return said("seat {number} was never recorded at the table", number=numbers.get(found.pk, 0))
        if found.model is Spectator:
            return said("a spectator's place was never recorded at the table")
        assert found.model is BankShare, found
        return said("a share of the bank was never recorded at the table")
    if found.model is BankTurn:
        return said("the bank turn was changed")
    if found.model is Seat:
        return said("seat {number} was changed", number=numbers.get(found.pk, 0))
    if found.model is Spectator:
        return said("a spectator's place was changed")
    if found.model is BankShare:
        return said("a share of the bank was changed")
    assert found.model is Shoe, found
    return said("the shoe was changed")


def _bound_of(item: object) -> tuple[tuple[str, int], Bound] | None:
    """One binding of an event's ``rows`` (packed, or the hex layout before audit 0011); None for
    what is neither (a forged binding is the verifier's to name)."""
    if not isinstance(item, list) or len(item) < 3:
        return None
    try:
        key = (str(item[0]), int(item[1]))
        if len(item) == 3:
            return key, binding_unpack(str(item[2]))
        return key, Bound(digest=str(item[2]), prints=str(item[3]))
    except (TypeError, ValueError):
        return None


def _rows_of(value: Any) -> list[Any]:
    if isinstance(value, str | bytes):
        value = json.loads(value)
    return value if isinstance(value, list) else []


#: the seat's and the spectator's columns as the reveal's statement reads them (after a kind and an
#: id and an event's rows): a spectator has no number
_PLACE = model_fields(Seat)

#: the action of the events an upgrade binds the rows it finds with (tables 0030, 0036): about no
#: object, each names its table and the first and last id of its rows in ``after``
_BASELINE = "audit.rows.baseline"


def _baseline_branch(candidates: str, *, postgres: bool) -> str:
    """The statement's branch that reads, for each floor row of ``candidates`` (a SELECT of its
    table ``t``, label ``l`` and id ``i``) that no event about it binds, the upgrade's event that
    bound it (tables 0036 bound every floor row there was by events about no object, found by the
    object index as such, then by the table and the first and last id they name). Only such a
    row's lookup runs: none at a table whose rows the services wrote; a row inserted in the
    database has neither, and is refused as unbound."""
    events = f'"{AuditEvent._meta.db_table}"'
    if postgres:
        return f"""SELECT 0, a."id", a."rows", NULL, NULL, NULL, NULL, NULL FROM ({candidates}) c
            CROSS JOIN LATERAL (
                SELECT a."id", a."rows" FROM {events} a
                 WHERE a."object_type" = '' AND a."object_id" = '' AND a."action" = %s
                   AND a."rows" IS NOT NULL AND a."after" ->> 'table' = c."t"
                   AND a."after" -> 'first' <= to_jsonb(c."i") AND a."after" -> 'last' >= to_jsonb(c."i")) a
            WHERE NOT EXISTS (
                SELECT 1 FROM {events} x
                 WHERE x."object_type" = c."l" AND x."object_id" = CAST(c."i" AS VARCHAR(64))
                   AND x."rows" @> jsonb_build_array(jsonb_build_array(c."t", c."i")))"""
    return f"""SELECT 0, e."id", e."rows", NULL, NULL, NULL, NULL, NULL FROM {events} e
         WHERE e."id" IN (
            SELECT (SELECT MAX(a."id") FROM {events} a
                     WHERE a."object_type" = '' AND a."object_id" = '' AND a."action" = %s
                       AND a."rows" IS NOT NULL AND json_extract(a."after", '$.table') = c."t"
                       AND json_extract(a."after", '$.first') <= c."i"
                       AND json_extract(a."after", '$.last') >= c."i")
              FROM ({candidates}) c
             WHERE NOT EXISTS (
                SELECT 1 FROM {events} x, json_each(x."rows") j
                 WHERE x."object_type" = c."l" AND x."object_id" = CAST(c."i" AS VARCHAR(64))
                   AND x."rows" IS NOT NULL AND json_extract(j."value", '$[0]') = c."t"
                   AND json_extract(j."value", '$[1]') = c."i"))"""


def _bindings_read(
    objects: Iterable[models.Model],
    *,
    floor: Sequence[models.Model] = (),
    bets_of: int | None = None,
    seats_of: tuple[int, Sequence[int]] | None = None,
    using: str = "default",
) -> tuple[dict[tuple[str, int], Bound], list[Seat | Spectator]]:
    """The latest binding of every row bound by the events about ``objects`` (each by its label
    and id: the audit trail's object index); with ``bets_of`` (a coup's id) about the seats and
    spectators of that coup's bets, with ``seats_of`` (a session's id and players' ids) about the
    seats of those players at that session, whose rows are read in the same statement (returned).
    The floor's rows (``floor``, held, and those places) that no event about them binds are looked
    for in the upgrade's bindings (:func:`_baseline_branch`), in that same statement."""
    ids: dict[str, list[str]] = {}
    for obj in objects:
        ids.setdefault(obj._meta.label_lower, []).append(str(obj.pk))
    conn = connections[using]
    postgres = conn.vendor == "postgresql"
    events, bet, seat, standing = (
        f'"{m._meta.db_table}"' for m in (AuditEvent, Bet, Seat, Spectator)
    )
    where: list[str] = []
    params: list[Any] = []
    for label, named in ids.items():
        where.append(f'(e."object_type" = %s AND e."object_id" IN ({", ".join(["%s"] * len(named))}))')
        params += [label, *named]
    # the places read with the events: per model, a SELECT of their ids (``q."id"``) and its params
    place_ids: list[tuple[type[models.Model], str, list[Any]]] = []
    if bets_of is not None:
        for model, column in ((Seat, "seat_id"), (Spectator, "spectator_id")):
            place_ids.append(
                (model, f'SELECT b."{column}" AS "id" FROM {bet} b WHERE b."coup_id" = %s', [bets_of])
            )
    if seats_of is not None and seats_of[1]:
        session_id, players = seats_of
        place_ids.append(
            (
                Seat,
                f'SELECT p."id" AS "id" FROM {seat} p WHERE p."session_id" = %s'
                f' AND p."player_id" IN ({", ".join(["%s"] * len(players))})',
                [session_id, *players],
            )
        )
    branches: list[tuple[str, list[Any]]] = []
    candidates: list[tuple[str, list[Any]]] = []
    for kind, ids_sql, ids_params in place_ids:
        text = f'SELECT CAST(q."id" AS VARCHAR(64)) FROM ({ids_sql}) q'
        # PostgreSQL: the ids as an array, computed once, so that the object index is used
        found = f"= ANY(ARRAY({text}))" if postgres else f"IN ({text})"
        where.append(f'(e."object_type" = %s AND e."object_id" {found})')
        params += [kind._meta.label_lower, *ids_params]
        if kind is Seat:
            row = f"""SELECT 1, s."id", NULL, s."session_id", s."player_id", s."number", s."joined_at",
                             s."left_at" FROM {seat} s WHERE s."id" IN ({ids_sql})"""
        else:
            row = f"""SELECT 2, v."id", NULL, v."session_id", v."player_id", NULL, v."joined_at", v."left_at"
                        FROM {standing} v WHERE v."id" IN ({ids_sql})"""
        branches.append((row, list(ids_params)))
        candidates.append(
            (
                f'SELECT CAST(%s AS VARCHAR(100)) AS "t", CAST(%s AS VARCHAR(100)) AS "l",'
                f' CAST(q."id" AS BIGINT) AS "i" FROM ({ids_sql}) q WHERE q."id" IS NOT NULL',
                [kind._meta.db_table, kind._meta.label_lower, *ids_params],
            )
        )
    for obj in floor:
        candidates.append(
            (
                'SELECT CAST(%s AS VARCHAR(100)) AS "t", CAST(%s AS VARCHAR(100)) AS "l",'
                ' CAST(%s AS BIGINT) AS "i"',
                [row_reader(type(obj), using).table, obj._meta.label_lower, int(obj.pk)],
            )
        )
    if candidates:
        union = " UNION ALL ".join(sql for sql, _ in candidates)
        named = [p for _, ps in candidates for p in ps]
        # the action comes after the candidates in PostgreSQL's statement, before them in SQLite's
        baseline = [*named, _BASELINE] if postgres else [_BASELINE, *named]
        branches.append((_baseline_branch(union, postgres=postgres), baseline))
    sql = f"""SELECT 0, e."id", e."rows", NULL, NULL, NULL, NULL, NULL FROM {events} e
               WHERE e."rows" IS NOT NULL AND ({" OR ".join(where)})"""
    sql = " UNION ALL ".join([sql, *(branch for branch, _ in branches)])
    with conn.cursor() as cursor:
        cursor.execute(f"{sql} ORDER BY 1, 2", params + [p for _, ps in branches for p in ps])
        rows = cursor.fetchall()
    latest: dict[tuple[str, int], Bound] = {}
    seats, spectators = [], []
    for row in rows:
        if row[0] == 0:
            for item in _rows_of(row[2]):
                binding = _bound_of(item)
                if binding is not None:
                    latest[binding[0]] = binding[1]
        elif row[0] == 1:
            seats.append((row[1], *row[3:]))
        else:
            spectators.append((row[1], row[3], row[4], row[6], row[7]))
    out: list[Seat | Spectator] = [*model_instances(Seat, _PLACE, seats)]
    out += model_instances(Spectator, model_fields(Spectator), spectators)
    return latest, out


def _log(what: str, pk: object, found: list[Unvouched]) -> None:
    logger.warning(
        "%s %s: rows not vouched for by their events, nothing written: %s",
        what,
        pk,
        "; ".join(f"{f.model._meta.db_table} {f.pk} {f.what} {','.join(f.columns)}" for f in found),
    )


def _keeps_events(using: str) -> bool:
    return bool(getattr(connections[using], "audit_deferred", False))


def _pending_bound(using: str) -> set[tuple[str, int]]:
    """The rows this transaction's own events bind when they are appended, at its end (a row the
    importer writes and then starts a coup on, in one transaction): bound by the application, not
    found in the trail yet. Nothing outside the transaction can add to them. Kept on the
    connection and read on from where it was last read while the list only grew (an import's
    chunk records thousands of events, and each of its coups asks)."""
    conn: Any = connections[using]
    pending = getattr(conn, "audit_pending", None) or []
    kept: Any = getattr(conn, "_vouch_pending_read", None)
    out: set[tuple[str, int]] = set()
    start = 0
    grown = kept is not None and kept[0] is pending and len(pending) >= kept[1] > 0
    if grown and pending[kept[1] - 1] is kept[2]:  # the same list, only appended to since
        out, start = kept[3], kept[1]
    for _, event in pending[start:]:
        for spec in getattr(event, "_bind", None) or ():
            if isinstance(spec, tuple):  # a row bound as written: (table, id), instance
                out.add(spec[0])
            elif isinstance(spec, models.Model) and spec.pk is not None:
                out.add((spec._meta.db_table, int(spec.pk)))
    conn._vouch_pending_read = (pending, len(pending), pending[-1] if pending else None, out)
    return out


def _floor_judged(
    latest: dict[tuple[str, int], Bound], floor: Sequence[models.Model], *, using: str
) -> list[Unvouched]:
    """The floor's rows of ``floor`` that differ from their latest binding, or that nothing binds.
    A row this transaction's own events bind (written, or changed and bound again, by the
    application earlier in the transaction: an import's chunk, coups played in one transaction)
    has its latest binding in them, at the transaction's end, not in the trail: not judged here
    (a request vouches before it writes; the verifier checks each binding's ``before``)."""
    found = rows_judged(latest, floor, unbound=True, using=using)
    if not found:
        return found
    pending = _pending_bound(using)
    return [f for f in found if (f.model._meta.db_table, f.pk) not in pending]


def bank_rows_vouch(*, turn: BankTurn, session: TableSession, shares: Iterable[BankShare] = ()) -> None:
    """A coup's start, before the bank is funded: the bank turn it reads (its player the banker,
    its minimum the smallest bank), the turn's seat, and ``shares`` (the spectators' shares the
    bank's first coup takes, with their spectators) against their latest bindings in the events
    about them or about the session, or in the upgrade's bindings (one statement). CoupRecordsChanged,
    nothing written, for a row that differs or that nothing binds (inserted in the database)."""
    using = turn._state.db or "default"
    if not _keeps_events(using):
        return
    shares = list(shares)
    held: list[models.Model] = [turn, *([turn.seat] if turn.seat is not None else [])]
    held += shares
    held += [share.spectator for share in shares]
    latest, _ = _bindings_read([*held, session], floor=held, using=using)
    found = _floor_judged(latest, held, using=using)
    if not found:
        return
    _log("bank turn", turn.pk, found)
    numbers = {int(turn.seat.pk): int(turn.seat.number)} if turn.seat is not None else {}
    raise CoupRecordsChanged(
        said(
            "The bank's record was changed outside the application ({changes}): no coup was "
            "started. Call the pit boss.",
            changes=Listing([_floor_said(f, numbers) for f in found]),
        )
    )


def coup_settlement_vouch(*, coup: Coup, steps: Sequence[CoupStep], current_step: int | None = None) -> None:
    """A chemin de fer coup's reveal, before its money moves: :func:`coup_rows_vouch` of its row and
    steps, and the floor's rows the settlement pays on (its bank turn and the banker's seat, as the
    coup's lock loaded them, and the seats and spectators of its bets, read by the same statement
    as the events), all against the events about the coup, the turn, the session and those places
    (or the upgrade's bindings): a floor row nothing binds is refused as a changed one. The turn's
    state as loaded goes into the binding of the reveal's change of it (rows_loaded)."""
    using = coup._state.db or "default"
    if not _keeps_events(using):
        return
    turn: BankTurn = coup.bank_turn
    rows_loaded(turn)
    session = TableSession(pk=coup.shoe.session_id)
    banker_seat = turn.seat
    floor: list[models.Model] = [turn, *([banker_seat] if banker_seat is not None else [])]
    latest, places = _bindings_read(
        [coup, turn, *floor[1:], session], floor=floor, bets_of=coup.pk, using=using
    )
    # (the banker's seat is held already, as the lock loaded it)
    held_seat = banker_seat.pk if banker_seat is not None else None
    floor += [p for p in places if not (isinstance(p, Seat) and p.pk == held_seat)]
    # every floor row is bound (tables 0036 bound those there were): one nothing binds was inserted
    _coup_and_floor_judged(latest, coup, steps, CoupStep, floor, current_step=current_step, using=using)


def _coup_and_floor_judged(
    latest: dict[tuple[str, int], Bound],
    coup: models.Model,
    steps: Sequence[models.Model],
    step_model: type[models.Model],
    floor: Sequence[models.Model],
    *,
    current_step: int | None,
    using: str,
) -> None:
    """Refuse (:func:`_coup_refused`) a coup whose row or steps differ from ``latest``'s bindings,
    or a bound step of which is gone (only when the coup's row is bound: a history written before
    rows were bound is the verifier's to judge), or whose ``floor`` rows differ or are unbound."""
    found: list[Unvouched] = []
    if (row_reader(type(coup), using).table, int(coup.pk)) in latest:
        found = rows_judged(latest, [coup, *steps], unbound=True, using=using)
        step_table = row_reader(step_model, using).table
        held_steps = {int(step.pk) for step in steps}
        found += [
            Unvouched(step_model, pk, GONE)
            for (table, pk) in sorted(latest)
            if table == step_table and pk not in held_steps
        ]
    found += _floor_judged(latest, floor, using=using)
    if not found:
        return
    _log("coup", coup.pk, found)
    index_of = {int(step.pk): int(step.index) for step in steps}  # type: ignore[attr-defined]
    numbers = {int(p.pk): int(p.number) for p in floor if isinstance(p, Seat)}
    changes = Listing(
        [
            _change_said(f, index_of, type(coup)) if f.model in (type(coup), step_model)
            else _floor_said(f, numbers)
            for f in found
        ]
    )
    _coup_refused(changes, current_step)


def game_coup_vouch(
    *,
    coup: GameCoup,
    steps: Sequence[GameStep],
    players: Collection[int],
    current_step: int | None = None,
) -> None:
    """An older game's step (each replays the coup's seating and steps; the last one settles):
    :func:`coup_rows_vouch` of its row and steps (each step's event is about the step), and the
    seats at its session of ``players`` (the coup's parties: its seating was taken from the seats,
    a newcomer joins from his, and the settlement moves their chips), read by the same statement,
    against the events about them or the session or the upgrade's bindings. CoupRecordsChanged,
    nothing written, for a row that differs, a bound step gone, or a seat nothing binds (inserted
    for a player who never sat there); the coup's own rows only when its row is bound (a history
    written before rows were bound is the verifier's to judge)."""
    using = coup._state.db or "default"
    if not _keeps_events(using):
        return
    session = TableSession(pk=coup.session_id)
    latest, seats = _bindings_read(
        [coup, *steps, session], seats_of=(coup.session_id, sorted(players)), using=using
    )
    _coup_and_floor_judged(latest, coup, steps, GameStep, seats, current_step=current_step, using=using)
