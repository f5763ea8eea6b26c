"""Every permission name in tables.perms is one Django knows, and the code checks names from there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission

from tables import perms
from tables.roles import ROLE_PERMISSIONS

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
NAMES = {name: value for name, value in vars(perms).items() if name.isupper() and isinstance(value, str)}


def _exists(perm: str) -> bool:
    app_label, codename = perm.split(".", 1)
    return Permission.objects.filter(content_type__app_label=app_label, codename=codename).exists()


def test_every_named_permission_exists() -> None:
    named = {value for name, value in NAMES.items() if name != "APP_LABEL"}
    assert len(named) >= 9
    assert [perm for perm in sorted(named) if not _exists(perm)] == []


def test_every_role_permission_exists() -> None:
    granted = {perm for role_perms in ROLE_PERMISSIONS.values() for perm in role_perms}
    assert [perm for perm in sorted(granted) if not _exists(perm)] == []


def test_no_permission_is_checked_by_a_literal_name() -> None:
    """``has_perm("tables.…")`` spelt out in the code would escape the names above."""
    literal = re.compile(r"""has_perms?\(\s*\[?\s*["']""")
    offenders = [
        str(path.relative_to(ROOT))
        for top in ("tables", "review", "reports", "ledger", "core", "audit", "casino", "cage")
        for path in (ROOT / top).rglob("*.py")
        if literal.search(path.read_text())
    ]
    assert offenders == []
