"""Permission names ("app_label.codename") the code checks or grants, defined once.

Who may do what *per object* (a croupier at his own table, a pit boss never approving his own
correction) is ``tables.permissions``'s; this module only names the model permissions, so a name
misspelt in a ``has_perm`` call cannot silently answer False. Templates spell them in their syntax
(``perms.tables.approve_correction``). Imports nothing: roles, models and services all use it.
"""

from __future__ import annotations

APP_LABEL = "tables"


def model_perm(verb: str, model: str, *, app_label: str = APP_LABEL) -> str:
    """Django's own permission on a model: ``model_perm("add", "player") == "tables.add_player"``."""
    return f"{app_label}.{verb}_{model}"


def codename(perm: str) -> str:
    """The codename part of "app_label.codename" (what ``Meta.permissions`` and ``Permission`` hold)."""
    return perm.split(".", 1)[1]


# --- the tables app's own permissions (declared on Coup's Meta.permissions)
APPROVE_CORRECTION = "tables.approve_correction"
EXPORT_COUPS = "tables.export_coups"

#: ``Coup.Meta.permissions``: codename and the label the admin shows
COUP_PERMISSIONS: tuple[tuple[str, str], ...] = (
    (codename(APPROVE_CORRECTION), "Can approve the correction of a wrongly played coup"),
    (codename(EXPORT_COUPS), "Can export coup records"),
)

# --- the cage's permission, declared on ledger.Transaction's Meta.permissions (spelt out there: the
# ledger imports nothing from tables)
OPERATE_CAGE = "ledger.operate_cage"

# --- Django's model permissions the code checks or grants by name
ADD_PLAYER = model_perm("add", "player")
CHANGE_TABLE = model_perm("change", "table")
CHANGE_TABLESESSION = model_perm("change", "tablesession")
CHANGE_COUP = model_perm("change", "coup")
ADD_CROUPIERASSIGNMENT = model_perm("add", "croupierassignment")
CHANGE_CROUPIERASSIGNMENT = model_perm("change", "croupierassignment")
VIEW_AUDITEVENT = model_perm("view", "auditevent", app_label="audit")

# --- the administrator's security actions (access/admin.py): revoking API tokens, lifting lockouts
REVOKE_API_TOKEN = model_perm("delete", "apitoken", app_label="core")
LIFT_LOCKOUT = model_perm("delete", "accessattempt", app_label="axes")
