"""Benchmark: ``manage.py verify_books`` on PostgreSQL (a plain script: it prints numbers, asserts
only that the books it verifies are clean).

    .venv/bin/python bench/books_bench.py [N] [--profile casino]     # N coups, default 3,000

Creates its own database (``chemin_books_bench``, dropped and re-created on every run; the server
is ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), imports N generated coup
records with ``import_coups`` (bench/coupgen.py: coups played through the rules engine from
shuffled shoes, some with wrong decisions, so some coups are restored and left awaiting a pit
boss), then runs the verification in-process and prints coups/s, this process's CPU time, the SQL
queries and the process's peak memory (RSS, the import's included).

Baseline, same run, before each verification: a raw ``SELECT *`` of every row the verification
reads (coups, steps, bets, levies, postings, entries, accounts, audit events) through one
server-side cursor, nothing decoded beyond the driver's rows. Why that baseline: the verification
cannot be faster than reading what it checks, so the ratio is what the engine's replay and the
comparisons cost on top of the reads, and it moves far less with the machine's load than the
seconds do. The final ``summary`` line (bench/baseline.py) gives the second (warm) verification
beside the raw read just before it, with the load average at the start and the end.
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
from bench.database import SERVER, bench_db_name, peak_mib, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_books_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=3000, help="coups to import (default 3000)")
    parser.add_argument("--profile", default="casino", help="the records' profile ('all' mixes the four)")
    args = parser.parse_args()
    with BenchRun("books_bench") as bench:
        measure(args, bench)


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    recreate_database(DB_NAME)
    import django

    django.setup()

    from django.core.management import call_command
    from django.db import connection, transaction
    from django.db.models import Count
    from django.test.utils import CaptureQueriesContext

    from audit.models import AuditEvent
    from bench.history import history_file, import_table
    from ledger.books import BooksReport
    from ledger.models import Account, Entry, Transaction
    from tables.models import BankTax, Bet, Coup, CoupStep
    from tables.money.books import books_verify

    call_command("migrate", verbosity=0)
    croupier, table = import_table(profile=args.profile)
    path = history_file(n=args.n, profile=args.profile, prefix="books-bench-")
    started = time.perf_counter()
    call_command(
        "import_coups",
        str(path),
        table=table.pk,
        croupier=croupier.get_username(),
        buy_in=10_000_000,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    states = dict(Coup.objects.values_list("state").annotate(n=Count("id")))
    print(f"verify_books on PostgreSQL ({DB_NAME}), profile {args.profile}")
    print(f"  history: {Coup.objects.count()} coups {states}, {Transaction.objects.count()} postings")
    print(f"           (imported in {time.perf_counter() - started:.1f} s)")
    connection.cursor().execute("ANALYZE")

    read = [Coup, CoupStep, Bet, BankTax, Transaction, Entry, Account, AuditEvent]

    def raw_read() -> int:
        rows = 0
        with transaction.atomic():
            for model in read:
                with connection.chunked_cursor() as cursor:
                    cursor.execute(f'SELECT * FROM "{model._meta.db_table}"')
                    while batch := cursor.fetchmany(10_000):
                        rows += len(batch)
        return rows

    for attempt in (1, 2):
        raw_wall, raw_rows = timed(raw_read)
        print(f"  baseline {attempt}: raw SELECT * of the same tables, {raw_rows:,} rows in {raw_wall:.2f} s")
        started, cpu = time.perf_counter(), time.process_time()
        with CaptureQueriesContext(connection) as queries:
            report = books_verify(BooksReport())
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak = peak_mib()
        print(
            f"  run {attempt}: {report.coups} coups, {report.transactions} postings, "
            f"{report.accounts} accounts "
            f"in {wall:.2f} s = {report.coups / wall:,.0f} coups/s "
            f"(CPU {cpu:.2f} s = {report.coups / cpu:,.0f} coups per CPU second)"
        )
        print(
            f"         {len(queries.captured_queries)} SQL queries, process peak RSS {peak:.0f} MiB, "
            f"{report.difference_count} difference(s)"
        )
        for difference in report.differences[:10]:
            print(f"         {difference}")
    bench.add(
        "verify_books",
        figure=wall,
        baseline=raw_wall,
        unit="s",
        baseline_label=f"raw SELECT * of the {len(read)} tables it reads, {raw_rows:,} rows, just before",
    )
    if not report.ok:
        sys.exit("the imported books differ")


if __name__ == "__main__":
    main()
