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

import copy
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

import orjson  # noqa: E402
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
from tables.models import RuleProfile, Shoe, Table  # noqa: E402


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
    def __init__(self, table: Table, token: str, croupier: Any) -> None:
        self.client = Client(headers={"authorization": f"Token {token}"})
        self.table = table
        self.croupier = croupier
        self.shoes = 1
        self.bank = 300
        self.cards = Cards()
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        self.cpu: list[float] = []  # this process's CPU per POST: the share that is not the database
        self.me_ms: list[float] = []  # the baseline: GET /api/v1/me/ after each recorded POST
        self.me_cpu: list[float] = []
        self.played: list[int] = []  # the ids of the coups played, in order

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

    def plan(self, pattern: int) -> list[dict[str, Any]]:
        """The coup's steps; first a new shoe if this one cannot deal them (a run of more steps
        than one shoe holds, for a history big enough that whole 8 KB pages do not blur the bytes
        a coup), closed and started through the services, outside the timings."""
        dealt = copy.deepcopy(self.cards)
        try:
            plan = coup_plan(pattern, self.bank, dealt)
        except AssertionError:  # a card the shoe no longer holds
            pass
        else:
            self.cards = dealt
            return plan
        session = self.table.sessions.get(closed_at__isnull=True)
        shoe = session.shoes.get(state=Shoe.State.OPEN)
        services.shoe_close(actor=self.croupier, shoe=shoe, reason="bench: the shoe is used up")
        services.shoe_start(actor=self.croupier, session=session, decks=DECKS, burnt_cards=["2C", "3C", "4C"])
        self.cards, self.shoes = Cards(), self.shoes + 1
        return coup_plan(pattern, self.bank, self.cards)

    def coups(self, pattern_of: Iterator[int], *, record: bool, capture: bool) -> Iterator[int]:
        """Play coups, yielding the running number of step POSTs."""
        posts = 0
        for pattern in pattern_of:
            plan = self.plan(pattern)  # before the coup starts: a new shoe waits for no coup
            body = self.post(
                f"/api/v1/tables/{self.table.pk}/coups/", {"bank": self.bank}, "bank_declared",
                record=record, capture=capture,
            )  # fmt: skip
            coup = body["coup"]
            posts += 1
            for step in plan:
                body = self.post(
                    f"/api/v1/coups/{coup['id']}/steps/", {"step": coup["step_count"], **step}, step["kind"],
                    record=record, capture=capture,
                )  # fmt: skip
                coup = body["coup"]
                posts += 1
            assert coup["state"] == "settled", coup["state"]
            self.played.append(int(coup["id"]))
            self.bank = max(self.bank, coup["verdict"]["settlement"]["next_bank_min"] or self.bank)
            yield posts


def relation_sizes() -> dict[str, tuple[int, int]]:
    """Every table of the schema: (bytes on disk with its indexes and TOAST, compacted first by
    ``VACUUM FULL``; bytes of its rows' data, ``pg_column_size``). The first is what a history
    keeps once the updated rows' old versions are reclaimed, as autovacuum does in a running
    casino; it counts whole 8 KB pages. The second is exact to the byte but leaves out indexes,
    tuple headers and page overhead."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM FULL")
        cursor.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        )
        disk = dict(cursor.fetchall())
        sizes = {}
        for name, on_disk in disk.items():
            quoted = connection.ops.quote_name(name)
            cursor.execute(f"SELECT COALESCE(SUM(pg_column_size(t.*)), 0) FROM {quoted} t")
            sizes[name] = (on_disk, int(cursor.fetchone()[0]))
        return sizes


def bytes_report(run: BenchRun, before: dict[str, tuple[int, int]], coup_ids: list[int]) -> None:
    """Bytes a played coup (every table's growth over the measured coups), the tables that grew
    most, and the baseline: the coup's own interchange record (docs/coup-record.md), compact JSON:
    what there is to keep of it, so the ratio is what the back office stores a coup beyond its
    record (the trail, the idempotency answers, the ledger, the indexes...). On disk, sizes are
    whole 8 KB pages: over a few dozen coups a table's figure moves by up to 8 KB / coups; the
    rows' own bytes are exact."""
    from chemin_de_fer.engine.interchange import record_to_dict
    from tables.engine_bridge import exported_record
    from tables.models import Coup, CoupStep

    if not coup_ids:
        return
    after = relation_sizes()
    zero = (0, 0)
    disk = {name: after[name][0] - before.get(name, zero)[0] for name in after}
    rows = {name: after[name][1] - before.get(name, zero)[1] for name in after}
    record_bytes = []
    for coup in Coup.objects.filter(pk__in=coup_ids):
        steps = list(CoupStep.objects.filter(coup=coup).order_by("index"))
        record_bytes.append(len(orjson.dumps(record_to_dict(exported_record(coup, steps)))))
    coups, record = len(coup_ids), statistics.fmean(record_bytes)
    on_disk, data = sum(disk.values()) / coups, sum(rows.values()) / coups
    print(f"\n  bytes a played coup, over {coups} coups: {on_disk:,.0f} B on disk,"
          f" {data:,.0f} B of row data (its interchange record: {record:,.0f} B)")  # fmt: skip
    print(f"    {'table':<32} {'on disk':>9} {'row data':>9}  (bytes a coup)")
    for name in sorted(rows, key=lambda n: -rows[n])[:8]:
        print(f"    {name:<32} {disk[name] / coups:>9,.0f} {rows[name] / coups:>9,.0f}")
    label = "the coup's interchange record, compact JSON"
    run.add("bytes_a_coup_on_disk", figure=on_disk, baseline=record, unit="B", baseline_label=label)
    run.add("bytes_a_coup_row_data", figure=data, baseline=record, unit="B", baseline_label=label)


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
    table, croupier, token = setup()
    driver = Driver(table, token, croupier)

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

    sizes_before, coups_before = relation_sizes(), len(driver.played)
    started = time.perf_counter()
    for posts in driver.coups(patterns(), record=True, capture=False):
        if posts >= n:
            break
    wall = time.perf_counter() - started
    bytes_report(run, sizes_before, driver.played[coups_before:])

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
