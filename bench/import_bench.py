"""Benchmark: ``manage.py import_coups`` on PostgreSQL (a plain script: it prints numbers, asserts
only that the re-run imported nothing).

    .venv/bin/python bench/import_bench.py [N] [--profile casino]     # N records, default 5,000

Creates its own database (``chemin_import_bench``, dropped and re-created on every run; the server
is ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it, sets a
casino, a table and a croupier on shift up through the services, and writes N valid coup records
(``bench/coupgen.py``: coups played through the rules engine from shuffled shoes, some with wrong
decisions, so that some coups are flagged, restored and left awaiting a pit boss). Then it runs the
command in-process on the file, prints coups/s, this process's CPU time (what a busy machine
does not change) and the SQL queries it took, runs it again on the
same file and prints how many coups the second run imported (0: the import is idempotent by record
id), and checks the audit chain (``verify_audit``).

Baseline, same file, same run, same process: the offline validator (``validate_coups``'s
pipeline, ``validate_lines`` with the house's other games' judges, JSON in and verdicts out) on
the records just imported, best of 3. Why that baseline: it parses the same lines and replays
every coup through the same engine, and writes nothing; the import does that and then writes the
rows, postings and audit events. The ratio coups/s ÷ the validator's records/s is the share of
the import's time that is not the writing (1 would be "writing is free"); it moves much less with
the machine's load than coups/s does. The final ``summary`` lines (bench/baseline.py) carry both,
with the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.baseline import BenchRun, timed  # noqa: E402
from bench.database import SERVER, bench_db_name, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_import_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=5000, help="records to import (default 5000)")
    parser.add_argument(
        "--profile", default="casino", help="the records' profile (default casino; 'all' mixes the four)"
    )
    args = parser.parse_args()
    with BenchRun("import_bench") as bench:
        measure(args, bench)


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    recreate_database(DB_NAME)
    import django

    django.setup()

    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.history import history_file, import_table
    from chemin_de_fer.engine.validator import validate_lines
    from core.records import stream_lines
    from tables.games import offline_judges
    from tables.models import Coup

    call_command("migrate", verbosity=0)
    croupier, table = import_table(profile=args.profile)
    path = history_file(n=args.n, profile=args.profile, prefix="import-bench-")

    def run() -> tuple[float, float, int, str, int]:
        out, err = io.StringIO(), io.StringIO()
        before = Coup.objects.count()
        started, cpu = time.perf_counter(), time.process_time()
        with CaptureQueriesContext(connection) as queries:
            try:
                call_command(
                    "import_coups",
                    str(path),
                    table=table.pk,
                    croupier=croupier.get_username(),
                    buy_in=10_000_000,
                    stdout=out,
                    stderr=err,
                )
            except SystemExit as exc:  # a rejected line: reported below
                print(f"  exit status {exc.code}")
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        summary = err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else ""
        return wall, cpu, Coup.objects.count() - before, summary, len(queries.captured_queries)

    print(f"import_coups on PostgreSQL ({DB_NAME}): {args.n} generated records, profile {args.profile}")
    wall, cpu, imported, summary, queries = run()
    print(f"  first run:  {imported} coups in {wall:.2f} s = {imported / wall:,.0f} coups/s")
    print(f"              this process's CPU {cpu:.2f} s ({imported / cpu:,.0f} coups per CPU second)")
    print(f"              {queries} SQL queries ({queries / max(imported, 1):.1f} a coup)")
    print(f"              {summary}")

    def validate() -> int:
        with path.open("rb") as lines:
            summary = validate_lines(stream_lines(lines), io.BytesIO(), others=offline_judges())
            return summary.lines - summary.malformed

    validated, records = 0.0, 0
    for _ in range(3):
        seconds, records = timed(validate)
        validated = max(validated, records / seconds)
    print(
        f"  baseline: the validator on the same file, {records} records:"
        f" {validated:,.0f} records/s (best of 3)"
    )
    bench.add(
        "import_coups_per_s",
        figure=imported / wall,
        baseline=validated,
        unit="/s",
        baseline_label="validate_lines records/s on the same file, in-process, best of 3",
    )
    wall, _cpu, again, summary, queries = run()
    print(f"  second run: {again} coups imported in {wall:.2f} s ({queries} SQL queries)")
    print(f"              {summary}")
    err = io.StringIO()
    call_command("verify_audit", stdout=err, stderr=err)
    print(f"  verify_audit: {err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else 'ok'}")
    if again:
        sys.exit(f"the second run imported {again} coups: the import is not idempotent")


if __name__ == "__main__":
    main()
