"""Benchmark: posting a settled coup to the ledger on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/chemin .venv/bin/python bench/ledger_bench.py [N]

Creates a throw-away database next to DATABASE_URL's (``bench_ledger_<pid>``, or ``BENCH_DB_NAME``),
plays N coups
(default 500) at a casino table with 3-5 punters and random outcomes, and prints the median and
p95 of ``tables.money.settlement.coup_settle`` — one database transaction each, COMMIT included (the
deferred balance trigger runs there) — and, for comparison, of ``bank_fund``. Target (issue):
median under 10 ms for coup_settle.

Baseline, same run, same process, the same clock: one trivial ORM query (``Casino.objects.filter(
pk=…).first()``, median of 300), what any request pays for one round trip through Django and the
driver. Why: ``coup_settle`` sends about 15 statements, so its median over that baseline is "how
many trivial queries a settlement costs", which moves far less with the machine's load than the
milliseconds do. The final ``summary`` lines (bench/baseline.py) give ``coup_settle`` and
``bank_fund`` beside it, with the load average at the start and the end.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction  # noqa: E402
from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLWrapper  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.baseline import BenchRun, median_ms  # noqa: E402
from chemin_de_fer.engine.coup import Outcome, Stake  # noqa: E402
from chemin_de_fer.engine.punters import seat_key  # noqa: E402
from chemin_de_fer.engine.settlement import LevyTerms, settle  # noqa: E402
from ledger import services as ledger  # noqa: E402
from ledger.selectors import ledger_drift, trial_balance, unbalanced_transactions  # noqa: E402
from tables import models as m  # noqa: E402
from tables.money import banks  # noqa: E402
from tables.money import settlement as coup_money  # noqa: E402
from tables.services.rules_snapshots import rules_snapshot_keep  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def setup_floor():
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user("bench", password="bench-only-not-a-secret")
    casino = m.Casino.objects.create(name="Bench", levy_mode="percentage", levy_rate_bp=500)
    profile = m.RuleProfile.objects.get(slug="casino")
    table = m.Table.objects.create(casino=casino, name="T1", profile=profile)
    now = timezone.now()
    session = m.TableSession.objects.create(table=table, opened_at=now, opened_by=user)
    shoe = m.Shoe.objects.create(session=session, table=table, number=1, decks=6, shuffled_at=now)
    players, seats = [], []
    for n in range(1, 7):
        player = m.Player.objects.create(casino=casino, display_name=f"Player {n}")
        seats.append(m.Seat.objects.create(session=session, player=player, number=n, joined_at=now))
        players.append(player)
        ledger.cage_buy_in(casino=casino, player=player, amount=10**7, actor=user, key=f"bench:buyin:{n}")
    return user, casino, table, session, shoe, players, seats


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    if connection.vendor != "postgresql":
        sys.exit("this benchmark needs PostgreSQL (DATABASE_URL=postgres://...)")
    name = os.environ.get("BENCH_DB_NAME") or f"bench_ledger_{os.getpid()}"
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = name
    with BenchRun("ledger_bench") as bench:
        old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
        try:
            run(n, bench)
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)


def run(n: int, bench: BenchRun) -> None:
    rnd = random.Random(3)
    user, casino, table, session, shoe, players, seats = setup_floor()
    levy = LevyTerms.for_profile(table.profile.as_engine())
    borrowing = table.profile.borrowing_allowed
    banker_index, turn, bank_held = 0, None, 0
    settle_ms: list[float] = []
    settle_cpu_ms: list[float] = []  # this process's CPU only: the Django/Python side
    fund_ms: list[float] = []
    for number in range(1, n + 1):
        banker, seat = players[banker_index], seats[banker_index]
        if turn is None:
            turn = m.BankTurn.objects.create(
                session=session,
                player=banker,
                seat=seat,
                rotation_from=seat,
                started_at=timezone.now(),
                started_how="lot",
                required_minimum=1,
            )
        bank = bank_held + rnd.choice([0, 0, 50, 100]) if bank_held else rnd.randrange(200, 1000)
        coup = m.Coup.objects.create(
            shoe=shoe,
            number=number,
            banker=banker,
            bank=bank,
            bank_turn=turn,
            rules_snapshot_id=rules_snapshot_keep(content={}),
            state="settled",
            created_at=timezone.now(),
            settled_at=timezone.now(),
        )
        t0 = time.perf_counter()
        with transaction.atomic():
            banks.bank_fund(
                coup=coup, amount=coup.bank, actor=user, key=f"coup:{coup.pk}:bank", borrowing=borrowing
            )
        fund_ms.append((time.perf_counter() - t0) * 1000)

        others = [i for i in range(len(players)) if i != banker_index]
        punters = rnd.sample(others, rnd.randint(3, 5))
        room, bets = bank, []
        for i in punters:
            amount = rnd.randint(1, max(1, room // 3))
            bets.append(Stake(seat_key(i + 1), amount))
            room -= amount
        outcome = rnd.choice([Outcome.BANKER, Outcome.PLAYER, Outcome.TIE])
        result = settle(outcome=outcome, bank=bank, bets=bets, levy=levy, uncovered_to_reserve=False)
        punter_map = {seat_key(i + 1): players[i] for i in punters}

        t0, c0 = time.perf_counter(), time.process_time()
        with transaction.atomic():
            coup_money.coup_settle(
                coup=coup,
                settlement=result,
                punters=punter_map,
                uncovered_to_reserve=False,
                house_limit=None,
                actor=user,
                key=f"coup:{coup.pk}:settle",
                borrowing=borrowing,
            )
        settle_ms.append((time.perf_counter() - t0) * 1000)
        settle_cpu_ms.append((time.process_time() - c0) * 1000)

        if result.next_bank_min is None:  # lost: the bank returns to him and passes on
            turn.ended_at, turn.end_reason = timezone.now(), "lost"
            turn.save(update_fields=["ended_at", "end_reason"])
            with transaction.atomic():
                banks.bank_close(table=table, banker=banker, actor=user, key=f"turn:{turn.pk}:close")
            turn, bank_held = None, 0
            banker_index = (banker_index + 1) % len(players)
        else:
            bank_held = result.next_bank_min

    # calibration: what one trivial ORM query costs on this machine (coup_settle sends 15
    # statements: 2 ORM INSERTs, 7 in SQL from ledger/sql.py, tables/money/settlement.py and audit,
    # 2 locks, 4 savepoints)
    c0 = time.process_time()
    orm_wall = median_ms(lambda: m.Casino.objects.filter(pk=casino.pk).first(), 300)
    orm_cpu = (time.process_time() - c0) / 0.3

    report = trial_balance(casino=casino)
    assert report.balanced and not ledger_drift() and not unbalanced_transactions()
    database = connections[DEFAULT_DB_ALIAS]
    assert isinstance(database, PostgreSQLWrapper)  # main() runs on nothing else
    print(f"coups posted: {n} (3-5 punters each), PostgreSQL {database.pg_version}")
    rows = (
        ("coup_settle", settle_ms),
        ("  of which client CPU", settle_cpu_ms),
        ("bank_fund (when a bank changes)", fund_ms),
    )
    for label, values in rows:
        print(
            f"{label:32s} median {statistics.median(values):6.2f} ms   p95 {percentile(values, 0.95):6.2f} ms"
            f"   max {max(values):6.2f} ms"
        )
    print(
        f"calibration: one trivial ORM select  median {orm_wall:6.2f} ms   client CPU {orm_cpu:.2f} ms (mean)"
    )
    verdict = "OK" if statistics.median(settle_ms) < 10 else "ABOVE TARGET"
    print(f"target: coup_settle median < 10 ms: {verdict}")
    print(f"trial balance: debits {report.debits} = credits {report.credits}")
    label = "one trivial ORM select, median of 300, same run"
    bench.add("coup_settle", figure=statistics.median(settle_ms), baseline=orm_wall, unit="ms",
              baseline_label=label)  # fmt: skip
    bench.add("bank_fund", figure=statistics.median(fund_ms), baseline=orm_wall, unit="ms",
              baseline_label=label)  # fmt: skip


if __name__ == "__main__":
    main()
