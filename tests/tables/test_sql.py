"""tables/sql.py: the step path's statements read what the ORM would, and lock what they say."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tables import services, sql
from tables.models import Coup
from tables.services.locking import lock_coup
from tests.tables.play import Floor, open_floor


def start_coup(floor: Floor) -> Coup:
    return services.coup_start(actor=floor.croupier, session=floor.session, amount=200).coup


pytestmark = pytest.mark.django_db


def test_the_coups_table_is_locked_and_read_with_its_shoe_id_in_one_statement(croupier, table) -> None:
    floor = open_floor(croupier, table)
    coup = start_coup(floor)
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked, shoe_id = sql.coup_table_lock(coup.pk)
    statements = [q["sql"] for q in queries if "SAVEPOINT" not in q["sql"]]
    assert len(statements) == 1
    # the row lock where the database has them; SQLite's transaction already holds its database lock
    locking = "FOR UPDATE OF t" in statements[0]
    assert locking == (connection.vendor == "postgresql"), statements[0]
    assert connection.vendor == "postgresql" or "FOR UPDATE" not in statements[0]
    assert (locked.pk, shoe_id) == (table.pk, coup.shoe_id)
    # every field as the ORM reads it, the profile and casino loaded
    fresh = type(table).objects.select_related("profile", "casino").get(pk=table.pk)
    assert [getattr(locked, f.attname) for f in fresh._meta.concrete_fields] == [
        getattr(fresh, f.attname) for f in fresh._meta.concrete_fields
    ]
    assert (locked.profile, locked.casino) == (fresh.profile, fresh.casino)
    with pytest.raises(Coup.DoesNotExist):
        sql.coup_table_lock(10**9)


def test_lock_coup_attaches_the_shoe_and_table_the_audit_chain_is_found_from(croupier, table) -> None:
    coup = start_coup(open_floor(croupier, table))
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked = lock_coup(coup.pk)
        assert (locked.shoe.table.casino_id, locked.shoe_id) == (table.casino_id, coup.shoe_id)
    assert len([q for q in queries if "SAVEPOINT" not in q["sql"]]) == 3  # table, shoe, coup
