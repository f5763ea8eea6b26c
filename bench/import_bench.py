"""Benchmark: ``manage.py import_coups`` on PostgreSQL (a plain script: it prints numbers, asserts
only that the re-run imported nothing).

    .venv/bin/python bench/import_bench.py [N] [--profile casino]     # N records, default 5,000
    .venv/bin/python bench/import_bench.py 400 --newcomers 40          # 40 records name newcomers
    .venv/bin/python bench/import_bench.py 5000 --e2e                  # manage.py as a user runs it

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

``--newcomers K``: K of the records (spread evenly over the file, among those with a spectator's
bet) name their spectators by names no record used before (``newcomer-<i>-<name>``): each is a
player the import must create, buy in and stand at the table before it plays the record. (A
spectator, not a seat: a newcomer never leaves, and the table's seats would fill up.)

``--e2e``: the import is ``manage.py import_coups`` in a subprocess (``casino.settings.base``, as a
user runs it: interpreter and Django start-up, the file parsed, every chunk), timed from the
subprocess's start to its exit, and its CPU (the child's user + system time); the same baseline,
and beside it ``manage.py validate_coups`` on the same file, also a subprocess, start-up included.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
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
    parser.add_argument(
        "--newcomers",
        type=int,
        default=0,
        help="records naming spectators no earlier record named (created, bought in, stood)",
    )
    parser.add_argument(
        "--e2e",
        action="store_true",
        help="run manage.py import_coups as a subprocess (start-up included) instead of in-process",
    )
    parser.add_argument(
        "--cprofile",
        metavar="FILE",
        help="with --e2e: the first run's subprocess under cProfile, its statistics written to FILE "
        "(its timing is then the profiler's, not a figure)",
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
    renamed = newcomers_add(path, args.newcomers)

    def run() -> tuple[float, float, int, str, int]:
        if args.e2e:
            return run_subprocess()
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

    profiled: list[str] = []  # the first subprocess only: the second run imports nothing

    def run_subprocess() -> tuple[float, float, int, str, int]:
        """``manage.py import_coups`` as a user runs it: (wall, the child's CPU, coups imported,
        the summary line, 0: its SQL queries are not counted from here)."""
        before = Coup.objects.count()
        command = [sys.executable, str(ROOT / "manage.py"), "import_coups", str(path)]
        if args.cprofile and not profiled:
            command[1:1] = ["-m", "cProfile", "-o", args.cprofile]
            profiled.append(args.cprofile)
        command += ["--table", str(table.pk), "--croupier", croupier.get_username(), "--buy-in", "10000000"]
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.base"}
        child_cpu = _children_cpu()
        started = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, check=False)
        wall = time.perf_counter() - started
        cpu = _children_cpu() - child_cpu
        if done.returncode not in (0, 1):
            sys.exit(f"import_coups failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        lines = [x for x in done.stderr.decode().splitlines() if "coups imported" in x]
        return wall, cpu, Coup.objects.count() - before, lines[-1] if lines else "", 0

    mode = "manage.py in a subprocess, start-up included" if args.e2e else "in-process"
    print(
        f"import_coups on PostgreSQL ({DB_NAME}): {args.n} generated records, profile {args.profile}, {mode}"
    )
    if args.newcomers:
        print(f"  {renamed} records name newcomers (spectators not at the table yet)")
    wall, cpu, imported, summary, queries = run()
    print(f"  first run:  {imported} coups in {wall:.2f} s = {imported / wall:,.0f} coups/s")
    whose = "the subprocess's" if args.e2e else "this process's"
    print(f"              {whose} CPU {cpu:.2f} s ({imported / cpu:,.0f} coups per CPU second)")
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
        "import_coups_e2e_per_s" if args.e2e else "import_coups_per_s",
        figure=imported / wall,
        baseline=validated,
        unit="/s",
        baseline_label="validate_lines records/s on the same file, in-process, best of 3",
    )
    if args.e2e:  # the validator as a user runs it too: manage.py validate_coups, same file
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.base"}
        command = [sys.executable, str(ROOT / "manage.py"), "validate_coups", str(path)]
        started = time.perf_counter()
        checked = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, check=False)
        seconds = time.perf_counter() - started
        if checked.returncode not in (0, 1):  # 1: some coups flagged, as generated
            sys.exit(f"validate_coups failed ({checked.returncode}): {checked.stderr.decode()[-2000:]}")
        print(
            f"  baseline end to end: manage.py validate_coups, same file: {records / seconds:,.0f} records/s"
        )
        bench.add(
            "import_coups_e2e_vs_validate_coups_e2e",
            figure=imported / wall,
            baseline=records / seconds,
            unit="/s",
            baseline_label="manage.py validate_coups on the same file, a subprocess, start-up included",
        )
    bench.add(
        "import_cpu_ms_per_coup",
        figure=cpu * 1000 / max(imported, 1),
        baseline=1000 / validated,
        unit="ms",
        baseline_label="validate_lines ms a record, same file",
    )
    wall, _cpu, again, summary, queries = run()
    print(f"  second run: {again} coups imported in {wall:.2f} s ({queries} SQL queries)")
    print(f"              {summary}")
    err = io.StringIO()
    call_command("verify_audit", stdout=err, stderr=err)
    print(f"  verify_audit: {err.getvalue().strip().splitlines()[-1] if err.getvalue().strip() else 'ok'}")
    if again:
        sys.exit(f"the second run imported {again} coups: the import is not idempotent")


def _children_cpu() -> float:
    """User + system CPU seconds of this process's finished children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def newcomers_add(path: Path, count: int) -> int:
    """Rename the spectators of ``count`` records (evenly spread over those with a spectator's
    bet) to names no record used: each becomes a newcomer at the table. Returns how many."""
    if count <= 0:
        return 0
    import orjson

    lines = path.read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    standing = [i for i, r in enumerate(records) if any(b.get("spectator") for b in r.get("bets", ()))]
    if not standing:
        return 0
    step = max(len(standing) / count, 1.0)
    chosen = sorted({standing[int(k * step)] for k in range(min(count, len(standing)))})
    for n, i in enumerate(chosen):
        for bet in records[i]["bets"]:
            if bet.get("spectator"):
                bet["punter"] = f"newcomer-{n}-{bet['punter']}"
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    return len(chosen)


if __name__ == "__main__":
    main()
