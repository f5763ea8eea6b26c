"""Who may do what at the cage, checked by its services (the API and the screens share them) and
by its views (to hide what a user may not do).

- a cashier (the ``cashier`` group with ``ledger.operate_cage``) and a superuser post buy-ins and
  cash-outs, register players and read every player's chips and history;
- a pit boss and an accountant read every player's chips and history, and post nothing;
- a croupier reads the chips of the players at a table he is on shift at (seated or standing);
- anybody else sees nothing;
- each only at the casinos he works for (tables.permissions.casino_scope): another casino's
  player is not found (404), a buy-in there refused (403).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils import timezone

from tables.models import CroupierAssignment, Player, Seat, Spectator
from tables.permissions import check_reads_casino, check_role, has_role, reads_everything
from tables.perms import OPERATE_CAGE
from tables.roles import Role


def _is_authenticated(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False))


def can_operate_cage(user: Any) -> bool:
    """May post buy-ins and cash-outs (and register players at the cage)."""
    if not _is_authenticated(user):
        return False
    if user.is_superuser:
        return True
    return has_role(user, Role.CASHIER) and user.has_perm(OPERATE_CAGE)


def check_can_operate_cage(user: Any, casino_id: int | None = None) -> None:
    """403 unless ``user`` operates the cage (of casino ``casino_id``, when given: he works there)."""
    check_role(user, can_operate_cage, "Only the cage may sell chips or cash them in.", casino_id)


def can_read_chips(user: Any) -> bool:
    """May read every player's chips and chip history: the cage, a pit boss, an accountant."""
    return can_operate_cage(user) or reads_everything(user)


def check_can_read_chips(user: Any) -> None:
    if not can_read_chips(user):
        raise PermissionDenied("You may not see the players' chip accounts.")


def croupier_sees_player(user: Any, player: Player) -> bool:
    """Is ``player`` seated or standing at a table where ``user`` is the croupier on shift now?"""
    if not has_role(user, Role.CROUPIER):
        return False
    now = timezone.now()
    tables = CroupierAssignment.objects.filter(user=user, shift_start__lte=now, shift_end__gt=now).values(
        "table_id"
    )
    here = {
        "player": player,
        "left_at__isnull": True,
        "session__closed_at__isnull": True,
        "session__table_id__in": tables,
    }
    return Seat.objects.filter(**here).exists() or Spectator.objects.filter(**here).exists()


def check_can_read_player(user: Any, player: Player) -> None:
    """403 if ``user`` may not read chips at all; 404 for a player of a casino he does not read."""
    check_can_read_chips(user)
    check_reads_casino(user, player.casino_id)


def check_can_read_balance(user: Any, player: Player) -> None:
    if can_read_chips(user) or has_role(user, Role.CROUPIER):
        check_reads_casino(user, player.casino_id)  # another casino's player: 404
    if not (can_read_chips(user) or croupier_sees_player(user, player)):
        raise PermissionDenied("You may not see this player's chips.")
