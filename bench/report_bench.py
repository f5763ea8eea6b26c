"""Benchmark: the year's levy report through ``reports.kinds.report_write`` (CSV and XLSX) against
the equivalent raw SQL ``GROUP BY``, on N settled coups (a plain script: it prints numbers and
asserts only that the report's totals are the raw query's).

    .venv/bin/python bench/report_bench.py [--coups 1000000] [--tables 8] [--repeat 3]

Creates its own database (``chemin_report_bench``, dropped and re-created on every run; the server
is ``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), migrates it, makes a
casino in Europe/Paris (gaming day from 06:00) with ``--tables`` tables, each with one session, a
banker and three punters, then writes the coups of a year straight in SQL (``INSERT … SELECT
generate_series``: shoes of 70 coups, 1-3 bets a coup, one reveal step with its outcome, a
``BankTax`` for every banker win), every constraint and trigger in place. It then times, ``--repeat``
times each, the raw query, the CSV report and the XLSX report, and prints the medians, the ratio
report / raw and this process's peak memory (``ru_maxrss``). The levy report reads the per
table-day rollups (tables/services/rollups.py); as the coups were written without their audit
events, the rollups are first rebuilt from the rows, and that is timed too.

Baseline, same run: the raw ``GROUP BY`` (``RAW_SQL``: what an accountant would type at psql for
the same figures, read from the coups themselves) for both reports and for the rebuild, which
reads the same coups. The final ``summary`` lines (bench/baseline.py) give each figure, the raw
query's median and the ratio, with the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.baseline import BenchRun  # noqa: E402
from bench.database import SERVER, bench_db_name, peak_mib, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_report_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

YEAR = 2026
COUPS_PER_SHOE = 70


def build_floor(tables: int) -> tuple[Any, list[dict[str, int]]]:
    """The casino and, per table, the ids the coups' rows refer to (through the ORM: a few rows)."""
    from tables import services
    from tables.engine_bridge import table_rules_snapshot
    from tables.models import BankTurn, Player, RuleProfile, Seat, TableSession
    from tables.services.rules_snapshots import rules_snapshot_keep

    croupier = services.staff_member_create(
        actor=None, username="bench-croupier", password="bench-password-123", roles=["croupier"]
    )
    casino = services.casino_create(actor=None, name="Bench casino", levy_mode="percentage", levy_rate_bp=500)
    services.casino_staff_grant(actor=None, user=croupier, casino=casino)
    casino.time_zone = "Europe/Paris"
    casino.save(update_fields=["time_zone"])
    profile = RuleProfile.objects.get(slug="casino")
    opened = dt.datetime(YEAR - 1, 12, 31, tzinfo=dt.UTC)
    floors = []
    for n in range(1, tables + 1):
        table = services.table_create(actor=None, casino=casino, name=f"Table {n:02d}", profile=profile)
        session = TableSession.objects.create(table=table, opened_at=opened, opened_by=croupier)
        seats = [
            Seat.objects.create(
                session=session,
                player=Player.objects.create(casino=casino, display_name=f"T{n} seat {s}"),
                number=s,
                joined_at=opened,
            )
            for s in (1, 2, 3, 4)
        ]
        turn = BankTurn.objects.create(
            session=session,
            player=seats[0].player,
            seat=seats[0],
            rotation_from=seats[0],
            started_at=opened,
            started_how="lot",
            required_minimum=1,
        )
        floors.append(
            {
                "t": n - 1,
                "table_id": table.pk,
                "session_id": session.pk,
                "turn_id": turn.pk,
                "banker_id": seats[0].player_id,
                "seat1": seats[1].pk,
                "seat2": seats[2].pk,
                "seat3": seats[3].pk,
            }
        )
    rules = rules_snapshot_keep(content=table_rules_snapshot(table))  # the coups' snapshot, by digest
    return (casino, croupier, rules), floors


# Coup i (0 <= i < N) is the k-th coup (k = i / T) of table t = i % T, coup k % 70 + 1 of that
# table's shoe k / 70; it is settled at an even spread over the year (UTC), so that gaming days
# (Paris, 06:00) cut through the night. Its outcome and bets come from a cheap hash of i.
BUILD_SQL = [
    """CREATE TEMP TABLE bench_floor (t int PRIMARY KEY, table_id bigint, session_id bigint, turn_id bigint,
       banker_id bigint, seat1 bigint, seat2 bigint, seat3 bigint)""",
    """INSERT INTO tables_shoe (session_id, table_id, number, decks, shuffled_at, burnt_cards, state,
           closed_at, close_reason, alarm, stop_reached, early_reshuffle, imported)
       SELECT f.session_id, f.table_id, s + 1, 6, %(start)s, '[]'::jsonb, 'closed',
              %(end)s, 'bench', false, true, false, false
       FROM bench_floor f CROSS JOIN generate_series(0, %(shoes)s - 1) s""",
    """CREATE TEMP TABLE bench_coup AS
       SELECT i, i %% %(tables)s AS t, i / %(tables)s AS k,
              %(start)s::timestamptz + (i::float8 * %(span)s / %(n)s) * interval '1 second' AS at,
              CASE WHEN (i * 7919) %% 100 < 46 THEN 'banker' WHEN (i * 7919) %% 100 < 92 THEN 'player'
                   ELSE 'tie' END AS outcome,
              1 + (i * 31) %% 3 AS nbets
       FROM generate_series(0::bigint, %(n)s - 1) i""",
    """ALTER TABLE bench_coup ADD PRIMARY KEY (i)""",
    """INSERT INTO tables_coup (shoe_id, number, banker_id, bank, state, bank_turn_id, rules_snapshot_id,
           first_coup_of_bank, flagged, alarm, step_count, created_at, settled_at)
       SELECT sh.id, c.k %% %(per_shoe)s + 1, f.banker_id, 1000, 'settled', f.turn_id, %(rules)s,
              c.k = 0, false, false, 1, c.at - interval '40 seconds', c.at
       FROM bench_coup c JOIN bench_floor f ON f.t = c.t
       JOIN tables_shoe sh ON sh.table_id = f.table_id AND sh.number = c.k / %(per_shoe)s + 1
       ORDER BY c.i""",
    """CREATE TEMP TABLE bench_coup_id AS
       SELECT c.i, co.id AS coup_id FROM bench_coup c JOIN bench_floor f ON f.t = c.t
       JOIN tables_shoe sh ON sh.table_id = f.table_id AND sh.number = c.k / %(per_shoe)s + 1
       JOIN tables_coup co ON co.shoe_id = sh.id AND co.number = c.k %% %(per_shoe)s + 1""",
    """ALTER TABLE bench_coup_id ADD PRIMARY KEY (i)""",
    """INSERT INTO tables_bet (coup_id, seat_id, amount, banco, banco_suivi, betting_order, withdrawn)
       SELECT ci.coup_id, CASE b WHEN 1 THEN f.seat1 WHEN 2 THEN f.seat2 ELSE f.seat3 END,
              50 * (1 + (c.i * 13 + b * 7) %% 6), false, false, b, false
       FROM bench_coup c JOIN bench_coup_id ci USING (i) JOIN bench_floor f ON f.t = c.t
       CROSS JOIN LATERAL generate_series(1, c.nbets) b""",
    """INSERT INTO tables_coupstep (coup_id, index, kind, payload, actor_id, created_at, violations,
           idempotency_key)
       SELECT ci.coup_id, 1, 'reveal',
              jsonb_build_object('verdict', jsonb_build_object('outcome', c.outcome)),
              %(actor)s, c.at, '[]'::jsonb, ''
       FROM bench_coup c JOIN bench_coup_id ci USING (i)""",
    """INSERT INTO tables_banktax (coup_id, basis, amount)
       SELECT ci.coup_id, cov.covered, cov.covered * 5 / 100
       FROM bench_coup c JOIN bench_coup_id ci USING (i)
       JOIN LATERAL (SELECT sum(amount) AS covered FROM tables_bet WHERE coup_id = ci.coup_id) cov ON true
       WHERE c.outcome = 'banker'""",
]

# The same figures straight from the tables: what an accountant would type at psql.
RAW_SQL = """
SELECT ((c.settled_at AT TIME ZONE 'Europe/Paris') - interval '6 hours')::date AS day, s.table_id,
       count(*), count(*) FILTER (WHERE st.payload -> 'verdict' ->> 'outcome' = 'banker'),
       sum(b.covered), COALESCE(sum(bt.amount), 0)
FROM tables_coup c
JOIN tables_shoe s ON s.id = c.shoe_id
JOIN tables_coupstep st ON st.coup_id = c.id AND st.kind = 'reveal'
LEFT JOIN (SELECT coup_id, sum(amount) AS covered FROM tables_bet WHERE NOT withdrawn GROUP BY coup_id) b
       ON b.coup_id = c.id
LEFT JOIN tables_banktax bt ON bt.coup_id = c.id
WHERE c.state = 'settled' AND c.settled_at >= %s AND c.settled_at < %s
GROUP BY 1, 2
"""


def build_coups(n: int, floors: list[dict[str, int]], casino_rules: tuple[Any, Any, Any]) -> None:

    from django.db import connection, transaction

    _, croupier, rules = casino_rules
    tables = len(floors)
    params = {
        "n": n,
        "tables": tables,
        "per_shoe": COUPS_PER_SHOE,
        "shoes": -(-n // tables // COUPS_PER_SHOE) + 1,
        "start": dt.datetime(YEAR, 1, 1, 6, tzinfo=dt.UTC),
        "end": dt.datetime(YEAR + 1, 1, 1, 4, tzinfo=dt.UTC),
        "span": 365 * 86400 - 3 * 3600,
        "rules": rules,
        "actor": croupier.pk,
    }
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit = off")
        for sql in BUILD_SQL:
            started = time.perf_counter()
            if sql.startswith("CREATE TEMP TABLE bench_floor"):
                cursor.execute(sql)
                for f in floors:
                    cursor.execute(
                        "INSERT INTO bench_floor VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                        [
                            f[k]
                            for k in (
                                "t",
                                "table_id",
                                "session_id",
                                "turn_id",
                                "banker_id",
                                "seat1",
                                "seat2",
                                "seat3",
                            )
                        ],
                    )
                continue
            cursor.execute(sql, params)
            what = " ".join(sql.split()[:3])
            print(f"    {what:<32} {cursor.rowcount:>10,} rows {time.perf_counter() - started:6.1f} s")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--coups", type=int, default=1_000_000, help="settled coups (default 1,000,000)")
    parser.add_argument("--tables", type=int, default=8, help="tables of the casino (default 8)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each (median; default 3)")
    args = parser.parse_args()
    with BenchRun("report_bench") as bench:
        measure(args, bench)


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    recreate_database(DB_NAME)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from reports.kinds import ReportRequest, report_write
    from tables.gaming_day import casino_calendar
    from tables.models import BankTax, Bet, Coup
    from tables.services.rollups import rollups_rebuild

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    casino_rules, floors = build_floor(args.tables)
    casino = casino_rules[0]
    print(f"levy report on PostgreSQL ({DB_NAME}): {args.coups:,} coups at {args.tables} tables in {YEAR}")
    build_coups(args.coups, floors, casino_rules)
    print(
        f"  built {Coup.objects.count():,} coups, {Bet.objects.count():,} bets, {BankTax.objects.count():,} "
        f"levies in {time.perf_counter() - started:.1f} s; peak RSS {peak_mib():.0f} MiB"
    )

    # The coups were written straight in SQL, without the audit events the rollups follow: derive
    # the rollups from the rows (what `manage.py rollups --rebuild` does), timed on its own.
    rebuilt_at = time.perf_counter()
    table_days = rollups_rebuild()
    rebuild_s = time.perf_counter() - rebuilt_at
    print(f"  rollups rebuilt from the rows: {table_days:,} table-days in {rebuild_s:.1f} s")

    start, end = dt.date(YEAR, 1, 1), dt.date(YEAR, 12, 31)
    lo, hi = casino_calendar(casino).bounds(start, end)

    def raw() -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute(RAW_SQL, [lo, hi])
            return cursor.fetchall()

    def report(fmt: str) -> Callable[[], tuple[int, int]]:
        def run() -> tuple[int, int]:
            out = io.BytesIO()
            result = report_write(
                request=ReportRequest(kind="levy", fmt=fmt, start=start, end=end, casino_id=casino.pk),
                out=out,
                progress=lambda *_: None,
            )
            return result.rows, len(out.getvalue())

        return run

    raw()  # warm the cache for both
    raw_s, rows = timed(raw, args.repeat)
    csv_s, (csv_rows, csv_bytes) = timed(report(csv := "csv"), args.repeat)
    xlsx_s, (xlsx_rows, xlsx_bytes) = timed(report("xlsx"), args.repeat)
    assert csv_rows == xlsx_rows == len(rows), (csv_rows, xlsx_rows, len(rows))
    out = io.BytesIO()
    report_write(
        request=ReportRequest(kind="levy", fmt=csv, start=start, end=end, casino_id=casino.pk),
        out=out,
        progress=lambda *_: None,
    )
    total = next(line for line in out.getvalue().decode().splitlines() if line.startswith("total,period,"))
    assert total.split(",")[-4:] == [str(sum(r[i] for r in rows)) for i in (2, 3, 4, 5)], total
    print(f"  median of {args.repeat}, {len(rows):,} day x table rows:")
    print(f"    raw SQL GROUP BY        {raw_s:8.2f} s")
    print(f"    report_write levy csv   {csv_s:8.2f} s  ratio {csv_s / raw_s:5.2f}x  ({csv_bytes:,} bytes)")
    print(
        f"    report_write levy xlsx  {xlsx_s:8.2f} s  ratio {xlsx_s / raw_s:5.2f}x  ({xlsx_bytes:,} bytes)"
    )
    print(f"  process peak RSS {peak_mib():.0f} MiB")
    raw_label = f"raw SQL GROUP BY day x table, one year, median of {args.repeat}"
    bench.add("levy_csv", figure=csv_s, baseline=raw_s, unit="s", baseline_label=raw_label)
    bench.add("levy_xlsx", figure=xlsx_s, baseline=raw_s, unit="s", baseline_label=raw_label)
    bench.add("rollups_rebuild", figure=rebuild_s, baseline=raw_s, unit="s", baseline_label=raw_label)


if __name__ == "__main__":
    main()
