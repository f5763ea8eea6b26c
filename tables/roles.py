"""The staff roles (Django groups) and the model permissions each one starts with."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    CROUPIER = "croupier"
    PIT_BOSS = "pit_boss"
    ACCOUNTANT = "accountant"
    CASHIER = "cashier"


ROLE_LABELS: dict[str, str] = {
    Role.CROUPIER: "Croupier",
    Role.PIT_BOSS: "Pit boss",
    Role.ACCOUNTANT: "Accountant",
    Role.CASHIER: "Cashier",
}

_ALL_TABLES_MODELS = (
    "casino", "ruleprofile", "table", "tablesession", "sessionpause", "croupierassignment", "player",
    "seat", "spectator", "shoe", "shoecard", "coup", "bet", "coupstep", "banktax",
)  # fmt: skip
_VIEW_EVERYTHING = (
    *(f"tables.view_{m}" for m in _ALL_TABLES_MODELS),
    "audit.view_auditevent",
)

#: "app_label.codename" permissions given to each group when it is first created. Later edits by
#: an administrator are never overwritten (see tables.builtin).
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    # Runs a table: opens sessions and shoes, seats players, records coups. Cannot change a
    # recorded step (append-only) nor approve a correction.
    Role.CROUPIER: (
        *(f"tables.view_{m}" for m in ("casino", "ruleprofile", "table", "croupierassignment", "banktax")),
        *(
            f"tables.{verb}_{m}"
            for m in ("tablesession", "sessionpause", "seat", "spectator", "shoe", "coup", "bet")
            for verb in ("add", "change", "view")
        ),
        *(f"tables.{verb}_{m}" for m in ("shoecard", "coupstep", "player") for verb in ("add", "view")),
    ),
    # Oversees: sees everything, including the audit trail, approves corrections, assigns croupiers.
    Role.PIT_BOSS: (
        *_VIEW_EVERYTHING,
        "tables.add_player",
        "tables.change_table",
        "tables.change_tablesession",
        "tables.change_coup",
        "tables.add_croupierassignment",
        "tables.change_croupierassignment",
        "tables.approve_correction",
        "tables.export_coups",
    ),
    # Reads and exports; changes nothing.
    Role.ACCOUNTANT: (*_VIEW_EVERYTHING, "tables.export_coups"),
    # The cage: registers players, sells them chips and cashes them in; reads players' accounts.
    Role.CASHIER: (
        "tables.view_casino",
        "tables.view_player",
        "tables.add_player",
        *(f"ledger.view_{m}" for m in ("account", "transaction", "entry")),
        "ledger.operate_cage",
    ),
}
