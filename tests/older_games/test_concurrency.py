"""Two tablets at one game coup, and three game tables of one casino at once: the lock order holds
(no deadlock), a stale tablet is refused, nothing is written twice."""

from __future__ import annotations

import random
import threading
from typing import Any

import pytest
from django.db import connection

from audit.selectors import audit_chain_verify
from ledger.models import Entry
from older_games import services as svc
from older_games.selectors import game_coup_view
from tables.lifecycle import CoupConflict
from tables.models import GameCoup, GameStep

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.concurrency]


def _threads(targets: list[Any]) -> list[BaseException]:
    errors: list[BaseException] = []
    start = threading.Barrier(len(targets))

    def run(target: Any) -> None:
        try:
            start.wait()
            target()
        except BaseException as exc:  # reported by the caller; a thread must not die silently
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(t,)) for t in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


def test_two_tablets_send_the_same_step_one_is_refused_as_stale(game_table, croupier):
    _table, session, _players = game_table("macao", players=3)
    coup = svc.game_coup_start(actor=croupier, session=session).coup

    def tablet(card: str) -> Any:
        return lambda: svc.game_step_record(
            actor=croupier, coup=coup.pk, payload={"kind": "deal", "card": card}, expected_steps=0
        )

    errors = _threads([tablet("2H"), tablet("3H")])
    assert len(errors) == 1 and isinstance(errors[0], CoupConflict)
    assert GameStep.objects.filter(coup=coup).count() == 1
    assert GameCoup.objects.get(pk=coup.pk).step_count == 1


def test_three_game_tables_of_one_casino_play_at_once(game_table, croupier):
    tables = [game_table(game, players=4) for game in ("macao", "landsknecht", "old-baccarat")]
    svc.game_fund_collect(actor=croupier, session=tables[1][1])

    def night(session: Any, seed: int) -> Any:
        def play() -> None:
            rng = random.Random(seed)
            for _ in range(4):
                coup = svc.game_coup_start(actor=croupier, session=session).coup
                # nobody leaves the table (old baccarat's leave): four coups at four players each
                while options := [o for o in game_coup_view(coup).next_steps if o["kind"] != "leave"]:
                    option = rng.choice(options)
                    payload = {"kind": option["kind"]}
                    if "player" in option:
                        payload["player"] = option["player"]
                    if "cards" in option:
                        payload["card"] = rng.choice(option["cards"])
                    if "amounts" in option:
                        payload["amount"] = rng.choice(option["amounts"])
                    if "choices" in option:
                        payload["decision"] = rng.choice(option["choices"])
                    coup = svc.game_step_record(actor=croupier, coup=coup, payload=payload).coup

        return play

    errors = _threads([night(session, seed) for seed, (_t, session, _p) in enumerate(tables)])
    assert errors == []
    assert GameCoup.objects.filter(state="settled").count() == 12
    assert sum(Entry.objects.values_list("amount", flat=True)) == 0
    casino = tables[0][0].casino
    report = audit_chain_verify(chain=casino.pk)
    assert report.ok
