"""Benchmark: many tables at once (of one casino, or spread over ``--casinos K``), each driven by its
own REST client, against gunicorn and PostgreSQL (a plain script: it prints numbers, asserts nothing).

    .venv/bin/python bench/multitable_bench.py                       # N = 1, 5, 10, 30; 60 s each
    .venv/bin/python bench/multitable_bench.py --seconds 15 --tables 1,5,10,30
    .venv/bin/python bench/multitable_bench.py --workers 2 --threads 1   # gunicorn's, the defaults
    .venv/bin/python bench/multitable_bench.py --tables 30 --casinos 3   # 10 tables per casino

Creates its own PostgreSQL database (``chemin_multitable``, dropped and re-created on every run;
the server is ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it
and sets up, through the services, one casino with as many tables as the largest N: at each table
its own croupier (token), four players who bought chips at the cage (``cage_buy_in``), a session,
a shoe and a banker. Then it starts ``gunicorn casino.wsgi`` (``--workers`` sync workers, on
127.0.0.1 only) and, for each N, runs N clients — one thread per table, each on its own table —
that play clean coups step by step through the API (bench/coup_steps.py, as step_bench.py does)
for ``--seconds``. Per N it prints the steps per second (every successful POST: banks declared and
steps), the latency's median and p99, the refused requests by status, and the deadlocks
PostgreSQL detected (``pg_stat_database.deadlocks``) and the transactions the server ran once
more (its "running it once more" log lines). Goal: no error and no deadlock at any N, and at
N = 10 at least twice the steps per second of N = 1.

Then, per N, where the CPU went (bench/proc_cpu.py, from /proc): CPU ms per step of gunicorn, of
the PostgreSQL backends of the bench's database, of PostgreSQL's shared processes, of this client
and of the rest of the machine, the cores busy, and the ceiling ``cores / CPU per step`` over
N = 1's steps/s: the most N tables can gain over one, whatever else shares the machine. gunicorn
keeps its database connections (``CONN_MAX_AGE=60``, as production does).

``--rate R`` paces the clients: together they offer R steps per second (each table one step every
N / R seconds, as croupiers record steps at their own pace rather than back to back), and the
latency is then the latency at that load; without it (the default) every client sends its next
step as soon as the last is answered, which measures the most the server can do, and a latency
that is mostly the queue of N waiting clients (about N / steps-per-second).

Baseline, in the same gunicorn session: after each N's steps, the same N clients (the same
tables' croupiers' tokens, at the same ``--rate`` if any) send ``GET /api/v1/me/`` for the same
``--seconds``, measured the same way (requests/s, p50/p99, CPU per request from /proc, printed
under the step's in the CPU table, process by process). Why that
baseline: it is the cheapest authenticated request the API answers (middleware, DRF, token, one
read, a rendered answer) through the same server, workers, connections and machine in the same
minute; so steps/s ÷ ``/me/`` requests/s says how many plain requests a step is worth, and CPU per
step ÷ CPU per ``/me/`` request how many a step costs, figures the other jobs on a shared machine
move far less than steps/s. Paced (``--rate``), the throughput ratio is about 1 by construction and
the latencies' ratio is the one to read. The final ``summary`` lines (bench/baseline.py) give, for
each N, the figure, the baseline and the ratio, with the load average at the start and the end.

``--pooler URL`` puts a connection pooler between gunicorn and PostgreSQL: gunicorn's
``DATABASE_URL`` names the bench's database on that server (e.g. PgBouncer in transaction pooling,
``--pooler postgres://postgres@127.0.0.1:6432``, as .ci/pool_and_standby.sh starts it) with
``DATABASE_POOLER=pgbouncer-transaction``; the setup, the deadlock count and the CPU figures still
go to PostgreSQL directly (``BENCH_DATABASE_URL``).

A client that is refused sends the same request again (same Idempotency-Key), up to five times,
as a tablet would; a shoe near its end is closed and a new one started (not counted as steps).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import socket
import statistics
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.baseline import BenchRun  # noqa: E402
from bench.database import SERVER, bench_db_name, recreate_database  # noqa: E402
from bench.proc_cpu import GROUPS, CpuMeter  # noqa: E402

DB_NAME = bench_db_name("chemin_multitable")  # bench/soak.py and login_flood_bench.py set their own
DATABASE_URL = f"{SERVER}/{DB_NAME}"
SETTINGS = "casino.settings.test"  # DEBUG off, fast password hashing, Celery in-process
os.environ["DATABASE_URL"] = DATABASE_URL
os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS
HOST = "127.0.0.1"  # traffic to this machine only


def deadlocks_so_far() -> int:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        row = conn.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = %s", [DB_NAME]).fetchone()
        return int(row[0]) if row else 0


# ------------------------------------------------------------------------------------------ setup
@dataclass
class TableRig:
    table_id: int
    token: str


def setup(count: int, casinos: int = 1) -> list[TableRig]:
    """``count`` tables in play spread over ``casinos`` casinos, table t at casino t mod K (through
    the services, in this process): each casino has its own audit chain (docs/audit.md)."""
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from access.services.tokens import api_token_create
    from bench.coup_steps import DECKS
    from ledger import services as ledger
    from tables import services
    from tables.models import RuleProfile

    call_command("migrate", verbosity=0)
    now = timezone.now()
    houses = [
        services.casino_create(actor=None, name=f"Bench casino {k}", levy_mode="percentage", levy_rate_bp=500)
        for k in range(1, casinos + 1)
    ]
    profile = RuleProfile.objects.get(slug="casino")
    rigs = []
    for t in range(1, count + 1):
        casino = houses[(t - 1) % casinos]
        croupier = services.staff_member_create(
            actor=None,
            username=f"bench-croupier-{t}",
            password="bench-password-123",
            roles=["croupier"],
            casinos=[casino],
        )
        table = services.table_create(actor=None, casino=casino, name=f"Bench {t}", profile=profile)
        services.croupier_assignment_create(
            actor=None,
            user=croupier,
            table=table,
            shift_start=now - dt.timedelta(hours=1),
            shift_end=now + dt.timedelta(hours=12),
        )
        session = services.table_session_open(actor=croupier, table=table)
        seats = {}
        for n in (1, 2, 3, 4):
            player = services.player_create(actor=croupier, casino=casino, display_name=f"T{t} player {n}")
            ledger.cage_buy_in(
                casino=casino, player=player, amount=1_000_000, actor=croupier, key=f"buyin:{t}:{n}"
            )
            seats[n] = services.seat_take(actor=croupier, session=session, player=player, number=n)
        services.shoe_start(actor=croupier, session=session, decks=DECKS, burnt_cards=["2C", "3C", "4C"])
        services.bank_first_assign(actor=croupier, session=session, seat=seats[1])
        rigs.append(TableRig(table.pk, api_token_create(user=croupier)))
    from django.db import connections

    connections.close_all()
    return rigs


# ----------------------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def start_gunicorn(
    port: int, workers: int, threads: int, log: Path, env: dict[str, str] | None = None, pooler: str = ""
) -> subprocess.Popen[bytes]:
    # persistent database connections, as production has them (casino/settings/production.py);
    # bench/soak.py passes the production settings' environment itself
    env = env or {
        **os.environ,
        "DATABASE_URL": f"{pooler.rstrip('/')}/{DB_NAME}" if pooler else DATABASE_URL,
        "DATABASE_POOLER": "pgbouncer-transaction" if pooler else "",
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "CONN_MAX_AGE": "60",
    }
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "casino.wsgi:application",
        f"--bind={HOST}:{port}",
        f"--workers={workers}",
        f"--threads={threads}",
        "--log-level=warning",
        "--timeout=120",
    ]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=1):
                return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit(f"gunicorn exited: see {log}") from None
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start within 60 s")


# ----------------------------------------------------------------------------------------- client
@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)  # ms, successful POSTs in the window
    errors: Counter[str] = field(default_factory=Counter)  # "409 retry", "500", ...
    shoes: int = 0
    stopped: str = ""


class Refused(Exception):
    pass


class Client:
    """One table's tablet: plays coups through the API until told to stop. Kept from one N to the
    next: it knows its table's shoe (the cards dealt) and bank."""

    def __init__(self, rig: TableRig, port: int, tally: Tally) -> None:
        from bench.coup_steps import Cards

        self.rig, self.port, self.tally = rig, port, tally
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)
        self.cards = Cards()
        self.bank = 300
        self.recording = False
        self.done = 0  # successful POSTs, warm-up included
        self.interval = 0.0  # --rate: seconds between two of this table's steps (0: no pause)
        self.next_at = 0.0

    def _send(self, path: str, body: dict[str, Any], key: str) -> tuple[int, Any]:
        payload = json.dumps(body)
        headers = {
            "Authorization": f"Token {self.rig.token}",
            "Idempotency-Key": key,
            "Content-Type": "application/json",
        }
        for attempt in (1, 2):  # a connection the server closed (sync workers do) is opened again
            try:
                self.conn.request("POST", "/api/v1" + path, payload, headers)
                response = self.conn.getresponse()
                data = response.read()
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                if attempt == 2:
                    raise
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = data[:200].decode(errors="replace")
        return response.status, parsed

    def pace(self) -> None:
        """Wait for this table's next slot (``--rate``); a client behind its schedule goes at once."""
        if self.interval:
            now = time.monotonic()
            if self.next_at > now:
                time.sleep(self.next_at - now)
            self.next_at = max(self.next_at, now) + self.interval

    def post(self, path: str, body: dict[str, Any], *, count: bool = True) -> Any:
        if count:
            self.pace()
        key = uuid.uuid4().hex
        for _ in range(5):  # a refused request is sent again with the same key, as a tablet would
            start = time.perf_counter()
            status, data = self._send(path, body, key)
            elapsed = (time.perf_counter() - start) * 1000
            if status in (200, 201):
                self.done += 1
                if count and self.recording:
                    self.tally.latencies.append(elapsed)
                return data
            if self.recording:
                code = data.get("code", "") if isinstance(data, dict) else ""
                self.tally.errors[f"{status} {code}".strip()] += 1
            if status not in (409, 503) or (isinstance(data, dict) and data.get("current_step")):
                raise Refused(f"{status} {str(data)[:300]}")
            time.sleep(0.05)
        raise Refused(f"{status} five times: {str(data)[:300]}")

    def new_shoe(self) -> None:
        from bench.coup_steps import DECKS, Cards

        table = f"/tables/{self.rig.table_id}"
        self.post(table + "/shoe/close/", {"reason": "bench: next shoe"}, count=False)
        self.post(table + "/shoe/", {"decks": DECKS, "burnt_cards": ["2C", "3C", "4C"]}, count=False)
        self.cards = Cards()
        self.tally.shoes += 1

    def plan(self, pattern: int) -> list[dict[str, Any]]:
        from bench.coup_steps import coup_plan

        for _ in range(2):
            if self.cards.left() > 60:
                try:
                    return coup_plan(pattern, self.bank, self.cards)
                except AssertionError:  # one rank worn out before the shoe's end
                    pass
            self.new_shoe()
        raise Refused("no coup can be dealt from a new shoe")

    def play(self, stop: threading.Event) -> None:
        pattern = 0
        try:
            while not stop.is_set():
                steps = self.plan(pattern % 4)
                pattern += 1
                coup = self.post(f"/tables/{self.rig.table_id}/coups/", {"bank": self.bank})["coup"]
                for step in steps:
                    body = {"step": coup["step_count"], **step}
                    coup = self.post(f"/coups/{coup['id']}/steps/", body)["coup"]
                assert coup["state"] == "settled", coup["state"]
                self.bank = max(self.bank, coup["verdict"]["settlement"]["next_bank_min"] or self.bank)
        except Exception as exc:  # reported in the figures; the other tables go on
            self.tally.stopped = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            self.conn.close()


class MeClient(Client):
    """The baseline's client: ``GET /api/v1/me/`` with the same table's token, at the same pace as
    the table's client (``--rate``) or flat out; the latencies of successful answers recorded."""

    def play(self, stop: threading.Event) -> None:
        headers = {"Authorization": f"Token {self.rig.token}"}
        try:
            while not stop.is_set():
                self.pace()
                start = time.perf_counter()
                for attempt in (1, 2):  # a connection the server closed is opened again
                    try:
                        self.conn.request("GET", "/api/v1/me/", headers=headers)
                        response = self.conn.getresponse()
                        response.read()
                        break
                    except (http.client.HTTPException, OSError):
                        self.conn.close()
                        if attempt == 2:
                            raise
                elapsed = (time.perf_counter() - start) * 1000
                if response.status == 200:
                    self.done += 1
                    if self.recording:
                        self.tally.latencies.append(elapsed)
                elif self.recording:
                    self.tally.errors[str(response.status)] += 1
        except Exception as exc:  # reported in the figures; the other clients go on
            self.tally.stopped = f"{type(exc).__name__}: {exc}"[:300]
        finally:
            self.conn.close()


def run_phase(
    clients: list[Client], seconds: float, log: Path, meter: CpuMeter, rate: float = 0.0
) -> dict[str, Any]:
    """N clients (one per table) for ``seconds`` (together offering ``rate`` steps/s, 0: flat out);
    the figures of that window."""
    tallies = [Tally() for _ in clients]
    for client, tally in zip(clients, tallies, strict=True):
        client.tally, client.done = tally, 0
        client.interval = len(clients) / rate if rate else 0.0
        client.next_at = time.monotonic()
    stop = threading.Event()
    threads = [threading.Thread(target=c.play, args=(stop,), daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    # warm up, not counted: every worker imported and connected, every client a few steps in
    deadline = time.monotonic() + 120
    time.sleep(min(3.0, seconds / 5))
    while any(c.done < 3 and not c.tally.stopped for c in clients) and time.monotonic() < deadline:
        time.sleep(0.2)
    retried_before = log.read_text(errors="replace").count("running it once more")
    deadlocks_before = deadlocks_so_far()
    cpu_before = meter.sample()
    for client in clients:
        client.recording = True
    started = time.perf_counter()
    with meter.follow() as cpu_after:
        time.sleep(seconds)
        for client in clients:
            client.recording = False
        wall = time.perf_counter() - started
    cpu = meter.window(cpu_before, cpu_after, wall=wall)
    deadlocks = deadlocks_so_far() - deadlocks_before
    retried = log.read_text(errors="replace").count("running it once more") - retried_before
    load = os.getloadavg()
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    latencies = [ms for t in tallies for ms in t.latencies]
    errors: Counter[str] = Counter()
    for t in tallies:
        errors.update(t.errors)
    return {
        "tables": len(clients),
        "steps": len(latencies),
        "per_second": len(latencies) / wall,
        "p50": statistics.median(latencies) if latencies else float("nan"),
        "p99": percentile(latencies, 0.99) if latencies else float("nan"),
        "errors": dict(errors),
        "deadlocks": deadlocks,
        "retried": retried,
        "stopped": [t.stopped for t in tallies if t.stopped],
        "load": load,
        "cpu": cpu,
        "wall": wall,
    }


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def cpu_report(results: list[dict[str, Any]], baselines: list[dict[str, Any]]) -> None:
    """Where the CPU went, per step: what explains the scaling whatever else the machine ran.

    ``ours`` is the CPU one step costs (server, database, client); ``cores / ours`` the most steps
    a second this machine could serve if nothing else ran and nothing waited; divided by the
    steps a second one table gets alone, the most that N tables could gain over one (at N = 1
    that is ``cores x latency / CPU per step``). Under each N, the same figures for the ``/me/``
    baseline of that N, per request, so that the step's ratio can be read process by process."""
    print("\nCPU per step (ms, user + system, from /proc) and the cores busy in the window:")
    head = "".join(f" {g:>9}" for g in GROUPS)
    print(
        f"{'N':>3}{head} {'ours':>7} {'others':>8} | {'cores':>5} {'busy':>5} {'ours':>5}"
        f" | {'max/s':>6} {'ceiling':>7}"
    )
    base = results[0]["per_second"] if results else 0.0
    for figures, me in zip(results, baselines, strict=True):
        cpu, steps = figures["cpu"], figures["steps"] or 1
        wall = figures["wall"]
        ours = sum(cpu[g] for g in GROUPS)
        per_step = "".join(f" {cpu[g] / steps * 1000:>9.2f}" for g in GROUPS)
        most = cpu["cores"] / (ours / steps) if ours else float("nan")
        others = cpu["others"] / steps * 1000
        print(
            f"{figures['tables']:>3}{per_step} {ours / steps * 1000:>7.2f} {others:>8.2f}"
            f" | {cpu['cores']:>5.2f} {cpu['machine'] / wall:>5.2f} {ours / wall:>5.2f}"
            f" | {most:>6.1f} {most / base if base else float('nan'):>6.2f}x"
        )
        me_cpu, requests = me["cpu"], me["steps"] or 1
        per_request = "".join(f" {me_cpu[g] / requests * 1000:>9.2f}" for g in GROUPS)
        me_ours = sum(me_cpu[g] for g in GROUPS)
        print(
            f"{'/me/':>4}{per_request[1:]} {me_ours / requests * 1000:>7.2f}"
            f" {me_cpu['others'] / requests * 1000:>8.2f}"
            f" | {me_cpu['cores']:>5.2f} {me_cpu['machine'] / me['wall']:>5.2f}"
            f" {me_ours / me['wall']:>5.2f} |"
        )
    print(
        "(busy: cores the whole machine kept busy; ours: by gunicorn, postgres and this client;"
        " max/s: cores / our CPU per step;\n ceiling: max/s over N = 1's steps/s, the most N tables"
        " can gain over one at this CPU per step;\n /me/: the baseline of the N above, per request)"
    )


def _errors_text(figures: dict[str, Any]) -> str:
    """A phase's errors by kind (``timeout: 2, 503: 1``), or 0."""
    return ", ".join(f"{k}: {v}" for k, v in sorted(figures["errors"].items())) or "0"


def _stopped_print(figures: dict[str, Any], who: str) -> None:
    for reason in figures["stopped"]:
        print(f"      {who} stopped: {reason}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="1,5,10,30", help="the Ns to run, comma-separated")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds per N")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker")
    parser.add_argument(
        "--casinos", type=int, default=1, help="casinos the tables are spread over (each its own audit chain)"
    )
    parser.add_argument(
        "--rate", type=float, default=0.0, help="steps/s the N tables offer together (default 0: flat out)"
    )
    parser.add_argument(
        "--pooler",
        default="",
        help="gunicorn reaches PostgreSQL through this server (PgBouncer in transaction pooling), "
        "e.g. postgres://postgres@127.0.0.1:6432",
    )
    args = parser.parse_args()
    with BenchRun("multitable_bench") as bench:
        measure(args, bench)


def ours_per_request(figures: dict[str, Any]) -> float:
    """CPU ms of gunicorn, PostgreSQL and the client per successful request of a phase."""
    return sum(figures["cpu"][g] for g in GROUPS) / (figures["steps"] or 1) * 1000


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    ns = [int(n) for n in args.tables.split(",")]
    recreate_database(DB_NAME)
    started = time.perf_counter()
    rigs = setup(max(ns), args.casinos)
    print(
        f"set up {max(ns)} tables across {args.casinos} casino(s) in {time.perf_counter() - started:.1f} s "
        f"({DB_NAME})"
    )
    log = Path(tempfile.mkstemp(prefix="multitable-gunicorn-", suffix=".log")[1])
    port = free_port()
    server = start_gunicorn(port, args.workers, args.threads, log, pooler=args.pooler)
    print(
        f"gunicorn: {args.workers} sync workers x {args.threads} thread(s) on {HOST}:{port}; "
        f"database {'through the pooler ' + args.pooler if args.pooler else 'direct ' + SERVER}; "
        f"{os.cpu_count()} CPUs; {args.seconds:.0f} s per N; "
        f"{f'paced: {args.rate:g} steps/s offered' if args.rate else 'flat out'}; server log {log}\n"
    )
    print(
        f"{'N':>3} {'steps/s':>8} {'x N=1':>6} {'p50 ms':>7} {'p99 ms':>7} {'steps':>6}"
        f" {'deadlocks':>9} {'retried':>7}  {'load 1/5/15':<15} errors"
    )
    base = None
    clients = [Client(rig, port, Tally()) for rig in rigs]
    me_clients: list[Client] = [MeClient(rig, port, Tally()) for rig in rigs]
    meter = CpuMeter(server_pid=server.pid, db_name=DB_NAME)
    results, baselines = [], []
    try:
        for n in ns:
            figures = run_phase(clients[:n], args.seconds, log, meter, args.rate)
            me = run_phase(me_clients[:n], args.seconds, log, meter, args.rate)
            results.append(figures)
            baselines.append(me)
            base = base or figures["per_second"]
            errors = _errors_text(figures)
            load = "/".join(f"{x:.1f}" for x in figures["load"])
            print(
                f"{n:>3} {figures['per_second']:>8.1f} {figures['per_second'] / base:>6.2f}"
                f" {figures['p50']:>7.1f} {figures['p99']:>7.1f} {figures['steps']:>6}"
                f" {figures['deadlocks']:>9} {figures['retried']:>7}  {load:<15} {errors}",
                flush=True,
            )
            _stopped_print(figures, "a client")
            me_errors = _errors_text(me)
            step_cpu, me_cpu = ours_per_request(figures), ours_per_request(me)
            print(
                f"    baseline GET /me/, {n} clients: {me['per_second']:.1f} req/s, p50 {me['p50']:.1f} ms,"
                f" p99 {me['p99']:.1f} ms, CPU (ours) {me_cpu:.2f} ms a request, errors {me_errors};"
                f" ratios: steps/s {figures['per_second'] / me['per_second']:.2f},"
                f" p50 {figures['p50'] / me['p50']:.2f}, CPU {step_cpu / me_cpu:.2f}",
                flush=True,
            )
            _stopped_print(me, "a /me/ client")
            label = f"GET /api/v1/me/, {n} clients, same gunicorn, {args.seconds:g} s"
            bench.add(f"steps_per_s_n{n}", figure=figures["per_second"], baseline=me["per_second"],
                      unit="/s", baseline_label=label)  # fmt: skip
            bench.add(
                f"p50_ms_n{n}", figure=figures["p50"], baseline=me["p50"], unit="ms", baseline_label=label
            )
            bench.add(
                f"p99_ms_n{n}", figure=figures["p99"], baseline=me["p99"], unit="ms", baseline_label=label
            )
            bench.add(f"cpu_ms_n{n}", figure=step_cpu, baseline=me_cpu, unit="ms CPU (ours)",
                      baseline_label=label)  # fmt: skip
        cpu_report(results, baselines)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
