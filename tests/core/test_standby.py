"""The read-replica router against a real hot standby (.ci/pool_and_standby.sh, docs/scaling.md):
its reads are answered by the standby; when the standby lags beyond READ_REPLICA_MAX_LAG_SECONDS or
does not answer, a page that reads inside replica_reads() (the pit's dashboard) reads the primary
and says so.

The ``standby`` alias (casino/settings/test.py) is the standby's copy of the test database;
a test turns the router to it with READ_REPLICA_ALIAS="standby"."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import psycopg
import pytest
from django.conf import settings
from django.db import connections, router
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.db_router import ReplicaHealth, replica_health, replica_health_forget, replica_reads
from tables.models import Casino
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.standby,
    pytest.mark.django_db(transaction=True, databases=["default", "standby"]),
]

NOTICE = "The read replica %s: these figures were read from the primary database."


@pytest.fixture(autouse=True)
def _fresh_checks() -> Iterator[None]:
    """Every test checks the standby afresh, and leaves no answer behind for the next."""
    replica_health_forget()
    yield
    replica_health_forget()


def _superuser(alias: str) -> psycopg.Connection:
    db = settings.DATABASES[alias]
    return psycopg.connect(
        host=db["HOST"],
        port=db["PORT"],
        user="postgres",
        dbname=db["NAME"],
        autocommit=True,
        connect_timeout=5,
    )


def _names_on_the_standby_within(seconds: float, expected: list[str]) -> tuple[list[str], set[str]]:
    """The casinos' names read through the router (replica_reads) until they are ``expected`` or
    ``seconds`` have passed; with the aliases the reads went to."""
    deadline = time.monotonic() + seconds
    while True:
        with replica_reads() as reads:
            names = list(Casino.objects.order_by("name").values_list("name", flat=True))
        if names == expected or time.monotonic() > deadline:
            return names, reads.served_by
        time.sleep(0.05)


def test_the_standby_alias_is_a_hot_standby_of_the_test_database() -> None:
    with connections["standby"].cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery(), current_database(), current_setting('port')")
        in_recovery, name, port = cursor.fetchone()
    assert in_recovery is True
    assert name == settings.DATABASES["default"]["NAME"]
    assert port == str(settings.DATABASES["standby"]["PORT"])
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery()")
        assert cursor.fetchone() == (False,)


@override_settings(READ_REPLICA_ALIAS="standby")
def test_a_row_committed_on_the_primary_is_read_back_by_the_router_from_the_standby() -> None:
    Casino.objects.create(name="Deauville")  # committed: the test runs in autocommit
    with CaptureQueriesContext(connections["standby"]) as on_standby:
        names, served_by = _names_on_the_standby_within(10, ["Deauville"])
    assert names == ["Deauville"]
    assert served_by == {"standby"}
    assert on_standby.captured_queries and all("tables_casino" in q["sql"] for q in on_standby)
    with replica_reads():
        alias = router.db_for_read(Casino)
    assert alias == "standby"
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery()")
        assert cursor.fetchone() == (True,)
    health = replica_health("standby")
    # 0 when it has replayed all it received; on a busy primary, the age of its last replayed
    # commit while a record is on its way: either way within the limit
    assert health.state == "ok"
    assert (
        health.lag_seconds is not None and 0.0 <= health.lag_seconds <= settings.READ_REPLICA_MAX_LAG_SECONDS
    )


def _pitboss_dashboard(client) -> tuple[int, str, list[str]]:
    """The dashboard's status, its page, and the statements it sent to the standby."""
    client.force_login(UserFactory(username="pitboss", roles=["pit_boss"]))
    with CaptureQueriesContext(connections["standby"]) as on_standby:
        response = client.get(reverse("review:dashboard"))
    return response.status_code, response.content.decode(), [q["sql"] for q in on_standby]


def _pitboss_dashboard_without_the_standby(client) -> tuple[int, str]:
    """The same, where the standby cannot even be connected to (so no capture on it): the page
    must not have tried (its connection stays unopened)."""
    connections["standby"].close()
    client.force_login(UserFactory(username="pitboss", roles=["pit_boss"]))
    response = client.get(reverse("review:dashboard"))
    assert connections["standby"].connection is None
    return response.status_code, response.content.decode()


@override_settings(READ_REPLICA_ALIAS="standby", READ_REPLICA_MAX_LAG_SECONDS=1.0)
def test_when_the_standby_lags_the_dashboard_reads_the_primary_and_says_so(client) -> None:
    """The standby's replay is paused (as a long query on it, or a slow disk, would hold it back)
    while the primary commits: its lag grows past the second allowed."""
    with _superuser("default") as primary, _superuser("standby") as standby:
        standby.execute("SELECT pg_wal_replay_pause()")
        try:
            primary.execute("CREATE TABLE IF NOT EXISTS lag_probe (at timestamptz)")
            primary.execute("INSERT INTO lag_probe VALUES (now())")
            row = primary.execute("SELECT pg_current_wal_flush_lsn()").fetchone()
            assert row is not None
            flushed = row[0]
            deadline = time.monotonic() + 10
            # the standby has received the commit and not replayed it: it is behind
            while standby.execute(
                "SELECT pg_last_wal_receive_lsn() < %s::pg_lsn", [str(flushed)]
            ).fetchone() != (False,):
                assert time.monotonic() < deadline, "the standby never received the primary's commit"
                time.sleep(0.05)
            time.sleep(1.2)  # the replayed state is now more than READ_REPLICA_MAX_LAG_SECONDS old
            health = replica_health("standby")
            status, page, on_standby = _pitboss_dashboard(client)
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")
            primary.execute("DROP TABLE IF EXISTS lag_probe")
    assert health.state == "lagging"
    assert health.lag_seconds is not None and health.lag_seconds > 1.0
    assert status == 200
    assert on_standby == []  # not one of the page's reads went to the standby
    seconds = f"{health.lag_seconds:.0f}"
    assert 'data-testid="replica-notice"' in page
    assert NOTICE % f"is {seconds} s behind" in page


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then let go): a standby that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("language", "notice"),
    [
        ("en", NOTICE % "did not answer"),
        (
            "fr",
            "La réplique en lecture n&#x27;a pas répondu : ces chiffres ont été lus sur la base principale.",
        ),
        ("ru", "Реплика для чтения не ответила: эти данные прочитаны из основной базы данных."),
    ],
)
@override_settings(READ_REPLICA_ALIAS="standby")
def test_when_the_standby_is_down_the_dashboard_reads_the_primary_and_says_so(
    client, monkeypatch, language: str, notice: str
) -> None:
    monkeypatch.setitem(settings.DATABASES["standby"], "PORT", str(_closed_port()))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    started = time.monotonic()
    status, page = _pitboss_dashboard_without_the_standby(client)
    assert status == 200
    assert time.monotonic() - started < 10  # refused at once, not a wait on a timeout
    assert replica_health("standby") == ReplicaHealth("down")
    assert notice in page


@override_settings(READ_REPLICA_ALIAS="standby")
def test_a_healthy_standby_serves_the_dashboard_and_the_page_says_nothing(client) -> None:
    status, page, on_standby = _pitboss_dashboard(client)
    assert status == 200
    assert "tables_tableday" in " ".join(on_standby)  # the hold, read from the standby
    assert 'data-testid="replica-notice"' not in page


@override_settings(READ_REPLICA_ALIAS="standby", READ_REPLICA_CHECK_SECONDS=60.0)
def test_the_check_is_made_once_for_many_blocks(monkeypatch) -> None:
    calls: list[str] = []
    import core.db_router

    real = core.db_router._probe

    def counted(alias: str) -> ReplicaHealth:
        calls.append(alias)
        return real(alias)

    monkeypatch.setattr(core.db_router, "_probe", counted)
    for _ in range(5):
        with replica_reads() as reads:
            list(Casino.objects.all())
        assert reads.served_by == {"standby"} and reads.fallback is None
    assert calls == ["standby"]


@override_settings(READ_REPLICA_ALIAS="standby")
def test_when_the_standby_is_down_the_charts_read_the_primary_and_say_so(
    client, monkeypatch, table, pit_boss
) -> None:
    monkeypatch.setitem(settings.DATABASES["standby"], "PORT", str(_closed_port()))
    connections["standby"].close()
    client.force_login(pit_boss)
    response = client.get(reverse("review:charts"), {"casino": table.casino.pk, "days": 3})
    assert response.status_code == 200
    assert connections["standby"].connection is None
    page = response.content.decode()
    assert NOTICE % "did not answer" in page
    assert '<title id="hold-chart-title">Levy hold per gaming day against the expected levy</title>' in page
