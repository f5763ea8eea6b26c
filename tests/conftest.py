"""Shared fixtures: staff personas (and the tables of each profile the croupier works at, and of
each older game), service-availability markers, and the test-only flush bypass."""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection, connections
from django.db.backends.base.operations import BaseDatabaseOperations
from django.utils import translation

from ledger.services import cage_buy_in
from tables import services
from tests.factories import (
    CroupierAssignmentFactory,
    PlayerFactory,
    TableFactory,
    UserFactory,
    builtin_profile,
)

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") == "1"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(autouse=True)
def _english_at_the_start() -> None:
    """Each test starts in English, the services' language: a screen asked for in French or
    Russian leaves that language active on the thread (the middleware activates it and nothing
    deactivates it), and the next test in the same worker would read its refusals translated."""
    translation.activate(settings.LANGUAGE_CODE)


# ----------------------------------------------------------------- append-only tables vs. test flush
# pytest-django's transactional tests end with Django's `flush`, which TRUNCATEs (PostgreSQL) or
# DELETEs (SQLite) every table, and the append-only triggers rightly refuse that. Tests, and only
# tests, bypass them with a superuser-only switch, inside the flush's own transaction:
#  - PostgreSQL: SET LOCAL session_replication_role = replica (ordinary triggers do not fire;
#    reset automatically at COMMIT). Only a superuser may set it, which is why the application's
#    role must never be one (docs/deployment.md).
#  - SQLite: drop the triggers, flush, re-create them from their stored SQL, all in one transaction.
_original_execute_sql_flush = BaseDatabaseOperations.execute_sql_flush


@functools.wraps(_original_execute_sql_flush)
def _execute_sql_flush_past_triggers(self: BaseDatabaseOperations, sql_list: Iterable[str]) -> None:
    if self.connection.vendor == "postgresql":
        sql_list = ["SET LOCAL session_replication_role = replica", *sql_list]
    elif self.connection.vendor == "sqlite":
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%append_only%'"
            )
            triggers = cursor.fetchall()
        sql_list = [
            *(f'DROP TRIGGER "{name}"' for name, _ in triggers),
            *sql_list,
            *(sql for _, sql in triggers),
        ]
    _original_execute_sql_flush(self, sql_list)


# a monkeypatch is what this is (see above): mypy refuses assigning to a method
BaseDatabaseOperations.execute_sql_flush = _execute_sql_flush_past_triggers  # type: ignore[method-assign]


# ------------------------------------------------------------------------ service-dependent markers
@functools.cache
def _redis_reachable(url: str) -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1).ping())
    except redis.RedisError:
        return False


def redis_url() -> str:
    return settings.CELERY_BROKER_URL if settings.CELERY_BROKER_URL.startswith("redis") else DEFAULT_REDIS_URL


def chromium_path() -> str | None:
    return shutil.which("chromium") or (os.path.exists("/usr/bin/chromium") and "/usr/bin/chromium") or None


#: Debian's Chromium, headless, as every browser test launches it (no sandbox: CI runs as root)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless Chromium through Playwright's sync API, for the tests marked ``browser``."""
    # Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
    # still synchronous and safe (the live server answers from its own thread).
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
            # the sync API switches greenlets and Django's connections are per context: the
            # test's ORM calls opened a second connection that the test database's teardown
            # would find open
            connections.close_all()


def poppler_ready() -> bool:
    """pdftoppm and pdftotext (poppler-utils), and the PDF reports' DejaVu font."""
    return bool(shutil.which("pdftoppm") and shutil.which("pdftotext")) and os.path.exists(
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    )


@functools.cache
def _standby_streaming(url: str) -> bool:
    """A hot standby answers at ``url``: in recovery, its WAL receiver streaming."""
    import psycopg

    try:
        with psycopg.connect(f"{url}/postgres", connect_timeout=2, autocommit=True) as conn:
            row = conn.execute(
                "SELECT pg_is_in_recovery(), (SELECT status FROM pg_stat_wal_receiver)"
            ).fetchone()
    except psycopg.Error:
        return False
    return row == (True, "streaming")


@functools.cache
def _pooler_in_transaction_mode(host: str, port: str) -> bool:
    """PgBouncer answers at host:port (its admin console) with transaction pooling."""
    import psycopg

    try:
        with psycopg.connect(
            host=host, port=port, user="postgres", dbname="pgbouncer", connect_timeout=2, autocommit=True
        ) as conn:
            config = {row[0]: row[1] for row in conn.execute("SHOW CONFIG").fetchall()}
    except psycopg.Error:
        return False
    return config.get("pool_mode") == "transaction"


def standby_url() -> str:
    return str(getattr(settings, "STANDBY_DATABASE_URL", "postgres://postgres@127.0.0.1:5433"))


def pooled_default() -> bool:
    """This run's default database is PgBouncer's, in transaction pooling, and the settings know."""
    db = settings.DATABASES["default"]
    return settings.DATABASE_POOLER == "pgbouncer-transaction" and _pooler_in_transaction_mode(
        str(db.get("HOST") or "127.0.0.1"), str(db.get("PORT") or "5432")
    )


def _missing_services(item: pytest.Item) -> list[str]:
    missing = []
    if item.get_closest_marker("standby") and not _standby_streaming(standby_url()):
        missing.append(f"a hot standby streaming at {standby_url()}")
    if item.get_closest_marker("pooler") and not pooled_default():
        missing.append(
            "PgBouncer in transaction pooling as the default database (DATABASE_POOLER, DATABASE_URL)"
        )
    if item.get_closest_marker("redis") and not _redis_reachable(redis_url()):
        missing.append(f"Redis at {redis_url()}")
    if item.get_closest_marker("browser") and not chromium_path():
        missing.append("Chromium (/usr/bin/chromium)")
    if item.get_closest_marker("poppler") and not poppler_ready():
        missing.append("poppler-utils (pdftoppm, pdftotext) and fonts-dejavu-core")
    return missing


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` go first, the rest keep their order. pytest-django's own sort runs
    next (a conftest's hook before a plugin's) and, being stable, keeps them first within each of
    Django's groups (tests on the database, then transactional ones, then the rest). With
    pytest-xdist's ``--dist worksteal`` (make test) a worker that runs out of tests takes half of
    another's queue, so the long tests, started early, end beside the short ones: left where they
    were collected, the browser nights once ran one after another on one worker while the other
    stood idle for twenty minutes. Every worker sorts alike, as xdist requires."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("postgres") and connection.vendor != "postgresql":
        # Not a missing service: this run's database is another one by choice (DATABASE_URL), the
        # portable subset on SQLite that CI runs beside the PostgreSQL suite (.ci/run). A
        # PostgreSQL that is down fails every test at its first query instead.
        pytest.skip(f"PostgreSQL only: this run's database is {connection.vendor}")
    missing = _missing_services(item)
    if not missing:
        return
    if REQUIRE_SERVICES:
        # CI sets REQUIRE_SERVICES=1: a missing service is a failure there, never a quiet skip.
        pytest.fail(f"REQUIRE_SERVICES=1 but unavailable: {', '.join(missing)}", pytrace=False)
    pytest.skip(f"unavailable: {', '.join(missing)}")


# --------------------------------------------------------------------------------------- personas
@pytest.fixture
def table(db):
    return TableFactory()


@pytest.fixture
def other_table(db, table):
    return TableFactory(casino=table.casino)


@pytest.fixture
def croupier(db, table):
    """A croupier assigned to ``table`` for a shift that covers now."""
    user = UserFactory(username="croupier", roles=["croupier"])
    CroupierAssignmentFactory(user=user, table=table)
    return user


@pytest.fixture
def other_croupier(db, other_table):
    """A croupier on shift now, but at another table."""
    user = UserFactory(username="other_croupier", roles=["croupier"])
    CroupierAssignmentFactory(user=user, table=other_table)
    return user


@pytest.fixture
def pit_boss(db, table):
    """The pit boss of ``table``'s casino (he works there: tables.models.CasinoStaff)."""
    return UserFactory(username="pitboss", roles=["pit_boss"], casinos=[table.casino])


@pytest.fixture
def accountant(db, table):
    """Accounting of ``table``'s casino."""
    return UserFactory(username="accountant", roles=["accountant"], casinos=[table.casino])


@pytest.fixture
def cashier(db, table):
    """The cage of ``table``'s casino: sells chips and cashes them in, registers players."""
    return UserFactory(username="cashier", roles=["cashier"], casinos=[table.casino])


@pytest.fixture
def group_auditor(db):
    """Reads every casino of the group, works for none, changes nothing."""
    return UserFactory(username="auditor", roles=["group_auditor"])


@pytest.fixture
def compliance_officer(db, table):
    """Compliance of ``table``'s casino: reviews the cage's cash logs, files the reports."""
    return UserFactory(username="compliance", roles=["compliance"], casinos=[table.casino])


@pytest.fixture
def outsider(db):
    """A staff account in no group at all."""
    return UserFactory(username="outsider")


# ------------------------------------------ a table of each profile the croupier persona works at
def _table_for(croupier, table, slug: str):
    other = TableFactory(casino=table.casino, profile=builtin_profile(slug))
    CroupierAssignmentFactory(user=croupier, table=other)
    return other


@pytest.fixture
def club_table(croupier, table):
    return _table_for(croupier, table, "club")


@pytest.fixture
def home_table(croupier, table):
    return _table_for(croupier, table, "home")


@pytest.fixture
def classic_table(croupier, table):
    return _table_for(croupier, table, "classic")


# ------------------------------------------------- a table of each older game the croupier works at
#: house settings of the older games' tables in tests (docs/games/)
GAME_SETTINGS: dict[str, dict[str, Any]] = {
    "macao": {"unit": 10},
    "landsknecht": {"min_stake": 10, "fund_due": 10},
    "old-baccarat": {"min_stake": 10},
}


@pytest.fixture
def game_table(croupier, table) -> Callable[..., tuple[Any, Any, list[Any]]]:
    """``game_table("macao", players=4, chips=1000)``: a new table of that game the croupier
    persona works at, its open session and its seated players (seats 1..n), who hold ``chips``.
    Used by tests/tables/games (the services) and tests/tables/api (the REST API)."""

    def make(game: str, *, players: int = 4, chips: int = 1000, settings: dict[str, Any] | None = None):
        t = TableFactory(casino=table.casino, game=game, game_settings=settings or GAME_SETTINGS[game])
        CroupierAssignmentFactory(user=croupier, table=t)
        session = services.table_session_open(actor=croupier, table=t)
        seated = []
        for n in range(1, players + 1):
            player = PlayerFactory(casino=t.casino)
            if chips:
                cage_buy_in(
                    casino=t.casino, player=player, amount=chips, actor=croupier, key=f"buy:{player.pk}"
                )
            services.seat_take(actor=croupier, session=session, player=player, number=n)
            seated.append(player)
        return t, session, seated

    return make
