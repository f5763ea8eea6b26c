"""Benchmark: recording coup steps through the REST API, the whole request path (a plain script: it
prints numbers, asserts nothing).

    .venv/bin/python bench/step_bench.py [N]        # N step POSTs, default 300

Creates its own PostgreSQL database (``chemin_bench``, dropped and re-created on every run; the
server is ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it,
sets a casino table up through the services, then plays coups through Django's test ``Client``
with token authentication: each POST goes through authentication, the idempotency claim, the
table/shoe/coup row locks, the engine's replay of the coup, the step's writes, its audit event, the
ledger at the reveal, and the coup view rendered back. Prints the median, p95 and max per step POST
and the SQL queries each step kind costs (``CaptureQueriesContext``). Target: median under 30 ms.

Baseline, measured in the same run and timed the same way: ``GET /api/v1/me/`` through the same
``Client`` and token, one right after each recorded step POST (so both see the same machine in
the same second). Why that baseline: it crosses the same middleware, DRF, token authentication and
throttles as a step, but writes nothing, locks nothing and replays no coup, so the ratio step /
``/me/`` is what the game adds to a request, and it moves far less with the machine's load than
the milliseconds do. The final ``summary`` lines (bench/baseline.py) give the median and p95 and
this process's CPU per request, each with its ``/me/`` baseline and the ratio, and the load
average at the start and the end.

The coups are stand-offs and small banker naturals so that the banker keeps the bank and play never
stops for a bank rotation; between them they use every step kind a clean coup has.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.database import SERVER, bench_db_name, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"


recreate_database(DB_NAME)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402

from access.services.tokens import api_token_create  # noqa: E402
from bench.baseline import BenchRun, me_in_process  # noqa: E402
from bench.coup_steps import DECKS, Cards, coup_plan  # noqa: E402
from ledger import services as ledger  # noqa: E402
from tables import services  # noqa: E402
from tables.models import RuleProfile, Table  # noqa: E402


def setup() -> tuple[Table, Any, str]:
    now = timezone.now()
    croupier = services.staff_member_create(
        actor=None, username="bench-croupier", password="bench-password-123", roles=["croupier"]
    )
    casino = services.casino_create(actor=None, name="Bench casino", levy_mode="percentage", levy_rate_bp=500)
    services.casino_staff_grant(actor=None, user=croupier, casino=casino)
    table = services.table_create(
        actor=None, casino=casino, name="Bench 1", profile=RuleProfile.objects.get(slug="casino")
    )
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
        player = services.player_create(actor=croupier, casino=casino, display_name=f"Bench player {n}")
        ledger.cage_buy_in(casino=casino, player=player, amount=1_000_000, actor=croupier, key=f"buyin:{n}")
        seats[n] = services.seat_take(actor=croupier, session=session, player=player, number=n)
    services.shoe_start(actor=croupier, session=session, decks=DECKS, burnt_cards=["2C", "3C", "4C"])
    services.bank_first_assign(actor=croupier, session=session, seat=seats[1])
    return table, croupier, api_token_create(user=croupier)


class Driver:
    def __init__(self, table: Table, token: str) -> None:
        self.client = Client(headers={"authorization": f"Token {token}"})
        self.table = table
        self.bank = 300
        self.cards = Cards()
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        self.cpu: list[float] = []  # this process's CPU per POST: the share that is not the database
        self.me_ms: list[float] = []  # the baseline: GET /api/v1/me/ after each recorded POST
        self.me_cpu: list[float] = []

    def post(
        self, path: str, body: dict[str, Any], kind: str, *, record: bool, capture: bool
    ) -> dict[str, Any]:
        key = uuid.uuid4().hex
        if capture:
            with CaptureQueriesContext(connection) as ctx:
                response = self.client.post(
                    path, body, content_type="application/json", headers={"idempotency-key": key}
                )
            self.queries[kind].append(len(ctx.captured_queries))
        else:
            start, cpu = time.perf_counter(), time.process_time()
            response = self.client.post(
                path, body, content_type="application/json", headers={"idempotency-key": key}
            )
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            if record:
                self.timings[kind].append(elapsed * 1000)
                self.cpu.append(cpu * 1000)
                me_ms, me_cpu = me_in_process(self.client, 1)
                self.me_ms += me_ms
                self.me_cpu += me_cpu
        assert response.status_code == 201, (kind, response.status_code, response.content[:500])
        return response.json()

    def coups(self, pattern_of: Iterator[int], *, record: bool, capture: bool) -> Iterator[int]:
        """Play coups, yielding the running number of step POSTs."""
        posts = 0
        for pattern in pattern_of:
            body = self.post(
                f"/api/v1/tables/{self.table.pk}/coups/", {"bank": self.bank}, "bank_declared",
                record=record, capture=capture,
            )  # fmt: skip
            coup = body["coup"]
            posts += 1
            for step in coup_plan(pattern, self.bank, self.cards):
                body = self.post(
                    f"/api/v1/coups/{coup['id']}/steps/", {"step": coup["step_count"], **step}, step["kind"],
                    record=record, capture=capture,
                )  # fmt: skip
                coup = body["coup"]
                posts += 1
            assert coup["state"] == "settled", coup["state"]
            self.bank = max(self.bank, coup["verdict"]["settlement"]["next_bank_min"] or self.bank)
            yield posts


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with BenchRun("step_bench") as run:
        measure(n, run)


def measure(n: int, run: BenchRun) -> None:
    setup_test_environment()
    call_command("migrate", verbosity=0)
    table, _croupier, token = setup()
    driver = Driver(table, token)

    # warm up (imports, connection, caches): one coup of each pattern, not counted
    for _ in driver.coups(iter(range(4)), record=False, capture=False):
        pass
    me_in_process(driver.client, 20)  # the baseline's warm-up too
    # the SQL each step kind costs: one coup of each pattern under CaptureQueriesContext
    for _ in driver.coups(iter(range(4)), record=False, capture=True):
        pass

    def patterns() -> Iterator[int]:
        i = 0
        while True:
            yield i % 4
            i += 1

    started = time.perf_counter()
    for posts in driver.coups(patterns(), record=True, capture=False):
        if posts >= n:
            break
    wall = time.perf_counter() - started

    every = [ms for values in driver.timings.values() for ms in values]
    print(f"step POSTs through the API on PostgreSQL ({DB_NAME}): {len(every)} in {wall:.1f} s")
    print(
        f"  median {statistics.median(every):6.1f} ms   p95 {percentile(every, 0.95):6.1f} ms"
        f"   max {max(every):6.1f} ms   mean {statistics.fmean(every):6.1f} ms   (target: median < 30 ms)"
    )
    print(
        f"  this process's CPU per POST: median {statistics.median(driver.cpu):.1f} ms"
        f" (the rest is PostgreSQL and waiting for it)"
    )
    me = driver.me_ms
    print(
        f"  baseline GET /api/v1/me/ (same client and token, one after each POST): median"
        f" {statistics.median(me):.1f} ms   p95 {percentile(me, 0.95):.1f} ms"
        f"   CPU median {statistics.median(driver.me_cpu):.1f} ms"
    )
    label = f"GET /api/v1/me/ in-process, {len(me)} interleaved"
    run.add("step_median", figure=statistics.median(every), baseline=statistics.median(me), unit="ms",
            baseline_label=label)  # fmt: skip
    run.add("step_p95", figure=percentile(every, 0.95), baseline=percentile(me, 0.95), unit="ms",
            baseline_label=label)  # fmt: skip
    run.add("step_cpu_median", figure=statistics.median(driver.cpu),
            baseline=statistics.median(driver.me_cpu), unit="ms CPU", baseline_label=label)  # fmt: skip
    print(f"\n  {'step kind':<16} {'posts':>5} {'median ms':>10} {'p95 ms':>8} {'queries':>8}")
    for kind in sorted(driver.timings, key=lambda k: -max(driver.queries.get(k, [0]))):
        values = driver.timings[kind]
        q = driver.queries.get(kind, [])
        queries = "-" if not q else (f"{min(q)}" if min(q) == max(q) else f"{min(q)}-{max(q)}")
        print(
            f"  {kind:<16} {len(values):>5} {statistics.median(values):>10.1f}"
            f" {percentile(values, 0.95):>8.1f} {queries:>8}"
        )


if __name__ == "__main__":
    main()
