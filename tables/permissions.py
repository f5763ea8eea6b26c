"""Who may do what, checked per object. Services call these (so the API, the tablet screens and
the management commands share one rule); views call them too, to hide what a user cannot do.

- a croupier acts only at the table he is assigned to for the current shift;
- a pit boss reads everything and approves corrections, never of a coup in which he recorded a
  step (separation of duties: the one who recorded the play, or restored it, never judges it);
- an accountant reads everything and changes nothing;
- anybody else (including anonymous users) sees nothing;
- "everything" is every casino the user works for (``CasinoStaff``), and no other: a read of
  another casino's table, coup, player or report answers 404 (``check_reads_casino``), a write
  there 403 (``check_works_for``). A superuser works for every casino; the group auditor reads
  every casino and works for none (issue 20).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, Model, OuterRef, QuerySet
from django.http import Http404
from django.utils import timezone

from core.errors import DomainError
from tables import sql
from tables.models import Casino, CasinoStaff, Coup, CoupStep, GameCoup, GameStep, Table
from tables.perms import APPROVE_CORRECTION, EXPORT_COUPS
from tables.roles import GROUP_WIDE_ROLES, Role
from tables.wording import (
    OTHER_CASINO_REFUSAL,
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


def has_role(user: Any, role: Role) -> bool:
    """Whether ``user`` holds ``role`` (anywhere: where he may use it is ``casino_scope``'s)."""
    return _in_group(user, role)


def _holds_group_wide_role(user: Any) -> bool:
    return any(_in_group(user, Role(r)) for r in GROUP_WIDE_ROLES)


_Q = TypeVar("_Q", bound=Model)


@dataclass(frozen=True, slots=True)
class CasinoScope:
    """The casinos a user reads (``casino_ids``; None: every casino) and works for (``works``)."""

    casino_ids: frozenset[int] | None
    works: frozenset[int] | None

    @property
    def group_wide(self) -> bool:
        return self.casino_ids is None

    def reads(self, casino_id: int | None) -> bool:
        return self.casino_ids is None or casino_id in self.casino_ids

    def works_for(self, casino_id: int | None) -> bool:
        return self.works is None or casino_id in self.works

    def narrow(self, queryset: QuerySet[_Q], casino_field: str = "casino") -> QuerySet[_Q]:
        """``queryset`` narrowed to the casinos read (``casino_field``: the path to the casino). Not
        ``filter``: a scope is not a queryset, and its callers read as what it does to one."""
        return in_casinos(queryset, self.casino_ids, casino_field)


def in_casinos(queryset: QuerySet[_Q], casino_ids: frozenset[int] | None, casino_field: str) -> QuerySet[_Q]:
    """``queryset`` narrowed to casinos ``casino_ids`` (None: not narrowed) by ``casino_field``, the
    path from its rows to their casino: what the selectors take from ``CasinoScope.casino_ids``."""
    if casino_ids is None:
        return queryset
    return queryset.filter(**{f"{casino_field}__in": casino_ids})


_NOWHERE = CasinoScope(casino_ids=frozenset(), works=frozenset())


def casino_scope(user: Any) -> CasinoScope:
    """Where ``user`` reads and acts: a superuser everywhere, the group auditor reads everywhere
    and acts nowhere, any other member of staff in the casinos he works for (every casino, when
    he works for each there is). Read once a request
    (kept on the user object, as its roles are)."""
    if not getattr(user, "is_authenticated", False):
        return _NOWHERE
    cached = getattr(user, "_casino_scope", None)
    if cached is not None:
        return cached
    if user.is_superuser:
        scope = CasinoScope(casino_ids=None, works=None)
    else:
        # one query: every casino, and whether he works there (a group holds a few dozen at most)
        posts = CasinoStaff.objects.filter(user=user, casino=OuterRef("pk"))
        casinos = list(Casino.objects.order_by().values_list("pk", Exists(posts)))
        works = frozenset(pk for pk, works_there in casinos if works_there)
        # one who works for every casino there is (a one-casino club's staff) reads "every casino":
        # it shows him nobody else's; a casino opened later narrows him again at his next request
        every = _holds_group_wide_role(user) or len(works) == len(casinos)
        scope = CasinoScope(casino_ids=None if every else works, works=works)
    user._casino_scope = scope
    return scope


def reads_every_casino(user: Any) -> bool:
    """Whether ``user`` reads every casino there is: group-wide, or working for each of them (a
    one-casino club's accountant): what is "of every casino" then shows him nobody else's."""
    return casino_scope(user).group_wide


def check_reads_casino(user: Any, casino_id: int | None) -> None:
    """404 unless ``user`` reads casino ``casino_id``: another casino's rows do not exist for him."""
    if not casino_scope(user).reads(casino_id):
        raise Http404("No such object.")


def check_works_for(user: Any, casino_id: int | None) -> None:
    """403 unless ``user`` works for casino ``casino_id`` (a write there)."""
    if not casino_scope(user).works_for(casino_id):
        raise PermissionDenied(OTHER_CASINO_REFUSAL)


def check_role(user: Any, holds: Callable[[Any], bool], refusal: str, casino_id: int | None) -> None:
    """403 with ``refusal`` unless ``holds(user)`` (the role the action needs: the cage's,
    compliance's, a pit boss's), then, when ``casino_id`` is given, unless he works for that casino:
    a role is held only at one's own casinos. The role is refused first, whatever the casino."""
    if not holds(user):
        raise PermissionDenied(refusal)
    if casino_id is not None:
        check_works_for(user, casino_id)


def table_casino_id(table: Table | int) -> int | None:
    """The casino of ``table`` (an instance, or its id: one query)."""
    if isinstance(table, Table):
        return table.casino_id
    return Table.objects.filter(pk=table).values_list("casino_id", flat=True).first()


@dataclass(frozen=True, slots=True)
class ShiftQuestion:
    """What the database is asked of a user who may be a croupier on shift at a table
    (tables/sql.py ``croupier_on_shift``): his id, the instant, and the group he must hold where
    his roles are not read yet in this request (None: they are, and he holds it)."""

    user_id: int
    at: dt.datetime
    role: str | None


def croupier_shift_question(user: Any, at: dt.datetime | None = None) -> ShiftQuestion | None:
    """The question to ask the database whether ``user`` is a croupier on shift at a table at
    ``at`` (default now); None when he cannot be (not logged in, or not a croupier)."""
    if not getattr(user, "is_authenticated", False):
        return None
    at = at or timezone.now()
    if getattr(user, "_role_cache", None) is None:
        # the user's roles not read yet in this request (every step of a coup): both in one query
        return ShiftQuestion(user_id=user.pk, at=at, role=Role.CROUPIER.value)
    if not _in_group(user, Role.CROUPIER):
        return None
    return ShiftQuestion(user_id=user.pk, at=at, role=None)


def is_croupier_at(user: Any, table: Table | int, at: dt.datetime | None = None) -> bool:
    """Is ``user`` a croupier on shift at ``table`` at ``at`` (default now)?"""
    question = croupier_shift_question(user, at)
    if question is None:
        return False
    table_id = table if isinstance(table, int) else table.pk
    # the shift counts only at a casino he works for (a post withdrawn ends his say there at once);
    # one statement in SQL (tables/sql.py): every step of every coup asks it, and the ORM's join
    # through the table, the casino and the user cost more to build and plan than to run
    casino_id = table.casino_id if isinstance(table, Table) else None
    return sql.croupier_on_shift(
        user_id=question.user_id, table_id=table_id, at=question.at, casino_id=casino_id, role=question.role
    )


#: the refusal of a write at a table by anyone but its croupier on shift
NOT_THE_CROUPIER_HERE = "Only the croupier assigned to this table for the current shift may do this."


def check_croupier_at(user: Any, table: Table | int) -> None:
    if not is_croupier_at(user, table):
        raise PermissionDenied(NOT_THE_CROUPIER_HERE)


def can_approve(user: Any, casino_id: int | None = None) -> bool:
    """A pit boss who may approve corrections (and void coups); at casino ``casino_id`` when it
    is given (he works for it)."""
    return (
        bool(getattr(user, "is_authenticated", False))
        and _in_group(user, Role.PIT_BOSS)
        and user.has_perm(APPROVE_CORRECTION)
        and (casino_id is None or casino_scope(user).works_for(casino_id))
    )


def check_can_approve(user: Any, casino_id: int, *, refusal: str = PIT_BOSS_ONLY_REFUSAL) -> None:
    """403 unless ``user`` is a pit boss working for casino ``casino_id``; ``refusal`` names what
    he may not do (a correction's review by default, a void)."""
    check_role(user, can_approve, refusal, casino_id)


def reads_everything(user: Any) -> bool:
    """Reads every table, coup and report of the casinos in his scope (``casino_scope``)."""
    return _in_group(user, Role.PIT_BOSS) or _in_group(user, Role.ACCOUNTANT) or _holds_group_wide_role(user)


def can_export(user: Any) -> bool:
    """The exports and report runs: pit bosses and accountants (both hold tables.export_coups),
    and the group auditor."""
    return reads_everything(user) and user.has_perm(EXPORT_COUPS)


def can_read_table(user: Any, table: Table | int) -> bool:
    if not casino_scope(user).reads(table_casino_id(table)):
        return False
    return reads_everything(user) or is_croupier_at(user, table)


def check_can_read_table(user: Any, table: Table | int) -> None:
    """404 for a table of another casino (it does not exist for him), 403 for one of his casinos
    he may not see (a croupier at another table)."""
    if not (reads_everything(user) or _in_group(user, Role.CROUPIER)):
        raise PermissionDenied("You may not see this table.")  # no role that reads a table at all
    check_reads_casino(user, table_casino_id(table))
    if not (reads_everything(user) or is_croupier_at(user, table)):
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
