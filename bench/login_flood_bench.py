"""Benchmark: a croupier's steps while six clients flood the logins with wrong passwords from
rotating usernames and addresses (issue 20, item 3). A plain script: it prints numbers, asserts
nothing.

    .venv/bin/python bench/login_flood_bench.py [--seconds 30] [--workers 3] [--clients 6] [--rate 12]

What it runs, on this machine: its own PostgreSQL database (``chemin_login_flood``, re-created),
one table in play (bench/multitable_bench.py's set-up), and ``gunicorn casino.wsgi`` as the
README's production command has it (``--workers`` sync workers, the production settings: the
real PBKDF2 hasher, ``TRUSTED_PROXIES=127.0.0.1``, the login budget counted in Redis db 14 or
``FLOOD_CACHE_URL``). One REST client plays coups step by step as the croupier's tablet; each
flood client is a process posting a wrong password without pause, in turn to the token endpoint
(JSON) and to the login form (with its CSRF token), each time as a new username and, through
``X-Forwarded-For`` from the trusted proxy address, a new client address: no lockout and no
per-name or per-address counter ever bites, only the site's budget.

Rounds (each ``--seconds`` of recorded steps), on one server with the budget as deployed, then on
one with the budget off (``LOGIN_BUDGET_PER_*=0``, the baseline of the same run):
  quiet       no flood
  flood       the flood
It prints the croupier's step p50 / p99 per round side by side, the flood's answers by status, the
load average, and the ratio flood p99 / quiet p99 for each server. The baseline of each flood
figure is therefore the quiet round of the same server in the same run; the final ``summary``
lines (bench/baseline.py) give, for each server, the flood p50 and p99 beside the quiet ones and
the ratios, with the load average at the start and the end.

The flood processes run at nice 10: on a real floor the attackers' CPU is not the server's, and
on two cores six unthrottled client processes would otherwise measure their own cost.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

os.environ.setdefault("BENCH_DB_NAME", "chemin_login_flood")
# one audit key for the set-up (in this process) and the server: the chain they write together
os.environ.setdefault("AUDIT_HMAC_KEY", "flood-audit-" + uuid.uuid4().hex * 2)
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import multitable_bench as mt  # noqa: E402  (after BENCH_DB_NAME is set)
from bench import soak  # noqa: E402
from bench.baseline import BenchRun  # noqa: E402

CACHE_URL = os.environ.get("FLOOD_CACHE_URL", "redis://127.0.0.1:6379/14")


def server_env(workdir: Path, *, budget: bool, per_second: int | None = None) -> dict[str, str]:
    """bench/soak.py's production environment, without a broker (tasks in-process: this bench
    runs no worker) and with the login budget in ``CACHE_URL``."""
    env = {**soak.server_env(workdir), "CELERY_BROKER_URL": "", "CACHE_URL": CACHE_URL, "LOG_LEVEL": "ERROR"}
    if per_second is not None:
        env["LOGIN_BUDGET_PER_SECOND"] = str(per_second)
    if not budget:
        env.update(LOGIN_BUDGET_PER_USERNAME="0", LOGIN_BUDGET_PER_ADDRESS="0", LOGIN_BUDGET_PER_SECOND="0")
    return env


def flooder(n: int, port: int, stop: Any, answers: Any) -> None:
    """One flooding client, in its own process: wrong passwords as fresh names and addresses."""
    os.nice(10)
    conn = http.client.HTTPConnection(mt.HOST, port, timeout=60)
    csrf = soak.csrf_pair(conn)
    seen: Counter[str] = Counter()
    i = 0
    while not stop.is_set():
        i += 1
        path, status, _html = soak.flood_attempt(conn, n, i, csrf)
        seen[f"{status or 'no answer'} {path}"] += 1
    conn.close()
    answers.put(dict(seen))


# ------------------------------------------------------------------------------------- a round
def run_round(croupier: mt.Client, port: int, seconds: float, clients: int, rate: float) -> dict[str, Any]:
    """``seconds`` of the croupier's recorded steps (``rate`` a second), with ``clients`` flooders
    (0: quiet)."""
    croupier.port = port
    croupier.conn = http.client.HTTPConnection(mt.HOST, port, timeout=60)
    croupier.tally = mt.Tally()
    croupier.recording = False
    croupier.interval, croupier.next_at = 1 / rate, time.monotonic()
    stop_play = threading.Event()
    player = threading.Thread(target=croupier.play, args=(stop_play,), daemon=True)
    player.start()
    # warm-up, not counted: every worker imported and connected, the croupier a few coups in
    warm, deadline = croupier.done + 20, time.monotonic() + 60
    while croupier.done < warm and time.monotonic() < deadline and not croupier.tally.stopped:
        time.sleep(0.2)
    context = multiprocessing.get_context("fork")
    stop_flood, answers = context.Event(), context.Queue()
    flood = [context.Process(target=flooder, args=(n, port, stop_flood, answers)) for n in range(clients)]
    for process in flood:
        process.start()
    if flood:
        time.sleep(3)  # the flood under way before anything is counted
    croupier.recording = True
    started = time.monotonic()
    time.sleep(seconds)
    croupier.recording = False
    wall = time.monotonic() - started
    load = os.getloadavg()
    stop_flood.set()
    flood_answers: Counter[str] = Counter()
    for _ in flood:
        flood_answers.update(answers.get(timeout=120))
    for process in flood:
        process.join(timeout=60)
    stop_play.set()
    player.join(timeout=120)
    steps = croupier.tally.latencies
    return {
        "steps": len(steps),
        "p50": statistics.median(steps) if steps else float("nan"),
        "p99": mt.percentile(steps, 0.99) if steps else float("nan"),
        "errors": dict(croupier.tally.errors),
        "stopped": croupier.tally.stopped,
        "flood": dict(flood_answers),
        "flood_per_second": sum(flood_answers.values()) / wall if flood else 0.0,
        "load": load,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="recorded seconds per round")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers (the README's 3)")
    parser.add_argument("--clients", type=int, default=6, help="flooding clients")
    parser.add_argument(
        "--rate",
        type=float,
        default=12.0,
        help="the croupier's steps a second (under the API's 1,200 a minute for one user: a tablet "
        "played flat out is throttled, and the coup it leaves open stops the next rounds)",
    )
    parser.add_argument(
        "--per-second", type=int, default=None, help="LOGIN_BUDGET_PER_SECOND (default: the settings')"
    )
    args = parser.parse_args()
    with BenchRun("login_flood_bench") as bench:
        measure(args, bench)
    return 0


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    workdir = Path(tempfile.mkdtemp(prefix="login-flood-"))
    mt.recreate_database(mt.DB_NAME)
    (rig,) = mt.setup(1)
    croupier = mt.Client(rig, 0, mt.Tally())
    collected = False
    port = mt.free_port()
    results: dict[str, dict[str, Any]] = {}
    for label, budget in (("budget on", True), ("budget off", False)):
        env = server_env(workdir, budget=budget, per_second=args.per_second)
        if not collected:  # the production settings serve collected static files (the login page's)
            import subprocess

            done = subprocess.run(
                [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
                cwd=ROOT, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode:
                raise SystemExit(f"collectstatic failed:\n{done.stdout}{done.stderr}")
            collected = True
        import redis

        redis.Redis.from_url(CACHE_URL).flushdb()  # each server starts with whole budgets
        server = mt.start_gunicorn(port, args.workers, 1, workdir / "gunicorn.log", env=env)
        try:
            for round_name, clients in (("quiet", 0), ("flood", args.clients)):
                figures = run_round(croupier, port, args.seconds, clients, args.rate)
                results[f"{label}, {round_name}"] = figures
                print(f"  {label}, {round_name}: done", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=60)

    print(
        f"\ncroupier's step POST, ms ({args.workers} sync workers, {args.clients} flooding clients, "
        f"{args.seconds:.0f} s a round, {args.rate:g} steps/s offered)"
    )
    print(f"{'round':<22} {'steps':>6} {'p50':>8} {'p99':>8}  {'load 1/5/15':<17} flood answers/s, by status")
    for name, r in results.items():
        load = "/".join(f"{x:.1f}" for x in r["load"])
        flood = ", ".join(f"{k}: {v}" for k, v in sorted(r["flood"].items())) or "-"
        print(
            f"{name:<22} {r['steps']:>6} {r['p50']:>8.1f} {r['p99']:>8.1f}  {load:<17} "
            f"{r['flood_per_second']:.0f}/s ({flood})"
        )
        if r["errors"] or r["stopped"]:
            print(f"{'':<22} refused: {r['errors']} {r['stopped']}")
    for label in ("budget on", "budget off"):
        quiet, flooded = results[f"{label}, quiet"], results[f"{label}, flood"]
        print(f"{label}: flood p99 / quiet p99 = {flooded['p99'] / quiet['p99']:.2f}")
        if min(quiet["steps"], flooded["steps"]) < 50:  # a p99 of a few steps is its maximum
            print(f"  CAUTION {label}: a round recorded fewer than 50 steps; run longer rounds (--seconds)")
        key = label.replace(" ", "_")
        base = f"the croupier's quiet round, {label}, same run"
        bench.add(
            f"flood_p50_{key}", figure=flooded["p50"], baseline=quiet["p50"], unit="ms", baseline_label=base
        )
        bench.add(
            f"flood_p99_{key}", figure=flooded["p99"], baseline=quiet["p99"], unit="ms", baseline_label=base
        )


if __name__ == "__main__":
    raise SystemExit(main())
