"""The lifecycles of a coup and of a shoe: which state may follow which, declared once, and the one
function each service calls to move a row on.

A coup:

- ``open`` → ``settled``: the hands are shown and no step broke the rules, it is paid at once;
- ``open`` → ``awaiting_correction``: the hands are shown, a step broke the rules;
- ``awaiting_correction`` → ``awaiting_approval``: the croupier restored it (settled provisionally);
- ``awaiting_approval`` → ``settled``: a pit boss approved the restoration;
- ``awaiting_approval`` → ``awaiting_correction``: a pit boss rejected it, to be restored again;
- ``open`` → ``withdrawn``: nobody bet on the declared bank, the croupier withdraws it without a
  deal (RULES.md §7);
- ``open``, ``awaiting_correction`` or ``awaiting_approval`` → ``void``: a pit boss voids a coup
  that is not over, whatever held it up (the table never stalls on a coup).

``settled``, ``void`` and ``withdrawn`` are final. Every transition is reached by a live service
(tables.services.coups and corrections); an import of recorded history goes through the same
services, so none is import-only. A shoe is ``open`` until it is closed, once.

The services still check, first and in their own words, that the request fits the state (a
correction is approved only while it awaits approval…); the table here is what no path can get
round: a transition it does not list is refused, with the caller's transaction rolled back, so
nothing is written.
"""

from __future__ import annotations

from django.utils import timezone

from core.errors import Conflict
from tables.models import Coup, CoupState, GameCoup, GameCoupState, Shoe, ShoeState


class CoupConflict(Conflict):
    """The request does not fit the coup's current state (HTTP 409)."""

    code = "coup_conflict"


class CoupRecordsChanged(CoupConflict):
    """The coup's rows differ from what its audit events bound (changed behind the application's
    back): nothing is settled on them (HTTP 409); the pit boss voids the coup."""

    code = "records_changed"


#: the states a coup may move to from each state
COUP_TRANSITIONS: dict[CoupState, frozenset[CoupState]] = {
    CoupState.OPEN: frozenset(
        {CoupState.AWAITING_CORRECTION, CoupState.SETTLED, CoupState.WITHDRAWN, CoupState.VOID}
    ),
    CoupState.AWAITING_CORRECTION: frozenset({CoupState.AWAITING_APPROVAL, CoupState.VOID}),
    CoupState.AWAITING_APPROVAL: frozenset(
        {CoupState.SETTLED, CoupState.AWAITING_CORRECTION, CoupState.VOID}
    ),
    CoupState.SETTLED: frozenset(),
    CoupState.VOID: frozenset(),
    CoupState.WITHDRAWN: frozenset(),
}

#: transitions only an import of recorded history makes (none: it replays through the services)
COUP_IMPORT_ONLY: frozenset[tuple[CoupState, CoupState]] = frozenset()

#: the states a shoe may move to from each state
SHOE_TRANSITIONS: dict[ShoeState, frozenset[ShoeState]] = {
    ShoeState.OPEN: frozenset({ShoeState.CLOSED}),
    ShoeState.CLOSED: frozenset(),
}


def _label(value: str) -> str:
    # as the services' own refusals say a state ("awaiting correction")
    return str(value).replace("_", " ")


def coup_transition_check(current: str, to: str, *, current_step: int | None = None) -> None:
    """Refuse (CoupConflict) a coup's move from ``current`` to ``to`` that COUP_TRANSITIONS does
    not list."""
    if CoupState(to) not in COUP_TRANSITIONS[CoupState(current)]:
        raise CoupConflict(
            f"This coup is {_label(current)}: it cannot become {_label(to)}.",
            current_step=current_step,
        )


def coup_state_change(*, coup: Coup, to: CoupState) -> None:
    """Move ``coup`` (locked by the caller, inside its transaction) to ``to``: checked against
    COUP_TRANSITIONS, and the settlement time set with the settled state (a constraint ties them)."""
    coup_transition_check(coup.state, to, current_step=coup.step_count)
    coup.state = to
    fields = ["state"]
    if to == CoupState.SETTLED:
        coup.settled_at = timezone.now()
        fields.append("settled_at")
    coup.save(update_fields=fields)


def coup_state_set(*, coup: Coup, to: CoupState) -> None:
    """``coup_state_change`` of a coup not in the database yet (a bulk writer's, import_coups, that
    inserts it later as it is): the same check, the same settlement time, no UPDATE."""
    coup_transition_check(coup.state, to, current_step=coup.step_count)
    coup.state = to
    if to == CoupState.SETTLED:
        coup.settled_at = timezone.now()


def shoe_transition_check(*, shoe: Shoe, to: ShoeState) -> None:
    """Refuse (Conflict) a shoe's move that SHOE_TRANSITIONS does not list."""
    if ShoeState(to) not in SHOE_TRANSITIONS[ShoeState(shoe.state)]:
        current = _label(shoe.state)
        raise Conflict(f"This shoe is {current}: it cannot become {_label(to)}.")


#: an older game's coup (Macao, Landsknecht, old baccarat): played out and settled at its last
#: step, or voided before it; both final (nothing to restore: docs/games/at-the-table.md)
GAME_COUP_TRANSITIONS: dict[GameCoupState, frozenset[GameCoupState]] = {
    GameCoupState.OPEN: frozenset({GameCoupState.SETTLED, GameCoupState.VOID}),
    GameCoupState.SETTLED: frozenset(),
    GameCoupState.VOID: frozenset(),
}


def game_coup_state_change(*, coup: GameCoup, to: GameCoupState, **fields: object) -> None:
    """Move a game coup (locked by the caller, inside its transaction) to ``to`` with ``fields``
    (its outcome and record, or its void reason), setting its end time: checked against
    GAME_COUP_TRANSITIONS and, in the UPDATE itself, against the state it was read in."""
    current = GameCoupState(coup.state)
    if GameCoupState(to) not in GAME_COUP_TRANSITIONS[current]:
        raise CoupConflict(
            f"Coup {coup.number} is {_label(current)}: it cannot become {_label(to)}.",
            current_step=coup.step_count,
        )
    values = {**fields, "state": to, "ended_at": timezone.now()}
    if GameCoup.objects.filter(pk=coup.pk, state=current).update(**values) != 1:
        raise CoupConflict(f"Coup {coup.number} was ended meanwhile.", current_step=coup.step_count)
    for name, value in values.items():
        setattr(coup, name, value)
