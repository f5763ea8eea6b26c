"""The role groups exist with the permissions later work will check."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from tables.roles import ROLE_PERMISSIONS, Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _perms(group: Group) -> set[str]:
    return {
        f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")
    }


def test_the_data_migrations_created_the_six_roles_with_their_permissions() -> None:
    assert sorted(Group.objects.values_list("name", flat=True)) == [
        "accountant",
        "cashier",
        "compliance",
        "croupier",
        "group_auditor",
        "pit_boss",
    ]
    for role, perms in ROLE_PERMISSIONS.items():
        assert _perms(Group.objects.get(name=role)) == set(perms), role


def test_croupier_records_coups_but_cannot_approve_or_rewrite_history(croupier) -> None:
    assert croupier.has_perms(["tables.add_coup", "tables.add_coupstep", "tables.add_bet", "tables.add_shoe"])
    assert not croupier.has_perm("tables.approve_correction")
    assert not croupier.has_perm("tables.change_coupstep")
    assert not croupier.has_perm("tables.delete_coupstep")
    assert not croupier.has_perm("audit.view_auditevent")


def test_pit_boss_sees_everything_and_approves_corrections(pit_boss) -> None:
    assert pit_boss.has_perms(["tables.approve_correction", "tables.view_coupstep", "audit.view_auditevent"])
    assert not pit_boss.has_perm("tables.add_coupstep")


def test_accountant_only_views_and_exports(accountant) -> None:
    perms = _perms(Group.objects.get(name=Role.ACCOUNTANT))
    assert {p.split(".")[1].split("_")[0] for p in perms} == {"view", "export"}
    assert accountant.has_perm("tables.export_coups")
    assert not accountant.has_perm("tables.approve_correction")


def test_cashier_runs_the_cage_and_nothing_else(cashier) -> None:
    assert cashier.has_perms(["ledger.operate_cage", "tables.add_player", "ledger.view_account"])
    assert not cashier.has_perm("tables.add_coupstep")
    assert not cashier.has_perm("tables.approve_correction")
    assert not cashier.has_perm("audit.view_auditevent")
    assert not cashier.has_perm("tables.export_coups")


def test_group_auditor_reads_and_exports_and_writes_nothing(group_auditor) -> None:
    perms = _perms(Group.objects.get(name=Role.GROUP_AUDITOR))
    assert {p.split(".")[1].split("_")[0] for p in perms} == {"view", "export"}
    assert group_auditor.has_perms(["tables.export_coups", "audit.view_auditevent", "tables.view_coupstep"])
    assert not group_auditor.has_perm("tables.approve_correction")
    assert not group_auditor.has_perm("ledger.operate_cage")


def test_compliance_reviews_the_cash_logs_and_plays_no_part_on_the_floor(compliance_officer) -> None:
    assert compliance_officer.has_perms(
        ["compliance.review_cash", "compliance.view_playeridentification", "compliance.view_cashlogentry"]
    )
    assert not compliance_officer.has_perm("ledger.operate_cage")
    assert not compliance_officer.has_perm("tables.add_coupstep")
    assert not compliance_officer.has_perm("tables.approve_correction")


def test_outsider_has_no_permission(outsider) -> None:
    assert outsider.get_all_permissions() == set()


def test_other_croupier_is_assigned_elsewhere(croupier, other_croupier, table, other_table) -> None:
    assert list(croupier.assignments.values_list("table", flat=True)) == [table.pk]
    assert list(other_croupier.assignments.values_list("table", flat=True)) == [other_table.pk]


def test_personas_are_distinct_users(
    croupier, other_croupier, pit_boss, accountant, cashier, outsider
) -> None:
    assert len({u.pk for u in (croupier, other_croupier, pit_boss, accountant, cashier, outsider)}) == 6
    assert UserFactory(username="croupier") == croupier  # get_or_create by username
