"""Writes that set up the floor: casinos, tables, players, staff and their shifts.

Each function is one atomic state change that records its own audit event inside the same
transaction (audit.services.audit_record).

Preconditions that need more than one row (and so cannot be DB constraints) are checked here and
raise ``django.core.exceptions.ValidationError`` with a message fit for the croupier's screen.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from audit.services import audit_record
from audit.snapshot import model_snapshot
from core.sentence import said
from core.types import Staff
from tables.models import Casino, CasinoStaff, CroupierAssignment, Player, RuleProfile, Table
from tables.permissions import check_works_for
from tables.perms import ADD_PLAYER
from tables.roles import Role
from tables.services.audited import row_create_audited

User = get_user_model()


@transaction.atomic
def casino_create(*, actor: Staff | None, name: str, **settings: Any) -> Casino:
    casino = Casino(name=name, **settings)
    return row_create_audited(actor=actor, action="tables.casino.create", row=casino)


@transaction.atomic
def table_create(
    *,
    actor: Staff | None,
    casino: Casino,
    name: str,
    profile: RuleProfile,
    seat_count: int = 12,
    first_banker_method: str = Table.FirstBanker.LOT,
    house_bank: bool = False,
    passed_bank_auction: bool = False,
    game: str = Table.Game.CHEMIN_DE_FER,
    game_settings: dict[str, Any] | None = None,
    levy_mode: str = "",
) -> Table:
    """A new table. ``game`` and ``game_settings``: an older game (docs/games/) and its house
    settings, checked by the game's engine (a bad setting is refused here, not at the first coup).
    ``levy_mode``: how it is charged (percentage or hourly fee), empty for the casino's mode."""
    if profile.casino_id not in (None, casino.pk):
        raise ValidationError(said("This rule profile belongs to another casino."))
    table = Table(
        casino=casino,
        name=name,
        profile=profile,
        seat_count=seat_count,
        first_banker_method=first_banker_method,
        house_bank=house_bank,
        passed_bank_auction=passed_bank_auction,
        game=game,
        game_settings=game_settings or {},
        levy_mode=levy_mode,
    )
    # its full_clean: Table.clean has the game's engine check an older game's settings
    return row_create_audited(actor=actor, action="tables.table.create", row=table)


@transaction.atomic
def player_create(
    *, actor: Staff | None, casino: Casino, display_name: str, membership_number: str = ""
) -> Player:
    """A new player of the casino. ``actor`` None is the system itself (imports, the demo)."""
    if actor is not None and not actor.has_perm(ADD_PLAYER):
        raise PermissionDenied("You may not register players.")
    if actor is not None:
        check_works_for(actor, casino.pk)
    player = Player(
        casino=casino, display_name=display_name.strip(), membership_number=membership_number.strip()
    )
    return row_create_audited(actor=actor, action="tables.player.create", row=player)


@transaction.atomic
def croupier_assignment_create(
    *,
    actor: Staff | None,
    user: Staff,
    table: Table,
    shift_start: dt.datetime,
    shift_end: dt.datetime,
) -> CroupierAssignment:
    if not user.groups.filter(name=Role.CROUPIER).exists():
        raise ValidationError(said("{user} is not a croupier.", user=user.get_username()))
    if actor is not None:
        check_works_for(actor, table.casino_id)
    if not CasinoStaff.objects.filter(user=user, casino_id=table.casino_id).exists():
        raise ValidationError(
            said(
                "{user} does not work for {casino}: grant him the casino first.",
                user=user.get_username(),
                casino=str(table.casino),
            )
        )
    assignment = CroupierAssignment(user=user, table=table, shift_start=shift_start, shift_end=shift_end)
    return row_create_audited(actor=actor, action="tables.croupierassignment.create", row=assignment)


@transaction.atomic
def staff_member_create(
    *,
    actor: Staff | None,
    username: str,
    password: str,
    roles: list[str] | tuple[str, ...] = (),
    casinos: list[Casino] | tuple[Casino, ...] = (),
    is_superuser: bool = False,
    first_name: str = "",
    last_name: str = "",
) -> Staff:
    unknown = set(roles) - {r.value for r in Role}
    if unknown:
        raise ValidationError(said("Unknown role(s): {roles}.", roles=", ".join(sorted(unknown))))
    user = User(
        username=username,
        first_name=first_name,
        last_name=last_name,
        is_staff=is_superuser,  # only administrators use /admin/
        is_superuser=is_superuser,
    )
    user.set_password(password)
    user.full_clean()
    user.save()
    user.groups.set(Group.objects.filter(name__in=roles))
    audit_record(actor=actor, action="auth.user.create", target=user, after=model_snapshot(user))
    for casino in casinos:
        casino_staff_grant(actor=actor, user=user, casino=casino)
    return user


def _check_administrator(actor: Staff | None) -> None:
    """Who works for which casino is an administrator's say (None: the system itself)."""
    if actor is not None and not actor.is_superuser:
        raise PermissionDenied("Only an administrator says who works for a casino.")


def _post_audited(user: Staff, casino: Casino) -> dict[str, object]:
    """What a grant's or a withdrawal's audit event says of the post."""
    return {"user": user.pk, "username": user.get_username(), "casino": casino.pk}


@transaction.atomic
def casino_staff_grant(*, actor: Staff | None, user: Staff, casino: Casino) -> CasinoStaff:
    """``user`` works for ``casino`` from now on (idempotent: a second grant returns the first).
    ``actor`` None is the system (the demo, a migration); else an administrator."""
    _check_administrator(actor)
    post, created = CasinoStaff.objects.get_or_create(user=user, casino=casino)
    if created:
        after = _post_audited(user, casino)
        audit_record(actor=actor, action="tables.casinostaff.grant", target=post, after=after, casino=casino)
    return post


@transaction.atomic
def casino_staff_withdraw(*, actor: Staff | None, user: Staff, casino: Casino) -> bool:
    """``user`` no longer works for ``casino``: his shifts there stop counting at once (a croupier's
    on-shift check reads this row). Whether there was anything to withdraw."""
    _check_administrator(actor)
    post = CasinoStaff.objects.filter(user=user, casino=casino).first()
    if post is None:
        return False
    before = _post_audited(user, casino)
    audit_record(actor=actor, action="tables.casinostaff.withdraw", target=post, before=before, casino=casino)
    post.delete()
    return True


@transaction.atomic
def staff_password_set(*, actor: Staff | None, user: Staff, password: str) -> None:
    user.set_password(password)
    user.save(update_fields=["password"])
    # The event says that the password changed, never what it is (not even its hash).
    audit_record(actor=actor, action="auth.user.password_set", target=user)
