"""Who may do what, checked per object. Services call these (so the API, the tablet screens and
the management commands share one rule); views call them too, to hide what a user cannot do.

- a croupier acts only at the table he is assigned to for the current shift;
- a pit boss reads everything and approves corrections, never of a coup in which he recorded a
  step (separation of duties: the one who recorded the play, or restored it, never judges it);
- an accountant reads everything and changes nothing;
- anybody else (including anonymous users) sees nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils import timezone

from core.errors import DomainError
from tables.models import Coup, CoupStep, CroupierAssignment, GameCoup, GameStep, Table
from tables.perms import APPROVE_CORRECTION
from tables.roles import Role
from tables.wording import (
    PIT_BOSS_ONLY_REFUSAL,
    RECORDER_REVIEW_REFUSAL,
    RECORDER_VOID_REFUSAL,
    SELF_REVIEW_REFUSAL,
)

#: the steps a review records (approving, rejecting, voiding): having recorded one of these does not
#: make a pit boss a party to the play; every other step does (the game's, an amendment, a
#: correction submitted, a bank withdrawn)
REVIEW_KINDS = frozenset(
    {CoupStep.Kind.CORRECTION_APPROVED, CoupStep.Kind.CORRECTION_REJECTED, CoupStep.Kind.COUP_VOIDED}
)


class SeparationOfDuties(DomainError):
    """The reviewer of a correction took part in what he would judge (HTTP 403)."""

    status = 403
    code = "separation_of_duties"


def _in_group(user: Any, role: Role) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    cache = getattr(user, "_role_cache", None)
    if cache is None:
        cache = set(user.groups.values_list("name", flat=True))
        user._role_cache = cache
    return role.value in cache


def is_croupier_at(user: Any, table: Table | int, at: dt.datetime | None = None) -> bool:
    """Is ``user`` a croupier on shift at ``table`` at ``at`` (default now)?"""
    if not getattr(user, "is_authenticated", False):
        return False
    at = at or timezone.now()
    table_id = table if isinstance(table, int) else table.pk
    on_shift = CroupierAssignment.objects.filter(
        user=user, table_id=table_id, shift_start__lte=at, shift_end__gt=at
    )
    if getattr(user, "_role_cache", None) is None:
        # the user's roles not read yet in this request (every step of a coup): both in one query
        return on_shift.filter(user__groups__name=Role.CROUPIER.value).exists()
    return _in_group(user, Role.CROUPIER) and on_shift.exists()


def check_croupier_at(user: Any, table: Table | int) -> None:
    if not is_croupier_at(user, table):
        raise PermissionDenied("Only the croupier assigned to this table for the current shift may do this.")


def can_approve(user: Any) -> bool:
    return (
        bool(getattr(user, "is_authenticated", False))
        and _in_group(user, Role.PIT_BOSS)
        and user.has_perm(APPROVE_CORRECTION)
    )


def check_can_approve(user: Any) -> None:
    if not can_approve(user):
        raise PermissionDenied(PIT_BOSS_ONLY_REFUSAL)


def reads_everything(user: Any) -> bool:
    return _in_group(user, Role.PIT_BOSS) or _in_group(user, Role.ACCOUNTANT)


def can_read_table(user: Any, table: Table | int) -> bool:
    return reads_everything(user) or is_croupier_at(user, table)


def check_can_read_table(user: Any, table: Table | int) -> None:
    if not can_read_table(user, table):
        raise PermissionDenied("You may not see this table.")


def coups_recorded_by(user: Any, coups: list[int]) -> set[int]:
    """Which of ``coups`` (ids) ``user`` recorded a step of (a review step aside): one query."""
    if not getattr(user, "is_authenticated", False) or not coups:
        return set()
    steps = CoupStep.objects.filter(coup_id__in=coups, actor_id=user.pk).exclude(kind__in=REVIEW_KINDS)
    return set(steps.values_list("coup_id", flat=True).distinct())


def review_duties_refusal(*, user: Any, coup: Coup | int, submitted_by_id: int | None) -> str:
    """Why ``user`` may not review the correction of ``coup`` on separation of duties ("" when he
    may): he submitted the correction, or recorded any other step of the coup."""
    if submitted_by_id is not None and submitted_by_id == getattr(user, "pk", None):
        return SELF_REVIEW_REFUSAL
    coup_id = coup if isinstance(coup, int) else coup.pk
    if coup_id in coups_recorded_by(user, [coup_id]):
        return RECORDER_REVIEW_REFUSAL
    return ""


def recorded_a_step_of(user: Any, coup: Coup | GameCoup) -> bool:
    """Whether ``user`` recorded a step of ``coup`` (chemin de fer's, a review step aside; or an
    older game's): he is a party to it, and does not void it (separation of duties, issue 20)."""
    if not getattr(user, "is_authenticated", False):
        return False
    if isinstance(coup, GameCoup):
        return GameStep.objects.filter(coup=coup, actor_id=user.pk).exists()
    return coup.pk in coups_recorded_by(user, [coup.pk])


def check_independent_voider(user: Any, coup: Coup | GameCoup) -> None:
    """SeparationOfDuties if ``user`` recorded a step of ``coup``."""
    if recorded_a_step_of(user, coup):
        raise SeparationOfDuties(RECORDER_VOID_REFUSAL)


def check_independent_reviewer(user: Any, coup: Coup, correction: CoupStep) -> None:
    """SeparationOfDuties unless ``user`` recorded no step of ``coup`` (a review step aside)."""
    refusal = review_duties_refusal(user=user, coup=coup, submitted_by_id=correction.actor_id)
    if refusal:
        raise SeparationOfDuties(refusal)
