"""Benchmark: ``verify_audit`` over a long chain (issue 13 §2: "the audit check at the speed of the
disk"). A plain script: it prints numbers.

    .venv/bin/python bench/audit_verify_bench.py [N]        # N events, default 1,000,000

Creates its own database (``chemin_audit_bench``, dropped and re-created on every run; server
``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), appends N events through the
product's writer (``audit_record`` in transactions of 5,000, appended at COMMIT with COPY, keyed
HMACs, payloads shaped like a coup step's), then times:

- the full walk through the ORM and ``event_hash`` (the reference walker, what verify_audit was);
- ``verify_audit --full`` (the fast walker: one server-side cursor, orjson, HMAC in a loop);
- ``verify_audit`` incremental after the nightly task stored its result and 1,000 events more;
- the raw read of the same rows (``SELECT … ORDER BY seq`` through the same cursor, no hashing),
  the floor set by the disk and the driver.

Baselines, measured in the same run: the raw read is the baseline of every walk (``verify_audit
--full``, the reference walk, the nightly task): a walk cannot be faster than reading its rows,
so the ratio is what the hashing and checking cost on top, whatever the machine's load. The
append's baseline is the database writing the same rows with the same indexes on its own
(``INSERT INTO a copy SELECT * FROM audit_auditevent``, no Python, no HMAC): the ratio is what the
product's writer costs on top of PostgreSQL's own work. The final ``summary`` lines
(bench/baseline.py) carry each figure, its baseline and the ratio, with the load average at the
start and the end.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.baseline import BenchRun  # noqa: E402
from bench.database import SERVER, bench_db_name, peak_mib, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_audit_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

BATCH = 5000


def timed(label: str, fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started, cpu = time.perf_counter(), time.process_time()
    result = fn(*args, **kwargs)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"  {label:<44} {wall:8.2f} s   (this process's CPU {cpu:.2f} s)")
    return result, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=1_000_000, help="events (default 1,000,000)")
    parser.add_argument("--skip-orm", action="store_true", help="do not time the reference (ORM) walk")
    args = parser.parse_args()
    with BenchRun("audit_verify_bench") as bench:
        measure(args, bench)


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    recreate_database(DB_NAME)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction

    from audit.chain_walk import _SQL, FETCH_ROWS, chain_walk_orm
    from audit.keys import audit_keys
    from audit.models import AuditEvent
    from audit.services import audit_record
    from audit.tasks import audit_chain_verify_task

    call_command("migrate", verbosity=0)

    def append(count: int, offset: int = 0) -> None:
        done = 0
        while done < count:
            size = min(BATCH, count - done)
            with transaction.atomic():
                for i in range(offset + done, offset + done + size):
                    audit_record(
                        actor=None,
                        action="tables.coupstep.create",
                        before=None,
                        after={
                            "coup": i // 12,
                            "index": i % 12,
                            "kind": "card",
                            "payload": {"hand": "punter", "card": "9H", "position": i % 6},
                            "by": "croupier-7",
                            "note": "Mme Lefèvre — banco",
                        },
                    )
            done += size

    print(f"verify_audit on PostgreSQL ({DB_NAME}), {args.n:,} events")
    _, wall = timed(f"append {args.n:,} events (audit_record)", append, args.n)
    print(f"    = {args.n / wall:,.0f} events/s")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE audit_auditevent")
        cursor.execute("SELECT pg_size_pretty(pg_total_relation_size('audit_auditevent'))")
        print(f"  table size {cursor.fetchone()[0]}")

    def raw_write() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "CREATE TABLE bench_copy (LIKE audit_auditevent INCLUDING DEFAULTS INCLUDING INDEXES)"
            )
            cursor.execute("INSERT INTO bench_copy SELECT * FROM audit_auditevent")
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE bench_copy")

    _, write_wall = timed("baseline: the same rows copied in SQL", raw_write)
    bench.add(
        "append",
        figure=wall,
        baseline=write_wall,
        unit="s",
        baseline_label="INSERT INTO a copy (same indexes) SELECT * of the same rows",
    )

    def raw_read() -> int:
        rows = 0
        sql = _SQL.format(table='"audit_auditevent"')
        with transaction.atomic(), connection.chunked_cursor() as cursor:
            cursor.execute(sql, [0, 1])  # the global chain (its events name no casino), from seq 1
            while batch := cursor.fetchmany(FETCH_ROWS):
                rows += len(batch)
        return rows

    raw_rows, raw_wall = timed("raw read of the rows (no hashing)", raw_read)
    assert raw_rows == args.n
    raw_label = "raw read of the same rows, same cursor, no hashing"
    if not args.skip_orm:
        keys = audit_keys()

        def orm_walk() -> int:
            bad = 0
            for e in chain_walk_orm(from_seq=1, keys=keys):
                bad += e.computed != e.hash
            return bad

        bad, orm_wall = timed("reference walk (ORM + event_hash)", orm_walk)
        assert bad == 0
        bench.add("reference_walk", figure=orm_wall, baseline=raw_wall, unit="s", baseline_label=raw_label)
    out = io.StringIO()
    _, full_wall = timed("verify_audit --full", call_command, "verify_audit", full=True, stdout=out)
    print("    " + " / ".join(line for line in out.getvalue().splitlines()[:1]))
    print(f"    = {args.n / full_wall:,.0f} events/s; {full_wall / raw_wall:.1f}x the raw read")
    bench.add("verify_audit_full", figure=full_wall, baseline=raw_wall, unit="s", baseline_label=raw_label)
    if not args.skip_orm:
        print(f"    the reference walk / verify_audit --full = {orm_wall / full_wall:.1f}x")
    _, nightly = timed("nightly task (full, stores its result)", audit_chain_verify_task)
    bench.add("nightly_task", figure=nightly, baseline=raw_wall, unit="s", baseline_label=raw_label)
    append(1000, offset=args.n)
    out = io.StringIO()
    timed("verify_audit (incremental, 1,001 new events)", call_command, "verify_audit", stdout=out)
    print("    " + out.getvalue().splitlines()[0])
    peak = peak_mib()
    print(f"  peak RSS of this process {peak:,.0f} MiB; events {AuditEvent.objects.count():,}")


if __name__ == "__main__":
    main()
