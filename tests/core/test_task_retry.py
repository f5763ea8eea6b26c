"""A periodic task the database broke off runs again (issue 20, item 7): the per-minute alert scan
lost a deadlock to the floor and its run was lost; now it runs again after a growing pause, and
fails loudly only once its runs are spent. Any other error is not retried."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError

from access import tasks as access_tasks
from core import task_retry
from core import tasks as core_tasks
from review import tasks as review_tasks
from tables import tasks as table_tasks
from tests.core.test_transient import broken_off

pytestmark = pytest.mark.django_db


@pytest.fixture
def pauses(monkeypatch) -> list[float]:
    waited: list[float] = []
    monkeypatch.setattr(task_retry.time, "sleep", waited.append)
    return waited


def flaky(fails: int, error: BaseException) -> tuple[list[int], Any]:
    calls: list[int] = []

    def run(**_kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) <= fails:
            raise error
        return []

    return calls, run


def test_the_alert_scan_that_lost_a_deadlock_runs_again(monkeypatch, pauses) -> None:
    calls, run = flaky(2, broken_off("40P01"))
    monkeypatch.setattr(review_tasks, "alerts_raise", run)
    assert review_tasks.alerts_raise_task.delay().get() == {"raised": 0}
    assert len(calls) == 3
    # jittered: each pause between half and all of 0.5 s, then 1 s
    assert len(pauses) == 2 and 0.25 <= pauses[0] <= 0.5 and 0.5 <= pauses[1] <= 1.0


def test_a_lock_timeout_is_retried_too(monkeypatch, pauses) -> None:
    calls, run = flaky(1, broken_off("55P03"))
    monkeypatch.setattr(review_tasks, "alerts_raise", run)
    assert review_tasks.alerts_raise_task.delay().get() == {"raised": 0}
    assert len(calls) == 2 and len(pauses) == 1


def test_its_runs_spent_it_fails_loudly(monkeypatch, pauses) -> None:
    calls, run = flaky(99, broken_off("40P01"))
    monkeypatch.setattr(review_tasks, "alerts_raise", run)
    with pytest.raises(OperationalError, match="40P01"):
        review_tasks.alerts_raise_task.delay()
    assert len(calls) == len(task_retry.PAUSES) + 1 == 6
    assert len(pauses) == 5 and sum(pauses) <= sum(task_retry.PAUSES)


@pytest.mark.parametrize("error", [ValueError("a bug"), OperationalError("no such table: review_alert")])
def test_another_error_is_not_retried(monkeypatch, pauses, error) -> None:
    calls, run = flaky(99, error)
    monkeypatch.setattr(review_tasks, "alerts_raise", run)
    with pytest.raises(type(error)):
        review_tasks.alerts_raise_task.delay()
    assert len(calls) == 1 and pauses == []


@pytest.mark.parametrize(
    "task",
    [
        review_tasks.alerts_raise_task,
        table_tasks.bill_hourly_fees,
        table_tasks.bill_due_hourly_fees,
        table_tasks.rollups_refresh_task,
        access_tasks.purge_idempotency_records,
        access_tasks.summarise_login_failures,
        core_tasks.purge_outbox,
    ],
)
def test_every_idempotent_periodic_task_is_retried(task) -> None:
    # the task's body is retry_broken_off's wrapper around the service call
    assert task.run.__wrapped__.__name__ == task.run.__name__
    assert task.run.__code__ is task_retry.retry_broken_off(lambda: None).__code__
