"""The README's default database (SQLite, ``make run``): a long read does not stop the tables.

In SQLite's default journal a reader holds the database's read lock for as long as it reads, and a
writer's COMMIT waits for every reader: an accountant's report streaming the audit trail made every
croupier's step wait the 20-s busy time-out, then fail (503). The settings put the database in
write-ahead logging (casino/settings/base.py), where readers and the writer do not wait for each
other. Two connections of the project's own backend, on a database file as ``make run`` has one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.db.utils import load_backend

pytestmark = pytest.mark.skipif(
    connections["default"].vendor != "sqlite", reason="the SQLite default's journal: the suite's SQLite pass"
)


@pytest.fixture(autouse=True)
def own_files(django_db_blocker: Any) -> Any:
    """These connections are to files of the test's own, not to the test database."""
    with django_db_blocker.unblock():
        yield


def connect(path: Path, alias: str, *, timeout: float) -> Any:
    """A connection like the default's (its backend, its options), to the database file ``path``."""
    conf = {**connections.settings["default"], "NAME": str(path)}
    conf["OPTIONS"] = {**conf["OPTIONS"], "timeout": timeout}
    wrapper = load_backend(conf["ENGINE"]).DatabaseWrapper(conf, alias)
    wrapper.ensure_connection()
    return wrapper


def test_the_default_database_keeps_a_write_ahead_log(tmp_path: Path) -> None:
    db = connect(tmp_path / "db.sqlite3", "wal-check", timeout=1)
    try:
        with db.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone() == ("wal",)
    finally:
        db.close()


def test_a_reader_half_way_through_does_not_stop_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    reader, writer = connect(path, "reader", timeout=1), connect(path, "writer", timeout=1)
    try:
        with reader.cursor() as cursor:
            cursor.execute("CREATE TABLE steps (n INTEGER)")
            cursor.executemany("INSERT INTO steps VALUES (%s)", [(n,) for n in range(500)])
        streaming = reader.connection.cursor()  # a report's fetch loop, one row in
        streaming.execute("SELECT n FROM steps ORDER BY n")
        assert streaming.fetchone() == (0,)
        with writer.cursor() as cursor:  # a croupier's step: committed at once, not after 1 s
            cursor.execute("INSERT INTO steps VALUES (500)")
        with writer.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM steps")
            assert cursor.fetchone() == (501,)
        # the reader goes on with the snapshot it started with
        assert len(streaming.fetchall()) == 499
        streaming.close()
    finally:
        reader.close()
        writer.close()
