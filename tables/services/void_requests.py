"""A void that waits for a second pit boss (issue 20, separation of duties): the row's lifecycle.

A coup with more chips at stake than its casino's ``void_second_approval_above`` is not voided by
one pit boss: his void opens a ``VoidRequest`` and the coup plays on; a second pit boss — neither
the one who asked nor anyone who recorded a step of the coup — approves it (the coup is voided
then, in his name) or refuses it. The games' void services (``coup_void``, ``game_coup_void``) ask
:func:`void_gate` whether to void now or to ask; ``tables.services.voids`` decides a request.

Lock order: the coup first (its game's void service locks it), then its request row — never the
other way round, so an approval and a retried void of the same coup cannot deadlock.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from audit.services import audit_record
from core.sentence import Word, said
from core.types import Staff
from tables.lifecycle import CoupConflict
from tables.models import Casino, Coup, GameCoup, VoidRequest
from tables.permissions import SeparationOfDuties, check_can_approve
from tables.selectors import void_request_coup, void_requests_waiting_of
from tables.wording import (
    PIT_BOSS_VOID_DECISION_REFUSAL,
    VOID_ALREADY_ASKED,
    VOID_ASKER_REFUSAL,
    VOID_DECIDED,
    VOID_REFUSAL_REASON_MISSING,
)

_REASON_MAX = 300


def _close(request: VoidRequest, *, state: str, actor: Staff | None, note: str = "") -> VoidRequest:
    request.state = state
    request.decided_by = actor
    request.decided_at = timezone.now()
    request.note = note
    request.save(update_fields=["state", "decided_by", "decided_at", "note"])
    audit_record(
        actor=actor,
        action=f"tables.voidrequest.{state}",
        target=request,
        after={"state": state, "note": note, "coup": request.coup_id, "game_coup": request.game_coup_id},
        casino=request.casino,
    )
    return request


def void_gate(
    *, actor: Staff, casino: Casino, coup: Coup | GameCoup, stakes: int, reason: str
) -> VoidRequest | None:
    """Called by a game's void service once the void is allowed (the coup locked, the actor
    checked, the reason given): None when the void goes ahead now — the coup's stakes within the
    casino's limit (a request still pending for it lapses: it is voided anyway) — or the request
    that waits for a second pit boss (a retry of the same pit boss's void answers his request;
    another pit boss's void of the same coup is a conflict: he approves or refuses that one)."""
    limit = casino.void_second_approval_above
    pending = void_requests_waiting_of(coup).select_for_update().first()  # the coup locked already
    if limit is None or stakes <= limit:
        if pending is not None:
            _close(pending, state=VoidRequest.State.LAPSED, actor=None, note="voided by one pit boss")
        return None
    if pending is not None:
        if pending.requested_by_id == actor.pk:
            return pending
        raise CoupConflict(VOID_ALREADY_ASKED, current_step=coup.step_count)
    request = VoidRequest.objects.create(
        casino=casino,
        stakes=stakes,
        limit=limit,
        reason=reason[:_REASON_MAX],
        requested_by=actor,
        requested_at=timezone.now(),
        **void_request_coup(coup),
    )
    audit_record(
        actor=actor,
        action="tables.voidrequest.open",
        target=request,
        after={
            "coup": request.coup_id,
            "game_coup": request.game_coup_id,
            "stakes": stakes,
            "limit": limit,
            "reason": request.reason,
        },
        casino=casino,
    )
    return request


def void_request_check_decider(actor: Staff, request: VoidRequest) -> None:
    """403 unless ``actor`` is a pit boss of the request's casino who did not ask for the void (who
    recorded a step of the coup is refused by the game's void service, in its words)."""
    check_can_approve(actor, request.casino_id, refusal=PIT_BOSS_VOID_DECISION_REFUSAL)
    if request.requested_by_id == actor.pk:
        raise SeparationOfDuties(VOID_ASKER_REFUSAL)


def void_request_locked(request: VoidRequest | int, *, coup: Coup | GameCoup) -> VoidRequest:
    """The request, row-locked (the caller holds ``coup``'s lock), still pending and for ``coup``:
    else a conflict that says how it was decided."""
    pk = request if isinstance(request, int) else request.pk
    locked = VoidRequest.objects.select_for_update().get(pk=pk)
    if locked.state != VoidRequest.State.PENDING:
        raise CoupConflict(said(VOID_DECIDED, state=Word(locked.state, "void request state")))
    if (locked.game_coup_id if isinstance(coup, GameCoup) else locked.coup_id) != coup.pk:
        raise ValidationError(said("This void request is for another coup."))
    return locked


def void_request_approved(*, actor: Staff, request: VoidRequest) -> dict[str, int]:
    """Mark the request approved by ``actor`` (the game's void service has just voided the coup);
    what the void's own audit event adds of it."""
    _close(request, state=VoidRequest.State.APPROVED, actor=actor)
    return {"void_request": request.pk, "asked_by": request.requested_by_id}


def void_request_lapse(*, request: VoidRequest) -> VoidRequest:
    """The coup ended (settled, or voided otherwise) before the void was decided."""
    return _close(request, state=VoidRequest.State.LAPSED, actor=None, note="the coup ended first")


@transaction.atomic
def void_request_refuse(*, actor: Staff, request: VoidRequest | int, reason: str) -> VoidRequest:
    """A second pit boss refuses the void (``reason`` required): the coup goes on as it stands."""
    pk = request if isinstance(request, int) else request.pk
    current = VoidRequest.objects.get(pk=pk)
    void_request_check_decider(actor, current)
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": VOID_REFUSAL_REASON_MISSING})
    coup = current.coup or current.game_coup
    assert coup is not None  # the database holds one of the two (voidrequest_one_coup)
    # only the request's row: an approval racing this refusal waits on it and finds it decided
    locked = void_request_locked(current, coup=coup)
    return _close(locked, state=VoidRequest.State.REFUSED, actor=actor, note=reason[:_REASON_MAX])
