"""Who sees what of compliance (issue 23 §4): the cashier sees a player's identification at the
cage (to serve him), the compliance role sees everything of the casinos it works for, a superuser
everything; a pit boss or an accountant sees no identification."""

from __future__ import annotations

from typing import Any

from tables.permissions import check_role, has_role
from tables.perms import OPERATE_CAGE
from tables.roles import Role

#: the compliance role's own permission (declared on compliance.CashReport)
REVIEW_CASH = "compliance.review_cash"


def _authenticated(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False))


def is_compliance(user: Any) -> bool:
    """Reviews the cash logs and files the reports: the compliance role (or a superuser)."""
    if not _authenticated(user):
        return False
    return bool(user.is_superuser or (has_role(user, Role.COMPLIANCE) and user.has_perm(REVIEW_CASH)))


def check_is_compliance(user: Any, casino_id: int | None = None) -> None:
    check_role(user, is_compliance, "Only compliance reviews the cash-transaction logs.", casino_id)


def can_read_identification(user: Any) -> bool:
    """The cage (which identifies the player) and compliance; nobody else."""
    if not _authenticated(user):
        return False
    if is_compliance(user):
        return True
    return has_role(user, Role.CASHIER) and bool(user.has_perm(OPERATE_CAGE))


def check_can_read_identification(user: Any, casino_id: int) -> None:
    check_role(user, can_read_identification, "You may not see a player's identification.", casino_id)
