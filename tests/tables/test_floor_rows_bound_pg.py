"""The floor's rows changed with the application's own PostgreSQL login (docs/deployment.md's role:
it may UPDATE a seat or a bank turn, which are not append-only): the verifier names the row and
its column, and the next coup's start or reveal is refused with nothing written
(tables.services.vouching; tests/tables/test_floor_rows_bound.py does the same on either database
as a superuser)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
import pytest
from django.db import connection

from core.db_roles import RoleNames, after_migrate_sql, database_sql, role_sql
from ledger import services as ledger
from tables import services
from tables.lifecycle import CoupRecordsChanged
from tables.models import BankTurn, Coup
from tests.audit.rows import row_changed
from tests.factories import PlayerFactory
from tests.tables.play import K, open_floor, row_counts, step
from tests.tables.test_floor_rows_bound import balances, coup_at_its_reveal, verify_full

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _execute(statements: Sequence[str]) -> None:
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


@pytest.fixture(scope="module")
def app_login(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The documented application role (core.db_roles, as tests/security/db_role.py sets it up),
    under a name of this module's own so that it never meets that fixture's."""
    with django_db_blocker.unblock():
        if connection.vendor != "postgresql":
            pytest.skip("the database roles are PostgreSQL's")
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_database(), current_user")
            database, owner = cursor.fetchone()
        names = RoleNames(database=database, owner=owner, app=f"{database}_floor"[:63])
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [names.app])
            if cursor.fetchone():
                _execute([f"DROP OWNED BY {names.app}", f"DROP ROLE {names.app}"])
        password = secrets.token_hex(16)
        _execute([role_sql(names.app), f"ALTER ROLE {names.app} PASSWORD '{password}'"])
        _execute(database_sql(names))
        _execute(after_migrate_sql(names))
    settings = connection.settings_dict
    yield {
        "host": settings["HOST"] or None,
        "port": settings["PORT"] or None,
        "dbname": database,
        "user": names.app,
        "password": password,
    }
    with django_db_blocker.unblock():
        _execute([f"DROP OWNED BY {names.app}", f"DROP ROLE {names.app}"])


def as_app(login: dict[str, Any], sql: str, params: Sequence[Any]) -> None:
    with psycopg.connect(**login) as conn, conn.transaction():
        conn.execute(sql, params)


def test_a_bank_turn_handed_over_with_the_app_login_is_named_and_refused(app_login, croupier, table) -> None:
    floor = open_floor(croupier, table)
    turn = BankTurn.objects.get(session=floor.session, ended_at__isnull=True)
    other = floor.seats[2]
    as_app(
        app_login,
        "UPDATE tables_bankturn SET player_id = %s, seat_id = %s, rotation_from_id = %s WHERE id = %s",
        [other.player_id, other.pk, other.pk, turn.pk],
    )
    code, out = verify_full()
    assert code == 1
    changed = row_changed("tables_bankturn", turn.pk, "player_id", "rotation_from_id", "seat_id")
    assert f"  ROW {changed}" in out
    counts, money = row_counts(), balances()
    with pytest.raises(CoupRecordsChanged):
        services.coup_start(actor=croupier, session=floor.session, amount=200)
    assert (row_counts(), balances()) == (counts, money)
    assert not Coup.objects.filter(shoe__session=floor.session).exists()


def test_a_seat_handed_over_with_the_app_login_is_named_and_its_reveal_refused(
    app_login, croupier, table
) -> None:
    floor = open_floor(croupier, table)
    victim = PlayerFactory(casino=table.casino, display_name="Victim")
    ledger.cage_buy_in(casino=table.casino, player=victim, amount=5000, actor=croupier, key="victim")
    seat = floor.seats[3]
    as_app(app_login, "UPDATE tables_seat SET player_id = %s WHERE id = %s", [victim.pk, seat.pk])
    code, out = verify_full()
    assert code == 1
    assert f"  ROW {row_changed('tables_seat', seat.pk, 'player_id')}" in out
    coup = coup_at_its_reveal(floor, croupier)
    counts, money = row_counts(), balances()
    with pytest.raises(CoupRecordsChanged, match="seat 3 was changed"):
        step(floor, coup, K.REVEAL)
    assert (row_counts(), balances()) == (counts, money)
    coup.refresh_from_db()
    assert coup.state == Coup.State.OPEN
