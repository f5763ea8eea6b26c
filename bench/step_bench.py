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
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DB_NAME = "chemin_bench"
SERVER = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")
os.environ["DATABASE_URL"] = f"{SERVER}/{DB_NAME}"
os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings.test"


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


recreate_database()

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.authtoken.models import Token  # noqa: E402

from ledger import services as ledger  # noqa: E402
from tables import services  # noqa: E402
from tables.models import RuleProfile, Table  # noqa: E402

SUITS = "SHDC"
DECKS = 8


RANKS = "A23456789TJQK"
VALUE = {r: (i + 1) % 10 if i < 9 else 0 for i, r in enumerate(RANKS)}


class Cards:
    """Hands out cards worth what is asked, spreading ranks and suits so that no card is seen more
    often than the shoe holds (which would raise a shoe alarm)."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def _take(self, rank: str) -> str:
        suit = min(SUITS, key=lambda s: self.seen[rank + s])
        card = rank + suit
        self.seen[card] += 1
        assert self.seen[card] <= DECKS, card
        return card

    def _left(self, rank: str) -> int:
        return sum(DECKS - self.seen[rank + s] for s in SUITS)

    def pair(self, total: int) -> tuple[str, str]:
        """Two cards totalling ``total`` (mod 10)."""
        pairs = [(a, b) for a in RANKS for b in RANKS if (VALUE[a] + VALUE[b]) % 10 == total]
        a, b = max(pairs, key=lambda p: min(self._left(p[0]), self._left(p[1])) - (p[0] == p[1]))
        return self._take(a), self._take(b)

    def zero(self) -> str:
        return self._take(max("TJQK", key=self._left))


def setup() -> tuple[Table, Any, str]:
    now = timezone.now()
    croupier = services.staff_member_create(
        actor=None, username="bench-croupier", password="bench-password-123", roles=["croupier"]
    )
    casino = services.casino_create(actor=None, name="Bench casino", levy_mode="percentage", levy_rate_bp=500)
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
    token = Token.objects.create(user=croupier)
    return table, croupier, token.key


def coup_plan(pattern: int, bank: int, cards: Cards) -> list[dict[str, Any]]:
    """The steps of one coup after the bank is declared (the engine agrees with each one)."""
    if pattern == 0:  # three bets; both sides draw by the tableau: 3 + 0 each, a stand-off
        third = bank // 3
        bets = [(2, third), (3, third), (4, bank - 2 * third)]
        plan = [{"kind": "bet", "seat": s, "amount": a} for s, a in bets] + [{"kind": "bets_closed"}]
        plan += deal(cards.pair(3), cards.pair(3))
        plan += [
            {"kind": "player_draw"},
            {"kind": "card_to_player", "card": cards.zero()},
            {"kind": "banker_draw"},
            {"kind": "card_to_banker", "card": cards.zero()},
        ]
    elif pattern == 1:  # two bets; both stand on 6: a stand-off
        plan = [{"kind": "bet", "seat": 2, "amount": bank // 2}, {"kind": "bet", "seat": 4, "amount": 1}]
        plan += [{"kind": "bets_closed"}, *deal(cards.pair(6), cards.pair(6))]
        plan += [{"kind": "player_stand"}, {"kind": "banker_stand"}]
    elif pattern == 2:  # banco; two naturals of 9: a stand-off
        plan = [{"kind": "banco", "callers": [{"seat": 3}]}, {"kind": "bets_closed"}]
        plan += [*deal(cards.pair(9), cards.pair(9)), {"kind": "player_natural"}]
    else:  # one small bet; the banker shows a natural 8 against the player's 5
        plan = [{"kind": "bet", "seat": 2, "amount": 10}, {"kind": "bets_closed"}]
        plan += [*deal(cards.pair(5), cards.pair(8)), {"kind": "player_stand"}, {"kind": "banker_natural"}]
    return [*plan, {"kind": "reveal"}]


def deal(player: tuple[str, str], banker: tuple[str, str]) -> list[dict[str, Any]]:
    """P1, B1, P2, B2."""
    order = [("card_to_player", player[0]), ("card_to_banker", banker[0])]
    order += [("card_to_player", player[1]), ("card_to_banker", banker[1])]
    return [{"kind": kind, "card": card} for kind, card in order]


class Driver:
    def __init__(self, table: Table, token: str) -> None:
        self.client = Client(headers={"authorization": f"Token {token}"})
        self.table = table
        self.bank = 300
        self.cards = Cards()
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.queries: dict[str, list[int]] = defaultdict(list)
        self.cpu: list[float] = []  # this process's CPU per POST: the share that is not the database

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
    setup_test_environment()
    call_command("migrate", verbosity=0)
    table, _croupier, token = setup()
    driver = Driver(table, token)

    # warm up (imports, connection, caches): one coup of each pattern, not counted
    for _ in driver.coups(iter(range(4)), record=False, capture=False):
        pass
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
        f" (the rest is PostgreSQL and waiting for it); load average {os.getloadavg()[0]:.1f}"
    )
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
