"""The PostgreSQL roles the product runs under, written once as SQL.

docs/deployment.md shows ``script()`` for the default names (``python manage.py db_roles_sql``
prints it, for other names too), and tests/security runs the same statements against the test
database before attacking it as the application's role; a test checks that the document still
shows exactly this script, so the two cannot drift apart.

Two roles: the owner runs migrations and owns every table; the application's role owns nothing,
may create nothing (no CREATE on the schema, no TEMP on the database) and has no UPDATE or DELETE
on the append-only tables. Owning no table and no temporary table, it can neither disable a
trigger nor add one of its own, nor shadow a table by a temporary one of the same name; the
trigger functions are pinned to a fixed search_path anyway (docs/audit.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the tables nobody updates or deletes from (their triggers refuse it too: audit.db_triggers and
#: the migrations that install them); a test keeps this list equal to the tables those triggers guard
APPEND_ONLY_TABLES: tuple[str, ...] = (
    "audit_auditevent",
    "audit_chainverification",
    "compliance_cashlogentry",
    "compliance_playeridentification",
    "ledger_entry",
    "ledger_transaction",
    "tables_banktax",
    "tables_coupstep",
    "tables_feehour",
    "tables_feeposting",
    "tables_gamestep",
    "tables_importedrecord",
    "tables_rulessnapshot",
    "tables_shoecard",
)
#: the tables whose rows move while in progress and are frozen once finished (their triggers:
#: audit.db_triggers.frozen_once_final_operation): the application's role may not delete from them
FROZEN_ONCE_FINISHED_TABLES: tuple[str, ...] = (
    "compliance_cashreport",
    "ledger_booksverification",
    "reports_reportrun",
)

_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


@dataclass(frozen=True)
class RoleNames:
    """The database and the two roles' names (plain lowercase identifiers: no quoting needed)."""

    database: str = "chemin"
    owner: str = "chemin_owner"
    app: str = "chemin_app"

    def __post_init__(self) -> None:
        for name in (self.database, self.owner, self.app):
            if not _IDENTIFIER.match(name):
                raise ValueError(f"not a plain lowercase SQL identifier: {name!r}")


def role_sql(role: str) -> str:
    """The statement creating ``role``: a login that is no superuser and may create no role or
    database (a superuser passes every trigger: ``SET session_replication_role = replica``)."""
    RoleNames(app=role)  # checked like the others
    return f"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"


def cluster_sql(names: RoleNames) -> list[str]:
    """Step 1, as a superuser: the two roles and the database."""
    return [
        role_sql(names.owner),
        role_sql(names.app),
        f"CREATE DATABASE {names.database} OWNER {names.owner}",
    ]


def database_sql(names: RoleNames) -> list[str]:
    """Step 2, as a superuser connected to the database: who may connect and create what."""
    db, owner, app = names.database, names.owner, names.app
    return [
        # PUBLIC may connect and create TEMP tables by default. A TEMP table is searched before the
        # schema's own tables: it would shadow them in any function not pinned to a search_path.
        f"REVOKE ALL ON DATABASE {db} FROM PUBLIC",
        f"REVOKE TEMPORARY ON DATABASE {db} FROM {app}",
        f"GRANT CONNECT ON DATABASE {db} TO {app}",
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
        f"GRANT USAGE, CREATE ON SCHEMA public TO {owner}",
        f"GRANT USAGE ON SCHEMA public TO {app}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA public "
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {app}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {owner} IN SCHEMA public "
        f"GRANT USAGE, SELECT ON SEQUENCES TO {app}",
    ]


def after_migrate_sql(names: RoleNames) -> list[str]:
    """Step 3, after every release step's ``migrate``, as the owner: the application's rights on
    the tables (idempotent), minus UPDATE and DELETE on the append-only ones and DELETE on those
    frozen once finished."""
    app = names.app
    return [
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {app}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {app}",
        f"REVOKE UPDATE, DELETE, TRUNCATE ON {', '.join(APPEND_ONLY_TABLES)} FROM {app}",
        f"REVOKE DELETE, TRUNCATE ON {', '.join(FROZEN_ONCE_FINISHED_TABLES)} FROM {app}",
    ]


def script(names: RoleNames | None = None) -> str:
    """The three steps as one commented SQL script (psql)."""
    names = names or RoleNames()
    steps = [
        (
            f"1. as a superuser, then set the passwords (psql: \\password {names.owner}, "
            f"\\password {names.app})",
            cluster_sql(names),
        ),
        (
            f"2. as a superuser, connected to the new database (psql: \\c {names.database})",
            database_sql(names),
        ),
        (f"3. after every `migrate`, as {names.owner}", after_migrate_sql(names)),
    ]
    return "\n".join(
        "\n".join([f"-- {title}", *(f"{statement};" for statement in statements)]) + "\n"
        for title, statements in steps
    )
