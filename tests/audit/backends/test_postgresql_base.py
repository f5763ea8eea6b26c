"""The project's PostgreSQL backend with statements bound by the server and prepared once a
connection has run them (casino/settings, DATABASE_PREPARE_THRESHOLD): the suite's PostgreSQL pass
runs on it, so every query of the suite is checked under it; here what it is for and its limit."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.db import connection

from audit.backends.postgresql.base import SERVER_BOUND_PARAMS
from core.models import LoginFailure

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
