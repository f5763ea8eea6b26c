"""The staff roles (Django groups) and the model permissions each one starts with."""

from __future__ import annotations

from enum import StrEnum

from django.utils.translation import gettext_noop

from tables.perms import (
    ADD_CROUPIERASSIGNMENT,
    ADD_PLAYER,
    APPROVE_CORRECTION,
    CHANGE_COUP,
    CHANGE_CROUPIERASSIGNMENT,
    CHANGE_TABLE,
    CHANGE_TABLESESSION,
    EXPORT_COUPS,
    OPERATE_CAGE,
    VIEW_AUDITEVENT,
    model_perm,
)


class Role(StrEnum):
    CROUPIER = "croupier"
    PIT_BOSS = "pit_boss"
    ACCOUNTANT = "accountant"
    CASHIER = "cashier"
    #: reads every casino of the group (the group's internal audit, a regulator's inspector) and
    #: changes nothing; the other roles see only the casinos they work for (tables.models.CasinoStaff)
    GROUP_AUDITOR = "group_auditor"
    #: reviews the cage's cash-transaction logs and files the reports (compliance/, issue 23), in
    #: the casinos it works for; the only role besides the cage that sees identifications
    COMPLIANCE = "compliance"


# English everywhere they are stored or sent (the API's /me/); marked for the catalogue so the
# screens translate them at the edge ({% translate label %}, docs/i18n.md).
ROLE_LABELS: dict[str, str] = {
    Role.CROUPIER: gettext_noop("Croupier"),
    Role.PIT_BOSS: gettext_noop("Pit boss"),
    Role.ACCOUNTANT: gettext_noop("Accountant"),
    Role.CASHIER: gettext_noop("Cashier"),
    Role.GROUP_AUDITOR: gettext_noop("Group auditor"),
    Role.COMPLIANCE: gettext_noop("Compliance"),
}

_ALL_TABLES_MODELS = (
    "casino", "ruleprofile", "table", "tablesession", "sessionpause", "croupierassignment", "player",
    "seat", "spectator", "shoe", "shoecard", "coup", "bet", "coupstep", "banktax",
)  # fmt: skip
_VIEW_EVERYTHING = (
    *(model_perm("view", m) for m in _ALL_TABLES_MODELS),
    VIEW_AUDITEVENT,
)

#: "app_label.codename" permissions given to each group when it is first created. Later edits by
#: an administrator are never overwritten (see tables.builtin).
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    # Runs a table: opens sessions and shoes, seats players, records coups. Cannot change a
    # recorded step (append-only) nor approve a correction.
    Role.CROUPIER: (
        *(model_perm("view", m) for m in ("casino", "ruleprofile", "table", "croupierassignment", "banktax")),
        *(
            model_perm(verb, m)
            for m in ("tablesession", "sessionpause", "seat", "spectator", "shoe", "coup", "bet")
            for verb in ("add", "change", "view")
        ),
        *(model_perm(verb, m) for m in ("shoecard", "coupstep", "player") for verb in ("add", "view")),
    ),
    # Oversees: sees everything, including the audit trail, approves corrections, assigns croupiers.
    Role.PIT_BOSS: (
        *_VIEW_EVERYTHING,
        ADD_PLAYER,
        CHANGE_TABLE,
        CHANGE_TABLESESSION,
        CHANGE_COUP,
        ADD_CROUPIERASSIGNMENT,
        CHANGE_CROUPIERASSIGNMENT,
        APPROVE_CORRECTION,
        EXPORT_COUPS,
    ),
    # Reads and exports; changes nothing.
    Role.ACCOUNTANT: (*_VIEW_EVERYTHING, EXPORT_COUPS),
    # The cage: registers players, sells them chips and cashes them in; reads players' accounts.
    Role.CASHIER: (
        model_perm("view", "casino"),
        model_perm("view", "player"),
        ADD_PLAYER,
        *(model_perm("view", m, app_label="ledger") for m in ("account", "transaction", "entry")),
        OPERATE_CAGE,
    ),
    # Every casino of the group, read only: the accountant's reading and exports, group-wide.
    Role.GROUP_AUDITOR: (*_VIEW_EVERYTHING, EXPORT_COUPS),
    # Cash-transaction compliance: the players, the cage's logs and reports,
    # the identifications; files the reports (compliance.review_cash). Created by
    # compliance/migrations/0002_compliance_role.py, once its permissions exist.
    Role.COMPLIANCE: (
        model_perm("view", "casino"),
        model_perm("view", "player"),
        *(
            model_perm("view", m, app_label="compliance")
            for m in ("cashpolicy", "playeridentification", "cashlogentry", "cashreport")
        ),
        "compliance.review_cash",
    ),
}

#: the roles that read every casino without working for one
GROUP_WIDE_ROLES: frozenset[str] = frozenset({Role.GROUP_AUDITOR.value})
