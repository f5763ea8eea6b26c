"""Soak: many tables played for minutes while the infrastructure fails under them (a plain script:
it prints numbers and a verdict; it is not a test).

    .venv/bin/python bench/soak.py                          # 30 tables, 10 minutes
    .venv/bin/python bench/soak.py --tables 10 --minutes 2  # a quick look

What it runs, all on this machine: its own PostgreSQL database (``chemin_soak``, re-created), the
production settings (``casino.settings.production``, static files collected), gunicorn with
``--workers`` sync workers, a Celery worker and Celery beat on Redis (``redis://127.0.0.1:6379/15``
by default, ``SOAK_BROKER_URL``). One client per table plays clean coups through the REST API, as
bench/multitable_bench.py does, resending a refused or unanswered request with the same
Idempotency-Key, as a tablet would.

The faults, one every ``--every`` seconds, in turn:
  kill-web      kill -9 of one gunicorn worker (gunicorn starts another)
  redis         Redis shut down (no save), down for 8 s, started again
  pg-terminate  pg_terminate_backend() of every application connection
  kill-celery   kill -9 of the Celery worker, started again 3 s later
  login-flood   6 clients posting wrong passwords for 45 s (login form and token endpoint), a fresh
                username and address each time

At the end it stops the clients and checks, against the database:
  - every step a client was told was recorded is there once, and no step is there that no client
    was told of (lost or duplicated steps), coup by coup;
  - every settled coup has exactly one settlement posting;
  - no answer was an HTML page with a 5xx status (a JSON 503 with Retry-After is an answer);
  - ``verify_audit --anchors`` (an anchor taken at the start and one at the end) and
    ``verify_books`` exit 0.
It prints steps/s, the croupiers' step latency p50/p99 outside and during the login floods, and
the counts of each fault and each refused answer. Exit status 1 when a check fails.

Baseline, same run: the steps recorded outside the login floods are the baseline of those during
them (same tables, clients, server and faults otherwise); the final ``summary`` lines
(bench/baseline.py) give the p50 and p99 during the floods beside those outside and the ratio,
with the load average at the start and the end. It stops and restarts the machine's Redis on
port 6379: do not run it where other jobs use that Redis.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("BENCH_DB_NAME", "chemin_soak")
# One audit key for the set-up (in this process, test settings) and the servers (production
# settings): the chain they write together must verify with it at the end.
os.environ.setdefault("AUDIT_HMAC_KEY", "soak-audit-" + uuid.uuid4().hex * 2)
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import multitable_bench as mt  # noqa: E402  (after BENCH_DB_NAME is set)
from bench.baseline import BenchRun  # noqa: E402

BROKER_URL = os.environ.get("SOAK_BROKER_URL", "redis://127.0.0.1:6379/15")
REDIS_START = [
    "redis-server",
    "--daemonize",
    "yes",
    "--bind",
    "127.0.0.1",
    "-::1",
    "--port",
    "6379",
    "--save",
    "",
    "--appendonly",
    "no",
]
FLOOD_CLIENTS = 6
FLOOD_SECONDS = 45.0


# ------------------------------------------------- a login flood (bench/login_flood_bench.py too)
def csrf_pair(conn: http.client.HTTPConnection) -> tuple[str, str]:
    """The login page's CSRF cookie and form token (one pair serves every attempt)."""
    conn.request("GET", "/accounts/login/")
    response = conn.getresponse()
    page = response.read().decode(errors="replace")
    cookie = re.search(r"csrftoken=([^;]+)", response.getheader("Set-Cookie", "") or "")
    field = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if not (cookie and field):
        raise SystemExit("the login page gave no CSRF token")
    return cookie.group(1), field.group(1)


def flood_attempt(
    conn: http.client.HTTPConnection, n: int, i: int, csrf: tuple[str, str]
) -> tuple[str, int, bool]:
    """Flooding client ``n``'s attempt ``i``: a wrong password as a fresh username from a fresh
    address (through the trusted proxy's X-Forwarded-For), in turn to the token endpoint and to
    the login form. (path, status, whether the answer was HTML); status 0: no answer."""
    cookie, token = csrf
    address = f"198.18.{n % 250}.{i % 250 + 1}"
    username = f"flood-{n}-{i}"
    if i % 2:
        path = "/api/v1/auth/token/"
        body = json.dumps({"username": username, "password": f"wrong-{i}"})
        headers = {"Content-Type": "application/json", "X-Forwarded-For": address}
    else:
        path = "/accounts/login/"
        body = f"username={username}&password=wrong-{i}&csrfmiddlewaretoken={token}"
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie}",
            "X-Forwarded-For": address,
        }
    try:
        conn.request("POST", path, body, headers)
        response = conn.getresponse()
        response.read()
        return path, response.status, "html" in (response.getheader("Content-Type") or "")
    except (http.client.HTTPException, OSError):
        conn.close()
        return path, 0, False


def server_env(workdir: Path) -> dict[str, str]:
    """The production settings, on this machine, with the soak's database and broker."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.production",
        "DATABASE_URL": mt.DATABASE_URL,
        "CELERY_BROKER_URL": BROKER_URL,
        "SECRET_KEY": "soak-" + uuid.uuid4().hex * 2,
        "AUDIT_HMAC_KEY": os.environ["AUDIT_HMAC_KEY"],
        "AUDIT_ANCHOR_FILE": str(workdir / "anchors.jsonl"),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "TRUSTED_PROXIES": "127.0.0.1",  # the login flood comes "through the proxy", from many addresses
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


# ------------------------------------------------------------------------------------- the clients
@dataclass
class Ledger:
    """What the clients were told, and every answer that was not a success."""

    acknowledged: dict[int, int] = field(default_factory=dict)  # coup id → last step_count told
    settled: set[int] = field(default_factory=set)
    answers: Counter[str] = field(default_factory=Counter)  # "503 database_unavailable", ...
    html_5xx: list[str] = field(default_factory=list)
    timings: list[tuple[float, float]] = field(default_factory=list)  # (monotonic end, ms)
    lock: threading.Lock = field(default_factory=threading.Lock)


class SoakClient(mt.Client):
    """A table's tablet that keeps trying through the faults: an unanswered request or a 409/503
    is sent again with the same Idempotency-Key for up to a minute."""

    def __init__(self, rig: mt.TableRig, port: int, book: Ledger) -> None:
        super().__init__(rig, port, mt.Tally())
        self.book = book

    def post(self, path: str, body: dict[str, Any], *, count: bool = True) -> Any:
        key = uuid.uuid4().hex
        deadline = time.monotonic() + 60
        pause = 0.05
        while True:
            start = time.perf_counter()
            try:
                status, data, html = self._send_raw(path, body, key)
            except OSError as exc:  # the worker died under us: ask again, same key
                status, data, html = 0, {"code": type(exc).__name__}, False
            elapsed = (time.perf_counter() - start) * 1000
            if status in (200, 201):
                if count:
                    with self.book.lock:
                        self.book.timings.append((time.monotonic(), elapsed))
                self._remember(data)
                return data
            code = data.get("code", "") if isinstance(data, dict) else ""
            with self.book.lock:
                self.book.answers[f"{status} {code}".strip()] += 1
                if status >= 500 and html:
                    self.book.html_5xx.append(f"{status} POST {path}: {str(data)[:120]}")
            retryable = status in (0, 409, 429, 502, 503, 504) and not (
                isinstance(data, dict) and data.get("current_step")
            )
            if not retryable or time.monotonic() > deadline:
                raise mt.Refused(f"{status} {str(data)[:300]}")
            time.sleep(pause)
            pause = min(pause * 2, 1.0)

    def _send_raw(self, path: str, body: dict[str, Any], key: str) -> tuple[int, Any, bool]:
        headers = {
            "Authorization": f"Token {self.rig.token}",
            "Idempotency-Key": key,
            "Content-Type": "application/json",
        }
        try:
            self.conn.request("POST", "/api/v1" + path, json.dumps(body), headers)
            response = self.conn.getresponse()
            raw = response.read()
        except Exception as exc:  # http.client's errors are not all OSErrors
            self.conn.close()
            raise OSError(str(exc)) from exc
        content_type = response.getheader("Content-Type", "")
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw[:200].decode(errors="replace")
        return response.status, parsed, "html" in content_type

    def _remember(self, data: Any) -> None:
        coup = data.get("coup") if isinstance(data, dict) else None
        if not isinstance(coup, dict) or "id" not in coup:
            return
        with self.book.lock:
            self.book.acknowledged[coup["id"]] = max(
                self.book.acknowledged.get(coup["id"], 0), coup["step_count"]
            )
            if coup.get("state") == "settled":
                self.book.settled.add(coup["id"])


# -------------------------------------------------------------------------------------- the faults
class Faults:
    def __init__(
        self, env: dict[str, str], port: int, gunicorn: subprocess.Popen[bytes], logdir: Path
    ) -> None:
        self.env, self.port, self.gunicorn, self.logdir = env, port, gunicorn, logdir
        self.celery: subprocess.Popen[bytes] | None = None
        self.done: Counter[str] = Counter()
        self.floods: list[tuple[float, float]] = []  # (start, end) monotonic
        self.flood_answers: Counter[str] = Counter()
        self.flood_html_5xx = 0

    def start_celery(self) -> None:
        log = (self.logdir / "celery-worker.log").open("ab")
        self.celery = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("celery")),
                "-A",
                "casino",
                "worker",
                "--concurrency=1",
                "--loglevel=WARNING",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def kill_web(self) -> None:
        children = Path(f"/proc/{self.gunicorn.pid}/task/{self.gunicorn.pid}/children").read_text().split()
        if children:
            os.kill(int(random.choice(children)), signal.SIGKILL)

    def redis(self) -> None:
        subprocess.run(["redis-cli", "-p", "6379", "shutdown", "nosave"], capture_output=True, check=False)
        time.sleep(8)
        subprocess.run(REDIS_START, capture_output=True, check=True)

    def pg_terminate(self) -> None:
        import psycopg

        with psycopg.connect(f"{mt.SERVER}/postgres", autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                [mt.DB_NAME],
            )

    def kill_celery(self) -> None:
        if self.celery is not None:
            self.celery.send_signal(signal.SIGKILL)
            self.celery.wait(timeout=30)
        time.sleep(3)
        self.start_celery()

    def login_flood(self) -> None:
        """6 clients, wrong passwords as fresh usernames from fresh addresses (through the trusted
        proxy's X-Forwarded-For), to the token endpoint and the login form with its CSRF token
        (bench/login_flood_bench.py's attempt): no lockout bites, only the login budget."""
        import http.client

        stop = time.monotonic() + FLOOD_SECONDS
        lock = threading.Lock()

        def attacker(n: int) -> None:
            conn = http.client.HTTPConnection(mt.HOST, self.port, timeout=60)
            try:
                csrf = csrf_pair(conn)
            except (SystemExit, OSError, http.client.HTTPException):
                conn.close()
                return
            i = 0
            while time.monotonic() < stop:
                i += 1
                path, status, html = flood_attempt(conn, len(self.floods) * FLOOD_CLIENTS + n, i, csrf)
                with lock:
                    self.flood_answers[f"{status} {path}"] += 1
                    self.flood_html_5xx += status >= 500 and html
            conn.close()

        start = time.monotonic()
        threads = [threading.Thread(target=attacker, args=(n,), daemon=True) for n in range(FLOOD_CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.floods.append((start, time.monotonic()))

    def run(self, stop: threading.Event, every: float) -> None:
        order = ["kill_web", "redis", "pg_terminate", "kill_celery", "login_flood"]
        turn = 0
        while not stop.wait(every):
            name = order[turn % len(order)]
            turn += 1
            try:
                getattr(self, name)()
                self.done[name] += 1
            except Exception as exc:  # a fault that could not be caused is reported, not fatal
                self.done[f"{name} failed: {type(exc).__name__}: {exc}"[:120]] += 1


# ---------------------------------------------------------------------------------------- checking
def check_database(book: Ledger) -> list[str]:
    """Steps lost or duplicated, settlements missing or posted twice."""
    from django.db import connections
    from django.db.models import Count, Max

    from ledger.models import Transaction
    from tables.models import Coup, CoupStep

    connections.close_all()  # the database was restarted under us: a fresh connection
    problems = []
    recorded = dict(
        CoupStep.objects.values_list("coup").annotate(Max("index")).values_list("coup", "index__max")
    )
    counts = dict(CoupStep.objects.values_list("coup").annotate(n=Count("id")).values_list("coup", "n"))
    for coup_id, told in sorted(book.acknowledged.items()):
        last = recorded.get(coup_id, 0)
        if last != told or counts.get(coup_id, 0) != last:
            problems.append(f"coup {coup_id}: the client was told {told} steps, the database has {last}")
    for coup_id in sorted(set(recorded) - set(book.acknowledged)):
        problems.append(f"coup {coup_id}: {recorded[coup_id]} steps recorded that no client was told of")
    settled = set(Coup.objects.filter(state="settled").values_list("pk", flat=True))
    if settled != book.settled:
        problems.append(f"settled coups: {len(settled)} in the database, {len(book.settled)} told to clients")
    postings = Counter(
        Transaction.objects.filter(coup__in=settled, kind="coup_settlement").values_list("coup", flat=True)
    )
    for coup_id in sorted(settled):
        if postings[coup_id] != 1:
            problems.append(f"coup {coup_id}: {postings[coup_id]} settlement postings")
    return problems


def percentile(values: list[float], p: float) -> float:
    return mt.percentile(values, p) if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--every", type=float, default=30.0, help="seconds between faults")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with BenchRun("soak") as bench:
        return measure(args, bench)


def measure(args: argparse.Namespace, bench: BenchRun) -> int:
    random.seed(args.seed)

    logdir = Path(tempfile.mkdtemp(prefix="soak-"))
    anchors = logdir / "anchors.jsonl"
    mt.recreate_database(mt.DB_NAME)
    rigs = mt.setup(args.tables)
    env = server_env(logdir)
    for command in (("collectstatic", "--noinput"), ("audit_anchor", "--out", str(anchors))):
        result = manage(env, *command)
        if result.returncode:
            raise SystemExit(f"manage.py {' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    port = mt.free_port()
    os.environ.update({k: env[k] for k in ("DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS")})
    gunicorn = mt.start_gunicorn(port, args.workers, 1, logdir / "gunicorn.log", env=env)
    faults = Faults(env, port, gunicorn, logdir)
    faults.start_celery()
    beat = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "casino",
            "beat",
            "--loglevel=WARNING",
            f"--schedule={logdir / 'beat-schedule'}",
        ],
        cwd=ROOT,
        env=env,
        stdout=(logdir / "celery-beat.log").open("ab"),
        stderr=subprocess.STDOUT,
    )
    print(
        f"soak: {args.tables} tables, {args.minutes:g} min, a fault every {args.every:g} s; logs in {logdir}"
    )

    book = Ledger()
    clients = [SoakClient(rig, port, book) for rig in rigs]
    stop = threading.Event()
    threads = [threading.Thread(target=c.play, args=(stop,), daemon=True) for c in clients]
    fault_thread = threading.Thread(target=faults.run, args=(stop, args.every), daemon=True)
    started = time.monotonic()
    for thread in [*threads, fault_thread]:
        thread.start()
    try:
        while time.monotonic() - started < args.minutes * 60:
            time.sleep(1)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=120)
        fault_thread.join(timeout=120)
        wall = time.monotonic() - started
        gunicorn.terminate()
        gunicorn.wait(timeout=30)
        beat.terminate()
        if faults.celery is not None:
            faults.celery.terminate()
        if subprocess.run(["redis-cli", "-p", "6379", "ping"], capture_output=True, check=False).returncode:
            subprocess.run(REDIS_START, capture_output=True, check=False)

    # ------------------------------------------------------------------------------- the verdict
    during = [ms for t, ms in book.timings if any(a <= t <= b for a, b in faults.floods)]
    outside = [ms for t, ms in book.timings if not any(a <= t <= b for a, b in faults.floods)]
    print(
        f"\nsteps: {len(book.timings)} in {wall:.0f} s = {len(book.timings) / wall:.1f}/s;"
        f" coups settled {len(book.settled)}"
    )
    for label, values in (("outside floods", outside), ("during floods", during)):
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        print(f"step latency {label}: p50 {p50:.0f} ms, p99 {p99:.0f} ms ({len(values)} steps)")
    base = f"the steps outside the login floods, same run ({len(outside)} steps)"
    for q in (0.5, 0.99):
        during_q, outside_q = percentile(during, q), percentile(outside, q)
        bench.add(f"flood_step_p{round(q * 100)}", figure=during_q, baseline=outside_q,
                  unit="ms", baseline_label=base)  # fmt: skip
    print("faults caused: " + (", ".join(f"{k} x{v}" for k, v in sorted(faults.done.items())) or "none"))
    print(
        "answers other than success: "
        + (", ".join(f"{k}: {v}" for k, v in sorted(book.answers.items())) or "none")
    )
    print(
        "login flood answers: "
        + (", ".join(f"{k}: {v}" for k, v in sorted(faults.flood_answers.items())) or "none")
    )
    stopped = [c.tally.stopped for c in clients if c.tally.stopped]
    for reason in stopped:
        print(f"a client stopped: {reason}")

    problems = check_database(book)
    problems += [f"HTML 5xx: {line}" for line in book.html_5xx]
    if faults.flood_html_5xx:
        problems.append(f"HTML 5xx answered to the login flood: {faults.flood_html_5xx}")
    problems += [f"client stopped: {reason}" for reason in stopped]
    final: list[tuple[str, ...]] = [
        ("audit_anchor", "--out", str(anchors)),
        ("verify_audit", "--anchors", str(anchors)),
        ("verify_books",),
    ]
    for check in final:
        result = manage(env, *check)
        tail = (result.stdout + result.stderr).strip().splitlines()[-3:]
        print(f"manage.py {check[0]}: exit {result.returncode}: {' / '.join(tail)[:400]}")
        if result.returncode:
            problems.append(f"{check[0]} exit {result.returncode}")
    print("\nVERDICT: " + ("clean" if not problems else f"{len(problems)} problem(s)"))
    for line in problems[:50]:
        print("  " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
