"""Two tablets at once, on real PostgreSQL connections in real threads: the table's row locks make
them queue, so exactly one records the next step and the other is told it is stale; a request
replayed while the first is still running waits for it and gets its answer."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from audit.selectors import audit_chains_verify
from core.models import IdempotencyRecord
from tables.models import CoupStep
from tests.factories import CroupierAssignmentFactory, UserFactory
from tests.problems import DERIVED
from tests.tables.play import open_floor

from .conftest import Api

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.concurrency]


def race(*calls: tuple[Api, str, dict[str, Any], str]) -> list[tuple[int, dict[str, Any]]]:
    """POST every (client, path, body, key) at the same moment, one thread each."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int, api: Api, path: str, body: dict[str, Any], key: str) -> None:
        try:
            barrier.wait(timeout=10)
            response = api.post(path, body, key=key)
            results[i] = (response.status_code, response.json())
        except Exception as exc:  # reported by the assertion below, with the thread's error
            results[i] = (0, {"error": repr(exc)})
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, *call)) for i, call in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


def test_two_tablets_post_the_next_step_at_once(croupier, table) -> None:
    open_floor(croupier, table)
    second = UserFactory(username="second_tablet", roles=["croupier"])
    CroupierAssignmentFactory(user=second, table=table)
    one, two = Api(croupier), Api(second)
    coup = one.ok(one.post(f"/tables/{table.pk}/coups/", {"bank": 1000}))["coup"]["id"]
    path = f"/coups/{coup}/steps/"
    for n in range(1, 6):
        results = race(
            (one, path, {"step": n, "kind": "bet", "seat": 2, "amount": 10}, f"one-{n}"),
            (two, path, {"step": n, "kind": "bet", "seat": 3, "amount": 10}, f"two-{n}"),
        )
        statuses = sorted(status for status, _ in results)
        assert statuses == [201, 409], results
        conflict = next(body for status, body in results if status == 409)
        assert {k: v for k, v in conflict.items() if k not in DERIVED} == {
            "code": "coup_conflict",
            "detail": f"Stale step: the coup is at step {n + 1}, not {n}.",
            "current_step": n + 1,
        }
        assert CoupStep.objects.filter(coup_id=coup).count() == n + 1
    assert list(CoupStep.objects.filter(coup_id=coup).order_by("index").values_list("index", flat=True)) == [
        1, 2, 3, 4, 5, 6,
    ]  # fmt: skip
    assert IdempotencyRecord.objects.filter(status_code=201).count() == 1 + 5  # the start + one per round
    assert all(report.ok for report in audit_chains_verify())  # every chain


def test_a_replay_racing_its_original_gets_the_same_answer(croupier, table) -> None:
    open_floor(croupier, table)
    one, again = Api(croupier), Api(croupier)  # the same tablet, retrying on a second connection
    coup = one.ok(one.post(f"/tables/{table.pk}/coups/", {"bank": 1000}))["coup"]["id"]
    body = {"step": 1, "kind": "bet", "seat": 2, "amount": 10}
    results = race(
        (one, f"/coups/{coup}/steps/", body, "retry"), (again, f"/coups/{coup}/steps/", body, "retry")
    )
    assert [status for status, _ in results] == [201, 201], results
    assert results[0][1] == results[1][1]
    assert CoupStep.objects.filter(coup_id=coup).count() == 2
    assert IdempotencyRecord.objects.filter(key="retry").count() == 1
    assert all(report.ok for report in audit_chains_verify())  # every chain
