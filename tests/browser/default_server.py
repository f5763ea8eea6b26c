"""The product as the README's ``make run`` serves it, for the tests that play on it: the README's
settings module (``manage.py``'s default, ``casino.settings.base``), SQLite, Celery tasks run
in-process (no ``CELERY_BROKER_URL``), ``load_demo``'s data, Django's development server.

The one difference from a new user's ``make run``: the database file is a fresh one in a temporary
folder (``DATABASE_URL=sqlite:///…``), not ``var/db.sqlite3``, so a developer's own demo database is
never touched. Everything else goes through ``make run`` itself (its install step finds everything
installed, then migrate, load_demo, runserver).

The server is another process: the test reaches it through its screens and, at the end, through
the management commands a user would run (``trial_balance``, ``verify_audit``, ``verify_books``).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"


@dataclass(frozen=True)
class DefaultServer:
    url: str
    database: Path
    env: dict[str, str]
    log: Path

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``python manage.py <args>`` against the server's database, as the user would run it."""
        return subprocess.run(
            [str(PYTHON), "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=check,
            timeout=300,
        )

    def assert_sound(self) -> None:
        """After a night: the books balance, the audit chain and the books verify, and the server's
        log holds no 5xx answer and no traceback."""
        assert "balanced" in self.manage("trial_balance").stdout
        assert "audit chain OK" in self.manage("verify_audit").stdout
        assert "books OK" in self.manage("verify_books").stdout
        lines = self.log.read_text().splitlines()
        errors = [line for line in lines if re.search(r'" 5\d\d \d+$', line) or "Traceback" in line]
        assert errors == [], "\n".join(errors[:20])


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _environment(database: Path) -> dict[str, str]:
    """The user's environment with nothing of the test run's: no settings module (manage.py's
    default applies), no broker (tasks in-process), the fresh SQLite file."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "CELERY_", "DATABASE_", "REDIS_", "READ_REPLICA", "PYTEST"))
    }
    env["DATABASE_URL"] = f"sqlite:///{database}"
    env["PYTHONUNBUFFERED"] = "1"
    return env


@contextmanager
def default_server(folder: Path) -> Iterator[DefaultServer]:
    """``make run`` on a fresh SQLite database in ``folder``; yields once the login page answers,
    stops the server (its whole process group) afterwards."""
    database = folder / "db.sqlite3"
    env = _environment(database)
    port = free_port()
    log = folder / "make-run.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            ["make", "-s", "run", f"HOST=127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: runserver's reloader child stops with it
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            if server.poll() is not None:
                raise AssertionError(f"make run exited with {server.returncode}:\n{log.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(f"{url}/accounts/login/", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"make run did not serve within 240 s:\n{log.read_text()[-4000:]}")
            time.sleep(0.5)
        yield DefaultServer(url=url, database=database, env=env, log=log)
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)
