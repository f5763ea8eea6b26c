"""Benchmark: a croupier's step POSTs while anonymous clients flood the login page with wrong
passwords (issue 10: six such clients made every step 40x slower, each failure appending an audit
event under the chain's global lock). A plain script: it prints numbers, asserts nothing. Needs a
quiet machine to mean much: on a loaded one, CPU contention swamps the lock's share.

    .venv/bin/python bench/login_flood_bench.py [STEPS] [CLIENTS]    # default 150 steps, 6 clients

Runs the same steps in four rounds on its own database (``BENCH_DB_NAME``, default
``chemin_login_flood``, re-created): quiet; the flood with failures chained one by one as before
the fix (the old receiver put back, lockout off); the flood with the security log (lockout off:
the lock alone); the flood as deployed (security log + django-axes lockout). Each flood client is a
process (forked) with its own database connection, trying new usernames from its own address.
"""

from __future__ import annotations

import multiprocessing
import os
import statistics
import sys
import time
from itertools import count
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("BENCH_DB_NAME", "chemin_login_flood")

from bench import step_bench  # noqa: I001  (first: creates the database and sets Django up)
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_login_failed
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import setup_test_environment

from audit.models import AuditEvent
from audit.services import audit_record, request_client
from core.models import LoginFailure


def old_receiver(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    """What audit/receivers.py did before the fix: one chained event per failure."""
    with transaction.atomic():
        audit_record(
            actor=AnonymousUser(),
            action="auth.login_failed",
            after={"username": str(credentials.get("username", ""))[:150], **request_client(request)},
        )


def flood(stop: Any, n: int, mode: str, tries: Any) -> None:
    """One flooding client, in its own process (forked: its own interpreter and connection)."""
    settings.AXES_ENABLED = mode == "now"
    if mode == "old":
        user_login_failed.connect(old_receiver, dispatch_uid="bench_old_receiver")
    client = Client(REMOTE_ADDR=f"10.77.0.{n + 1}")
    for i in count():
        if stop.is_set():
            break
        client.post("/accounts/login/", {"username": f"guess{n}-{i}", "password": "wrong"})
        with tries.get_lock():
            tries.value += 1
    connection.close()


def run(driver: step_bench.Driver, steps: int, clients: int, mode: str) -> tuple[list[float], int, float]:
    context = multiprocessing.get_context("fork")
    stop, tries = context.Event(), context.Value("i", 0)
    connection.close()  # the children must not share this process's connection
    workers = [context.Process(target=flood, args=(stop, n, mode, tries)) for n in range(clients)]
    for w in workers:
        w.start()
    time.sleep(2)  # the flood under way before the first step
    with tries.get_lock():
        tries.value = 0
    driver.timings.clear()
    started = time.perf_counter()
    for posts in driver.coups(step_bench_patterns(), record=True, capture=False):
        if posts >= steps:
            break
    wall = time.perf_counter() - started
    done = tries.value
    stop.set()
    for w in workers:
        w.join()
    return [ms for values in driver.timings.values() for ms in values], done, wall


def step_bench_patterns() -> Any:
    i = 0
    while True:
        yield i % 4
        i += 1


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    clients = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    setup_test_environment()
    call_command("migrate", verbosity=0)
    table, _croupier, token = step_bench.setup()
    driver = step_bench.Driver(table, token)
    for _ in driver.coups(iter(range(4)), record=False, capture=False):  # warm up
        pass
    rounds = [("quiet (no flood)", None), ("flood, failures chained one by one (before)", "old")]
    rounds += [("flood, security log, lockout off", "log"), ("flood, security log + lockout (now)", "now")]
    print(
        f"{steps} step POSTs per round; flood: {clients} clients on /accounts/login/; load avg "
        f"{os.getloadavg()[0]:.1f}"
    )
    print(f"  {'round':<45} {'median':>7} {'p95':>7} {'p99':>7} {'max':>7}  failures/s  chain events")
    for name, mode in rounds:
        events = AuditEvent.objects.filter(action="auth.login_failed").count()
        if mode is None:
            every, tries, wall = [], 0, 0.0
            driver.timings.clear()
            started = time.perf_counter()
            for posts in driver.coups(step_bench_patterns(), record=True, capture=False):
                if posts >= steps:
                    break
            wall = time.perf_counter() - started
            every = [ms for values in driver.timings.values() for ms in values]
        else:
            every, tries, wall = run(driver, steps, clients, mode)
        chained = AuditEvent.objects.filter(action="auth.login_failed").count() - events
        print(
            f"  {name:<45} {statistics.median(every):7.1f} {step_bench.percentile(every, 0.95):7.1f}"
            f" {step_bench.percentile(every, 0.99):7.1f} {max(every):7.1f}"
            f"  {tries / wall if wall else 0:10.0f}"
            f"  {chained:>12}"
        )
    print(f"  (ms per step POST; security log rows: {LoginFailure.objects.count()})")


if __name__ == "__main__":
    main()
