"""The project's PostgreSQL backend with statements bound by the server and prepared once a
connection has run them (casino/settings, DATABASE_PREPARE_THRESHOLD): the suite's PostgreSQL pass
runs on it, so every query of the suite is checked under it; here what it is for and its limit."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import NotSupportedError, connection, transaction

from audit.backends.postgresql.base import SERVER_BOUND_PARAMS
from core.errors import stale_prepared_plan
from core.models import LoginFailure
from core.transient import run_retrying

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

AT = dt.datetime(2026, 12, 6, 21, 0, tzinfo=dt.UTC)


def _prepared() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


def test_a_connection_prepares_a_statement_once_it_has_run_it_more_than_the_threshold() -> None:
    assert getattr(connection.features, "uses_server_side_binding", None) is True  # PostgreSQL's own
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    assert threshold == 5
    asked = "SELECT COUNT(*) FROM core_loginfailure WHERE username = %s"
    seen = "SELECT COUNT(*) FROM core_loginfailure WHERE username = $1"  # the server's own placeholders
    with connection.cursor() as cursor:
        for run in range(threshold):
            cursor.execute(asked, [f"user-{run}"])
            assert cursor.fetchone() == (0,)
    assert seen not in _prepared()
    with connection.cursor() as cursor:
        cursor.execute(asked, ["one-run-more"])
        assert cursor.fetchone() == (0,)
    assert _prepared().count(seen) == 1


def test_a_bulk_create_past_the_protocols_parameter_limit_is_split_below_it() -> None:
    fields = [f for f in LoginFailure._meta.concrete_fields if not f.primary_key]
    assert len(fields) == 7
    rows = 10_000  # 70,000 parameters in one INSERT: more than the server binds
    assert rows * len(fields) > SERVER_BOUND_PARAMS == 65_535
    assert connection.features.max_query_params == SERVER_BOUND_PARAMS
    assert connection.ops.bulk_batch_size(fields, range(rows)) == 9_362  # 65,535 // 7
    LoginFailure.objects.bulk_create(
        [LoginFailure(occurred_at=AT, username=f"u{n}", ip="10.0.0.1") for n in range(rows)]
    )
    assert LoginFailure.objects.count() == rows
    assert LoginFailure.objects.filter(username="u9999").count() == 1


# ------------------------------------------------- a statement prepared before a migration ran

PROBE_SELECT = "SELECT x FROM plan_probe WHERE x > %s"


def _probe_table() -> None:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE plan_probe (x integer)")
        cursor.execute("INSERT INTO plan_probe VALUES (7)")


def _probe_prepared() -> None:
    """The probe's SELECT run past the threshold on the project's connection, so it is prepared."""
    with connection.cursor() as cursor:
        for _ in range(6):
            cursor.execute(PROBE_SELECT, [0])
            assert cursor.fetchone() == (7,)
    assert "SELECT x FROM plan_probe WHERE x > $1" in _prepared()


def _migrated_elsewhere() -> None:
    """What a release's ``migrate`` does while this process runs: another connection changes the
    type of the column the prepared statement returns."""
    with psycopg.connect(**_direct(), autocommit=True) as other:
        other.execute("ALTER TABLE plan_probe ALTER COLUMN x TYPE bigint")


def _direct() -> dict[str, Any]:
    db = connection.settings_dict
    return {
        "host": db["HOST"] or "127.0.0.1",
        "port": db["PORT"] or 5432,
        "user": db["USER"],
        "dbname": db["NAME"],
    }


@pytest.fixture
def plan_probe() -> Iterator[None]:
    _probe_table()
    yield
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS plan_probe")


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("plan_probe")
def test_postgresql_refuses_a_statement_prepared_before_its_result_changed_type() -> None:
    """The failure the backend guards against, on a bare psycopg connection."""
    with psycopg.connect(**_direct(), autocommit=True, prepare_threshold=0) as bare:
        assert bare.execute(PROBE_SELECT, [0]).fetchone() == (7,)
        _migrated_elsewhere()
        with pytest.raises(psycopg.errors.FeatureNotSupported) as refused:
            bare.execute(PROBE_SELECT, [0])
        assert "cached plan must not change result type" in str(refused.value)
        assert stale_prepared_plan(refused.value) is True
        with pytest.raises(psycopg.errors.FeatureNotSupported):  # and so on, on that connection
            bare.execute(PROBE_SELECT, [0])


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("plan_probe")
def test_a_read_outside_a_transaction_renews_the_stale_statement_and_runs_it_again() -> None:
    _probe_prepared()
    _migrated_elsewhere()
    with connection.cursor() as cursor:
        cursor.execute(PROBE_SELECT, [0])
        assert cursor.fetchone() == (7,)
        assert "SELECT x FROM plan_probe WHERE x > $1" not in _prepared()  # every one discarded
        for _ in range(6):  # and prepared anew once run past the threshold
            cursor.execute(PROBE_SELECT, [0])
            assert cursor.fetchone() == (7,)
    assert _prepared().count("SELECT x FROM plan_probe WHERE x > $1") == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("plan_probe")
def test_a_transaction_that_meets_a_stale_statement_is_rolled_back_and_run_once_more(
    caplog: pytest.LogCaptureFixture,
) -> None:
    _probe_prepared()
    _migrated_elsewhere()
    runs: list[int] = []

    def work() -> Any:
        with transaction.atomic():
            runs.append(len(runs) + 1)
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO plan_probe VALUES (8)")  # undone with the first run
                cursor.execute(PROBE_SELECT, [7])
                return cursor.fetchall()

    assert run_retrying(work) == [(8,)]
    assert runs == [1, 2]
    assert "a statement prepared before the schema changed, running it once more" in caplog.text
    with connection.cursor() as cursor:
        cursor.execute("SELECT x FROM plan_probe ORDER BY x")
        assert cursor.fetchall() == [(7,), (8,)]  # the first run's row rolled back with it


@pytest.mark.django_db(transaction=True)
def test_another_unsupported_feature_is_not_run_again() -> None:
    runs: list[int] = []

    def unsupported() -> None:
        with transaction.atomic():
            runs.append(1)
            LoginFailure.objects.create(occurred_at=AT, username="first-run")
            raise NotSupportedError("a feature the server lacks")  # no SQLSTATE: not a stale plan

    with pytest.raises(NotSupportedError, match="a feature the server lacks"):
        run_retrying(unsupported)
    assert runs == [1]
    assert not LoginFailure.objects.exists()
