"""The application's own database role, set up as docs/deployment.md says, and a history played
through the real services and committed for it to attack (tests/security/test_db_attacks.py,
tests/security/test_row_tamper.py; the fixtures are this folder's conftest.py's)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
from django.db import connection

from core.db_roles import RoleNames, after_migrate_sql, database_sql, role_sql
from ledger.models import Account, Entry, Transaction
from tables import services
from tables.models import BankTax, Bet, Coup
from tests.review.history import play_clean
from tests.tables.play import Floor, K, open_floor, step

INSUFFICIENT_PRIVILEGE = "42501"
RESTRICT_VIOLATION = "23001"
CHECK_VIOLATION = "23514"


@dataclass(frozen=True)
class AppRole:
    names: RoleNames
    password: str

    def connect(self) -> psycopg.Connection:
        settings = connection.settings_dict
        return psycopg.connect(
            host=settings["HOST"] or None,
            port=settings["PORT"] or None,
            dbname=self.names.database,
            user=self.names.app,
            password=self.password,
        )


def _execute(statements: Sequence[str]) -> None:
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def app_role_setup(django_db_blocker: Any) -> Iterator[AppRole]:
    """The documented application role, in the test database: created once per test database
    (the session fixture ``app_role``), dropped after."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("the database roles are PostgreSQL's")
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_database(), current_user")
            database, owner = cursor.fetchone()
        names = RoleNames(database=database, owner=owner, app=f"{database}_app"[:63])
        password = secrets.token_hex(16)
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [names.app])
            if cursor.fetchone():  # left over by an interrupted run
                _execute([f"DROP OWNED BY {names.app}", f"DROP ROLE {names.app}"])
        # the docs' step 1 for the application's role (the owner here is the test's superuser, the
        # database pytest-django's), then steps 2 and 3 exactly as documented
        _execute([role_sql(names.app), f"ALTER ROLE {names.app} PASSWORD '{password}'"])
        _execute(database_sql(names))
        _execute(after_migrate_sql(names))
    yield AppRole(names, password)
    with django_db_blocker.unblock():
        _execute([f"DROP OWNED BY {names.app}", f"DROP ROLE {names.app}"])


def app_role_regrant() -> None:
    """The docs' step 3 again, as after every ``migrate``, for the application's role of this test
    database if it exists: a test that migrates back and forth re-creates tables, and a table
    created anew holds the default privileges, not the append-only revokes."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_database(), current_user")
        database, owner = cursor.fetchone()
        names = RoleNames(database=database, owner=owner, app=f"{database}_app"[:63])
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [names.app])
        if cursor.fetchone() is None:
            return
    _execute(after_migrate_sql(names))


def refused(role: AppRole, statements: Sequence[tuple[str, Sequence[Any]]]) -> psycopg.Error:
    """Run ``statements`` as the application's role in one transaction and COMMIT it: the error
    that refused them (a deferred check refuses at COMMIT)."""
    with role.connect() as conn, pytest.raises(psycopg.Error) as info, conn.transaction():
        for sql, params in statements:
            conn.execute(sql, params)
    return info.value


# ------------------------------------------------------------------------------------------ data
@dataclass
class Played:
    coup: Coup  # settled, with its levy
    open_coup: Coup  # the next coup, a bet on it
    posted: Transaction  # the settled coup's settlement posting
    player_account: Account  # a player's account the posting did not touch
    cage: Account
    floor: Floor  # the table they were played at, for playing on (tests.tables.play.step)


def _books() -> dict[str, Any]:
    """Everything an attack could change, read by the test's own (superuser) connection."""
    return {
        "accounts": sorted(Account.objects.values_list("id", "balance")),
        "entries": sorted(Entry.objects.values_list("id", "transaction_id", "account_id", "amount")),
        "transactions": Transaction.objects.count(),
        "taxes": sorted(BankTax.objects.values_list("id", "coup_id", "basis", "amount")),
        "bets": sorted(Bet.objects.values_list(*[f.attname for f in Bet._meta.concrete_fields])),
        "coups": sorted(Coup.objects.values_list(*[f.attname for f in Coup._meta.concrete_fields])),
    }


def played_make(croupier: Any, table: Any) -> Played:
    """A coup settled with its levy, and the next coup open with a bet (the fixture ``played``)."""
    floor = open_floor(croupier, table)
    coup = play_clean(floor)  # bank 200, seats 2/3/4 bet 120/50/30, the banker wins: levy 10
    assert (coup.state, BankTax.objects.get(coup=coup).amount) == (Coup.State.SETTLED, 10)
    open_coup = services.coup_start(actor=croupier, session=floor.session, amount=390).coup
    step(floor, open_coup, K.BET, seat=2, amount=100)
    posted = Transaction.objects.get(coup=coup, kind="coup_settlement")
    touched = set(Entry.objects.filter(transaction=posted).values_list("account_id", flat=True))
    player_account = Account.objects.filter(kind="player").exclude(pk__in=touched).first()
    assert player_account is not None
    return Played(coup, open_coup, posted, player_account, Account.objects.get(kind="cage"), floor)


# --------------------------------------------------------------------------------------- attacks
