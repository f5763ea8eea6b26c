"""Benchmark: the older games' coups through the floor's services on PostgreSQL (a plain script: it
prints numbers, and exits non-zero only if the books or the audit chain disagree afterwards).

    .venv/bin/python bench/game_bench.py [COUPS]     # coups per game, default 200

Creates its own database (``chemin_game_bench``, dropped and re-created on every run; the server is
``BENCH_DATABASE_URL``, default ``postgres://postgres@127.0.0.1:5432``), one table per older game
(Macao, Landsknecht, old baccarat) with six seated players holding chips, and plays COUPS coups at
each through ``game_coup_start`` and ``game_step_record``, each step a seeded random choice among
the coup's legal next steps (``older_games.engine.game_play``). Prints per game: steps/s, milliseconds
per step (median and p99), SQL queries per step and per coup, and how long the coup's last step
(replay, settlement postings, offline judge) takes; then runs ``verify_books`` and
``verify_audit``.

Baseline, same run, timed the same way (wall ms around one call, this process): ``GET
/api/v1/me/`` through Django's test ``Client`` with the croupier's token, one right after each
recorded step (bench/step_bench.py's baseline). Why that one: it is the cheapest request the API
answers with authentication, a read and a rendered answer, so the ratio step / ``/me/`` says how
many plain requests an older game's step costs, in the same second of the same machine; the
milliseconds alone move with the load. (The step is a service call, no HTTP: the ratio is a
generous one for the step.) The final ``summary`` lines (bench/baseline.py) give each game's step
median beside the ``/me/`` median of its own run, and the load average at the start and the end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.baseline import BenchRun, me_in_process  # noqa: E402
from bench.database import SERVER, bench_db_name, recreate_database  # noqa: E402

DB_NAME = bench_db_name("chemin_game_bench")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"

HOUSES: dict[str, dict[str, Any]] = {
    "macao": {"unit": 10},
    "landsknecht": {"min_stake": 10, "fund_due": 10},
    "old-baccarat": {"min_stake": 10, "tie_rule": "pool"},
}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("coups", nargs="?", type=int, default=200, help="coups per game (default 200)")
    args = parser.parse_args()
    with BenchRun("game_bench") as bench:
        measure(args, bench)


def measure(args: argparse.Namespace, bench: BenchRun) -> None:
    recreate_database(DB_NAME)
    import django

    django.setup()

    from django.core.management import call_command
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment
    from django.utils import timezone

    from access.services.tokens import api_token_create
    from ledger.services import cage_buy_in
    from older_games import services as game_coups
    from older_games.selectors import game_coup_view
    from tables import services
    from tables.models import RuleProfile

    setup_test_environment()  # the test client's host
    call_command("migrate", verbosity=0)
    now = timezone.now()
    croupier = services.staff_member_create(
        actor=None, username="bench-croupier", password="bench-password-123", roles=["croupier"]
    )
    casino = services.casino_create(actor=None, name="Bench casino")
    services.casino_staff_grant(actor=None, user=croupier, casino=casino)
    client = Client(headers={"authorization": f"Token {api_token_create(user=croupier)}"})
    me_in_process(client, 20)  # the baseline's warm-up
    rng = random.Random(12)
    print(f"older games through the services on PostgreSQL ({DB_NAME}): {args.coups} coups per game")
    for game, house in HOUSES.items():
        table = services.table_create(
            actor=None,
            casino=casino,
            name=game,
            profile=RuleProfile.objects.get(slug="casino"),
            game=game,
            game_settings=house,
        )
        services.croupier_assignment_create(
            actor=None,
            user=croupier,
            table=table,
            shift_start=now - dt.timedelta(hours=1),
            shift_end=now + dt.timedelta(hours=12),
        )
        session = services.table_session_open(actor=croupier, table=table)
        for n in range(1, 7):
            player = services.player_create(actor=croupier, casino=casino, display_name=f"{game} {n}")
            cage_buy_in(casino=casino, player=player, amount=1_000_000, actor=croupier, key=f"buy:{game}:{n}")
            services.seat_take(actor=croupier, session=session, player=player, number=n)
        if game == "landsknecht":
            game_coups.game_fund_collect(actor=croupier, session=session)

        step_ms: list[float] = []
        me_ms: list[float] = []
        last_ms: list[float] = []
        queries = steps = 0
        started = time.perf_counter()
        for _ in range(args.coups):
            reset_queries()  # the log keeps 9,000 queries: counted per call, not across the run
            with CaptureQueriesContext(connection) as captured:
                coup = game_coups.game_coup_start(actor=croupier, session=session).coup
            queries += len(captured.captured_queries)
            while True:
                # what a screen would offer (not timed); nobody leaves (old baccarat's leave), so the
                # table keeps its players for the whole run
                options = [o for o in game_coup_view(coup).next_steps if o["kind"] != "leave"]
                if not options:
                    break
                option = rng.choice(options)
                payload: dict[str, Any] = {"kind": option["kind"]}
                for key, source in (("player", "player"), ("card", "cards"), ("amount", "amounts")):
                    if source in option:
                        value = option[source]
                        payload[key] = rng.choice(value) if isinstance(value, list) else value
                if "choices" in option:
                    payload["decision"] = rng.choice(option["choices"])
                reset_queries()
                t0 = time.perf_counter()
                with CaptureQueriesContext(connection) as captured:
                    result = game_coups.game_step_record(
                        actor=croupier, coup=coup, payload=payload, expected_steps=coup.step_count
                    )
                elapsed = (time.perf_counter() - t0) * 1000
                queries += len(captured.captured_queries)
                steps += 1
                step_ms.append(elapsed)
                me_ms += me_in_process(client, 1)[0]
                coup = result.coup
                if coup.state != "open":
                    last_ms.append(elapsed)
        wall = time.perf_counter() - started
        print(
            f"  {game:13s} {steps:6d} steps; recording alone {steps / (sum(step_ms) / 1000):,.0f} steps/s; "
            f"step median {statistics.median(step_ms):.1f} ms, p99 {percentile(step_ms, 99):.1f} ms; "
            f"last step (settles) median {statistics.median(last_ms):.1f} ms; "
            f"{queries / steps:.1f} queries a step, {queries / args.coups:.0f} a coup; "
            f"wall {wall:.1f} s with the screen's reads and the baseline"
        )
        print(
            f"  {'':13s} baseline GET /api/v1/me/ (one after each step):"
            f" median {statistics.median(me_ms):.1f} ms,"
            f" p99 {percentile(me_ms, 99):.1f} ms"
        )
        bench.add(
            f"{game.replace('-', '_')}_step_median",
            figure=statistics.median(step_ms),
            baseline=statistics.median(me_ms),
            unit="ms",
            baseline_label=f"GET /api/v1/me/ in-process, {len(me_ms)} interleaved",
        )
    out = io.StringIO()
    failed = False
    for command in ("verify_books", "verify_audit"):
        try:
            call_command(command, stdout=out, stderr=out)
            verdict = "ok"
        except SystemExit as exc:
            verdict, failed = f"exit {exc.code}", failed or bool(exc.code)
        print(f"  {command}: {verdict}")
    if failed:
        print(out.getvalue())
        sys.exit(1)


if __name__ == "__main__":
    main()
