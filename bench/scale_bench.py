"""Benchmark: a year of one casino at a million coups (issue 13), each figure beside its raw SQL
baseline measured in the same run. A plain script: it prints numbers.

    .venv/bin/python bench/scale_bench.py [--coups 1000000] [--tables 8] [--json]

Own database (``chemin_scale_bench`` or ``BENCH_DB_NAME``, dropped and re-created; server
``BENCH_DATABASE_URL``).
The history is built as fast as honesty allows:

- the floor (casino, tables, sessions, seats) through the services;
- the coups, their bets, reveal steps and levies in SQL (``bench/report_bench.py``'s builder:
  every constraint and trigger in place), since a million coups through the tablet's services
  would take hours;
- one audit event per coup through the product's own writer (``audit_record``, keyed HMACs,
  appended at COMMIT with COPY), naming the coup as the live steps do;
- the rollups brought up by following those events (``rollups_refresh``: the production path,
  not the rebuild).

Then, timed: the pit boss's dashboard for the last 7 days and for the year (a real request through
Django's test client, template rendered), the year's levy report (CSV), the audit-trail report for
the year (JSON Lines, with the process's peak memory), ``verify_audit --full``, ``trial_balance``;
and beside them the raw SQL a hand-written query would run for the same figures.

It ends with one ``summary`` line per figure (figure, baseline, ratio: bench/baseline.py) and the
load average at the start and the end; with ``--json`` the very last line is one JSON object for
scripts: ``dashboard_7d``, ``dashboard_365d``, ``levy_report_year``, ``verify_audit_full`` and
``audit_trail_year`` in seconds, each with ``<key>_baseline`` (its raw SQL, same run) and
``<key>_ratio``, plus ``load_start`` and ``load_end``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench import report_bench  # noqa: E402  (sets its own DATABASE_URL: replaced below)
from bench.baseline import BenchRun  # noqa: E402
from bench.database import SERVER, bench_db_name, peak_mib, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_scale_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"
BATCH = 5000


def timed(label: str, fn: Callable[[], Any], baseline: float | None = None) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    wall = time.perf_counter() - started
    ratio = f"   {wall / baseline:5.2f} x its baseline" if baseline else ""
    print(f"  {label:<46} {wall:8.2f} s{ratio}", flush=True)
    return wall, result


def figure(
    run: BenchRun, key: str, label: str, fn: Callable[[], Any], baseline: float, baseline_label: str
) -> tuple[float, Any]:
    """Time ``fn`` as :func:`timed` does and record it in ``run`` under ``key`` with its baseline."""
    wall, result = timed(label, fn, baseline)
    run.add(key, figure=wall, baseline=baseline, unit="s", baseline_label=baseline_label)
    return wall, result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--coups", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument(
        "--json", action="store_true", help="end with one JSON line of the figures, baselines and ratios"
    )
    args = parser.parse_args()
    with BenchRun("scale_bench", json_line=args.json) as run:
        measure(args, run)


def measure(args: argparse.Namespace, run: BenchRun) -> None:
    recreate_database(DB_NAME)
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host
    from django.core.management import CommandError, call_command
    from django.db import connection, transaction
    from django.test import Client
    from django.urls import reverse

    from audit.models import AuditEvent
    from audit.services import audit_record
    from ledger.selectors import trial_balance
    from reports.kinds import ReportRequest, report_write
    from tables import services
    from tables.gaming_day import casino_calendar
    from tables.models import Casino, Coup
    from tables.services.rollups import rollups_refresh

    call_command("migrate", verbosity=0)
    print(f"scale bench on PostgreSQL ({DB_NAME}): {args.coups:,} coups at {args.tables} tables")
    started = time.perf_counter()
    casino_rules, floors = report_bench.build_floor(args.tables)
    casino = casino_rules[0]
    report_bench.build_coups(args.coups, floors, casino_rules)
    print(f"  coups built in SQL: {Coup.objects.count():,} in {time.perf_counter() - started:.0f} s")

    def audit_coups() -> int:
        ids = list(Coup.objects.order_by("settled_at", "pk").values_list("pk", flat=True))
        for i in range(0, len(ids), BATCH):
            with transaction.atomic():
                for pk in ids[i : i + BATCH]:
                    coup = Coup(pk=pk)
                    audit_record(actor=None, action="tables.coup.settle", target=coup, after={"coup": pk})
        return len(ids)

    timed("one audit event per coup (audit_record)", audit_coups)
    timed("rollups_refresh following them", rollups_refresh)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")

    calendar = casino_calendar(casino)
    year = (dt.date(report_bench.YEAR, 1, 1), dt.date(report_bench.YEAR, 12, 31))
    today = calendar.today(dt.datetime(report_bench.YEAR, 12, 1, 12, tzinfo=dt.UTC))
    week = (today - dt.timedelta(days=6), today)

    def raw_group_by(first: dt.date, last: dt.date) -> Callable[[], int]:
        lo, hi = calendar.bounds(first, last)

        def run() -> int:
            with connection.cursor() as cursor:
                cursor.execute(report_bench.RAW_SQL, [lo, hi])
                return len(cursor.fetchall())

        return run

    boss = services.staff_member_create(
        actor=None,
        username="bench-pitboss",
        password="bench-password-123",
        roles=["pit_boss"],
        casinos=list(Casino.objects.all()),
    )
    client = Client()
    client.force_login(boss)

    def dashboard(first: dt.date, last: dt.date) -> Callable[[], int]:
        def run() -> int:
            query = {"start": first.isoformat(), "end": last.isoformat()}
            answer = client.get(reverse("review:dashboard"), query)
            assert answer.status_code == 200, answer.status_code
            return len(answer.content)

        return run

    print("  --- figures, each after its baseline (warm cache: every query run once before) ---")
    raw_group_by(*year)()
    dashboard(*year)()
    raw_week, _ = timed("raw SQL GROUP BY day x table, 7 days", raw_group_by(*week))
    raw_7 = "raw SQL GROUP BY day x table, 7 days"
    figure(run, "dashboard_7d", "dashboard, last 7 days (GET, rendered)", dashboard(*week), raw_week, raw_7)
    raw_year, _ = timed("raw SQL GROUP BY day x table, one year", raw_group_by(*year))
    raw_365 = "raw SQL GROUP BY day x table, one year"
    figure(run, "dashboard_365d", "dashboard, one year (GET, rendered)", dashboard(*year), raw_year, raw_365)

    def levy() -> int:
        out = io.BytesIO()
        request = ReportRequest(kind="levy", fmt="csv", start=year[0], end=year[1], casino_id=casino.pk)
        return report_write(request=request, out=out, progress=lambda *_: None).rows

    figure(run, "levy_report_year", "year levy report, CSV", levy, raw_year, raw_365)

    def raw_events() -> int:
        rows = 0
        with transaction.atomic(), connection.chunked_cursor() as cursor:
            cursor.execute("SELECT * FROM audit_auditevent ORDER BY seq")
            while batch := cursor.fetchmany(10_000):
                rows += len(batch)
        return rows

    def audit_export() -> int:
        sink = open(os.devnull, "wb")  # noqa: SIM115  (closed below; the bytes are not the point)
        try:
            # the events were written during this run: the period is today and yesterday
            now = dt.date.today()
            first = now - dt.timedelta(days=1)
            request = ReportRequest(kind="audit-trail", fmt="jsonl", start=first, end=now)
            return report_write(request=request, out=sink, progress=lambda *_: None).rows
        finally:
            sink.close()

    raw_audit, _ = timed("raw read of every audit event", raw_events)
    before = peak_mib()
    raw_read = "raw read of every audit event"
    _, rows = figure(
        run, "audit_trail_year", "audit-trail report, JSON Lines", audit_export, raw_audit, raw_read
    )
    print(f"    {rows:,} events written; peak RSS {before:.0f} MiB before, {peak_mib():.0f} MiB after")

    def verify() -> None:
        # It walks every chain and then every bound row; the coups written in SQL above are bound
        # to no event, so it reports them (the walk is whole all the same): said, not raised.
        try:
            call_command("verify_audit", full=True, stdout=io.StringIO(), stderr=io.StringIO())
        except CommandError as exc:
            print(
                "    verify_audit --full reported (the SQL-built rows are bound to no event): "
                + str(exc)[:120]
            )

    figure(run, "verify_audit_full", "verify_audit --full", verify, raw_audit, raw_read)
    timed("trial_balance (no baseline: balances are kept)", lambda: trial_balance(casino=casino))
    events = AuditEvent.objects.count()
    print(f"  events {events:,}; peak RSS {peak_mib():.0f} MiB")
    run.extra.update(coups=args.coups, tables=args.tables, events=events, peak_rss_mib=round(peak_mib()))


if __name__ == "__main__":
    main()
