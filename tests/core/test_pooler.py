"""The application behind PgBouncer in transaction pooling (DATABASE_POOLER=pgbouncer-transaction,
docs/scaling.md): run in the pooled pass of `make test`, whose default database is PgBouncer's.
A client's consecutive transactions may run on different server connections, and a server
connection serves other clients in between: nothing the code relies on may outlive a transaction.
"""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from audit.selectors import audit_chains_verify
from core.db_limits import TransactionLimitsWrapper, pooled_per_transaction, web_limits_set
from tables.models import Casino
from tests.factories import CasinoFactory

pytestmark = [pytest.mark.postgres, pytest.mark.pooler]


def _pooler_admin(command: str) -> list[tuple[str, ...]]:
    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"], user="postgres", dbname="pgbouncer", autocommit=True
    ) as admin:
        return [tuple(str(v) for v in row) for row in admin.execute(command).fetchall()]


def _wrapper() -> TransactionLimitsWrapper:
    """The default connection, as the mixin the project's PostgreSQL backend includes."""
    wrapper = connections["default"]
    assert isinstance(wrapper, TransactionLimitsWrapper)
    return wrapper


def _server_default(name: str) -> str:
    """A setting as a fresh connection to the pooler sees it: another client of the same pool."""
    db = settings.DATABASES["default"]
    with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"]) as other:
        row = other.execute(f"SHOW {name}").fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.django_db
def test_the_default_database_is_pgbouncer_in_transaction_pooling_with_server_side_cursors_off() -> None:
    config = {row[0]: row[1] for row in _pooler_admin("SHOW CONFIG")}
    assert config["pool_mode"] == "transaction"
    assert settings.DATABASE_POOLER == "pgbouncer-transaction"
    assert settings.DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"] is None
    assert pooled_per_transaction(connection) is True
    assert isinstance(connections["default"], TransactionLimitsWrapper)
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('port')")
        assert cursor.fetchone() == ("5432",)  # the server behind the pooler, not the pooler's port
    assert str(settings.DATABASES["default"]["PORT"]) != "5432"


@pytest.mark.django_db(transaction=True)
def test_iterator_outside_a_transaction_reads_every_row_without_a_server_side_cursor() -> None:
    for n in range(5):
        CasinoFactory(name=f"Casino {n}")
    with CaptureQueriesContext(connection) as queries:
        names = [c.name for c in Casino.objects.order_by("name").iterator(chunk_size=2)]
    assert names == [f"Casino {n}" for n in range(5)]
    assert not any("DECLARE" in q["sql"].upper() for q in queries)


@pytest.mark.django_db(transaction=True)
def test_the_audit_walk_keeps_its_server_side_cursor_inside_its_own_transaction() -> None:
    """audit/chain_walk.py opens its cursor inside transaction.atomic(): a WITHOUT HOLD cursor that
    lives and dies with the transaction, on the one server connection the pooler lends for it."""
    from tables import services

    for n in range(4):
        services.casino_create(actor=None, name=f"Casino {n}", levy_mode="percentage", levy_rate_bp=500)
    reports = audit_chains_verify()
    assert [r.broken for r in reports] == [[] for _ in reports]
    assert sum(r.checked for r in reports) >= 4


@pytest.mark.django_db(transaction=True)
def test_web_limits_hold_inside_each_transaction_and_reach_no_other_client() -> None:
    before = (_server_default("lock_timeout"), _server_default("statement_timeout"))
    overridden = (settings.DB_LOCK_TIMEOUT_MS, settings.DB_STATEMENT_TIMEOUT_MS)
    settings.DB_LOCK_TIMEOUT_MS, settings.DB_STATEMENT_TIMEOUT_MS = 1234, 56789
    try:
        web_limits_set(connection)
        assert _wrapper().web_limits_per_transaction is True
        for _ in range(3):  # each transaction, on whichever server connection it is lent
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT current_setting('lock_timeout'), current_setting('statement_timeout')")
                assert cursor.fetchone() == ("1234ms", "56789ms")
                # another client, meanwhile, keeps the server's defaults
                assert (_server_default("lock_timeout"), _server_default("statement_timeout")) == before
        # after COMMIT the server connection goes back to the pool as it came
        assert (_server_default("lock_timeout"), _server_default("statement_timeout")) == before
    finally:
        settings.DB_LOCK_TIMEOUT_MS, settings.DB_STATEMENT_TIMEOUT_MS = overridden
        _wrapper().web_limits_per_transaction = False


@pytest.mark.django_db(transaction=True)
def test_the_lock_timeout_refuses_a_wait_behind_the_pooler() -> None:
    """The limit set per transaction is the one PostgreSQL applies: a row held by another client is
    refused after the web's lock_timeout (55P03), not waited on."""
    from django.db import OperationalError

    casino = CasinoFactory(name="Enghien")
    db = settings.DATABASES["default"]
    overridden = settings.DB_LOCK_TIMEOUT_MS
    settings.DB_LOCK_TIMEOUT_MS = 200
    try:
        web_limits_set(connection)
        with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=db["NAME"]) as holder:
            holder.execute("SELECT 1 FROM tables_casino WHERE id = %s FOR UPDATE", [casino.pk])
            with pytest.raises(OperationalError) as refused, transaction.atomic():
                Casino.objects.select_for_update().get(pk=casino.pk)
        assert getattr(refused.value.__cause__, "sqlstate", None) == "55P03"
    finally:
        settings.DB_LOCK_TIMEOUT_MS = overridden
        _wrapper().web_limits_per_transaction = False
