"""A coup's rows vouched for before its money moves (audit.vouch): the refusal, in words.

Besides the coup's own rows (its row and steps), the rows of the floor its money moves on: the bank
turn a coup's start reads (its player is the banker, its minimum the smallest bank), with its seat
and the spectators' shares of the bank, and at the reveal the seats and spectators whose players
its bets pay from. Each against the latest binding the events about it (or about its session,
whose closing binds its places) carry, read in the statement that reads the coup's (one statement:
tests/tables/api/test_step_statements.py). A row of the floor that no such event binds (written
before rows were bound) is not judged here: the verifier judges it."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from django.db import connections, models

from audit.models import AuditEvent
from audit.rows import Bound, binding_unpack, row_reader, rows_loaded
from audit.vouch import CHANGED, GONE, UNBOUND, Unvouched, rows_judged, rows_vouch
from core.sentence import Listing, Sentence, said
from core.sql import model_fields, model_instances
from tables.lifecycle import CoupRecordsChanged
from tables.models import BankShare, BankTurn, Bet, Coup, CoupStep, Seat, Shoe, Spectator, TableSession

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
    """What changed of the floor's rows, in words (the columns go to the log)."""
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


def _bindings_read(
    objects: Iterable[models.Model], *, bets_of: int | None = None, using: str = "default"
) -> tuple[dict[tuple[str, int], Bound], list[Seat | Spectator]]:
    """The latest binding of every row bound by the events about ``objects`` (each by its label
    and id: the audit trail's object index), and with ``bets_of`` (a coup's id) about the seats
    and spectators of that coup's bets, whose rows are read in the same statement (returned)."""
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
    places = []
    if bets_of is not None:
        for model, column in ((Seat, "seat_id"), (Spectator, "spectator_id")):
            ids_of = f'SELECT CAST(b."{column}" AS VARCHAR(64)) FROM {bet} b WHERE b."coup_id" = %s'
            # PostgreSQL: the ids as an array, computed once, so that the object index is used
            found = f"= ANY(ARRAY({ids_of}))" if postgres else f"IN ({ids_of})"
            where.append(f'(e."object_type" = %s AND e."object_id" {found})')
            params += [model._meta.label_lower, bets_of]
        places = [
            f"""SELECT 1, s."id", NULL, s."session_id", s."player_id", s."number", s."joined_at", s."left_at"
              FROM {seat} s WHERE s."id" IN (SELECT b."seat_id" FROM {bet} b WHERE b."coup_id" = %s)""",
            f"""SELECT 2, v."id", NULL, v."session_id", v."player_id", NULL, v."joined_at", v."left_at"
              FROM {standing} v
             WHERE v."id" IN (SELECT b."spectator_id" FROM {bet} b WHERE b."coup_id" = %s)""",
        ]
    sql = f"""SELECT 0, e."id", e."rows", NULL, NULL, NULL, NULL, NULL FROM {events} e
               WHERE e."rows" IS NOT NULL AND ({" OR ".join(where)})"""
    if places:
        sql = " UNION ALL ".join([sql, *places])
        params += [bets_of, bets_of]
    with conn.cursor() as cursor:
        cursor.execute(f"{sql} ORDER BY 1, 2", params)
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


def bank_rows_vouch(*, turn: BankTurn, session: TableSession, shares: Iterable[BankShare] = ()) -> None:
    """A coup's start, before the bank is funded: the bank turn it reads (its player the banker,
    its minimum the smallest bank), the turn's seat, and ``shares`` (the spectators' shares the
    bank's first coup takes, with their spectators) against their latest bindings in the events
    about them or about the session (one statement). CoupRecordsChanged, nothing written, for a row
    that differs; a row no such event binds (written before rows were bound) is not judged."""
    using = turn._state.db or "default"
    if not _keeps_events(using):
        return
    shares = list(shares)
    held: list[models.Model] = [turn, *([turn.seat] if turn.seat is not None else [])]
    held += shares
    held += [share.spectator for share in shares]
    latest, _ = _bindings_read([*held, session], using=using)
    found = rows_judged(latest, held, unbound=False, using=using)
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
    as the events), all against the events about the coup, the turn, the session and those places.
    The turn's state as loaded goes into the binding of the reveal's change of it (rows_loaded)."""
    using = coup._state.db or "default"
    if not _keeps_events(using):
        return
    turn: BankTurn = coup.bank_turn
    rows_loaded(turn)
    session = TableSession(pk=coup.shoe.session_id)
    banker_seat = turn.seat
    floor: list[models.Model] = [turn, *([banker_seat] if banker_seat is not None else [])]
    latest, places = _bindings_read([coup, turn, *floor[1:], session], bets_of=coup.pk, using=using)
    # (the banker's seat is held already, as the lock loaded it)
    held_seat = banker_seat.pk if banker_seat is not None else None
    floor += [p for p in places if not (isinstance(p, Seat) and p.pk == held_seat)]
    found: list[Unvouched] = []
    coup_key = (row_reader(Coup, using).table, int(coup.pk))
    if coup_key in latest:  # a history written before rows were bound is the verifier's to judge
        found = rows_judged(latest, [coup, *steps], unbound=True, using=using)
        step_table = row_reader(CoupStep, using).table
        held_steps = {int(step.pk) for step in steps}
        found += [
            Unvouched(CoupStep, pk, GONE)
            for (table, pk) in sorted(latest)
            if table == step_table and pk not in held_steps
        ]
    found += rows_judged(latest, floor, unbound=False, using=using)
    if not found:
        return
    _log("coup", coup.pk, found)
    index_of = {int(step.pk): int(step.index) for step in steps}
    numbers = {int(p.pk): int(p.number) for p in floor if isinstance(p, Seat)}
    changes = Listing(
        [
            _change_said(f, index_of, Coup) if f.model in (Coup, CoupStep) else _floor_said(f, numbers)
            for f in found
        ]
    )
    _coup_refused(changes, current_step)
