"""A transaction the database broke off (deadlock, lock timeout) is run exactly once more, then
refused with a stable JSON answer (409 ``retry`` / 503 ``lock_timeout``), never a 500, and leaves
nothing half-written."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import OperationalError, connection, transaction
from django.urls import reverse

from audit.models import AuditEvent
from core.db_limits import web_limits_set
from core.errors import (
    DatabaseBusy,
    DatabaseUnavailable,
    RetryConflict,
    StatementTimeout,
    busy_refusal,
    error_answer,
    unavailable_refusal,
)
from core.models import IdempotencyRecord
from core.transient import run_retrying
from tables import services
from tables.models import Casino, Player
from tests.factories import CasinoFactory
from tests.tables.api.conftest import Api
from tests.tables.play import open_floor, row_counts
from tests.tables.views.conftest import HTMX

pytestmark = pytest.mark.django_db


class _DriverError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(f"driver error {sqlstate}")
        self.sqlstate = sqlstate


def broken_off(sqlstate: str) -> OperationalError:
    """An OperationalError as Django raises it from psycopg's (``__cause__`` has the SQLSTATE)."""
    error = OperationalError(f"SQLSTATE {sqlstate}")
    error.__cause__ = _DriverError(sqlstate)
    return error


# ------------------------------------------------------------------------------------ the mapping
@pytest.mark.parametrize(
    ("sqlstate", "status", "code", "kind"),
    [
        ("40P01", 409, "retry", RetryConflict),  # deadlock detected
        ("40001", 409, "retry", RetryConflict),  # serialization failure
        ("55P03", 503, "lock_timeout", DatabaseBusy),  # lock not available
        ("57014", 503, "statement_timeout", StatementTimeout),  # query cancelled
    ],
)
def test_each_broken_off_transaction_has_its_answer(sqlstate, status, code, kind) -> None:
    refusal = busy_refusal(broken_off(sqlstate))
    assert type(refusal) is kind
    answer = error_answer(broken_off(sqlstate))
    assert answer is not None and (answer.status, answer.code) == (status, code)
    assert answer.body["code"] == code and "nothing was recorded" in answer.body["detail"]
    if kind is not StatementTimeout:  # said of any request, the token's, the cage's, a report's
        assert answer.body["detail"] == "The database was busy and nothing was recorded: send it again."


def test_other_database_errors_stay_bugs() -> None:
    assert busy_refusal(broken_off("08006")) is None  # connection failure: not busy, unavailable
    assert isinstance(unavailable_refusal(broken_off("08006")), DatabaseUnavailable)
    assert unavailable_refusal(broken_off("42P01")) is None  # undefined table: a bug
    assert error_answer(OperationalError("no such table")) is None
    assert busy_refusal(ValueError("40P01")) is None
    assert isinstance(busy_refusal(OperationalError("database is locked")), DatabaseBusy)  # SQLite


# --------------------------------------------------------------------------------------- retrying
def test_a_broken_off_transaction_is_run_exactly_once_more() -> None:
    calls: list[int] = []

    def work() -> str:
        calls.append(1)
        with transaction.atomic():
            if len(calls) == 1:
                raise broken_off("40P01")
            return "done"

    assert run_retrying(work) == "done" and len(calls) == 2


@pytest.mark.parametrize(("sqlstate", "kind"), [("40P01", RetryConflict), ("55P03", DatabaseBusy)])
def test_twice_broken_off_it_is_refused_after_one_retry(sqlstate, kind) -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        with transaction.atomic():
            raise broken_off(sqlstate)

    with pytest.raises(kind) as refused:
        run_retrying(work)
    assert len(calls) == 2 and isinstance(refused.value.__cause__, OperationalError)


def test_inside_an_enclosing_transaction_it_is_not_retried_but_passed_up() -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        raise broken_off("40P01")

    with pytest.raises(OperationalError), transaction.atomic():
        run_retrying(work)  # the enclosing block is the one to run again: not half of it
    assert len(calls) == 1


def test_any_other_error_is_not_retried() -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        raise broken_off("08006")

    with pytest.raises(OperationalError):
        run_retrying(work)
    assert len(calls) == 1


# ------------------------------------------------------------------------------------- the API
BET = {"step": 1, "kind": "bet", "seat": 2, "amount": 40}


@pytest.fixture
def coup(croupier, table) -> int:
    open_floor(croupier, table, spectators=1)
    api = Api(croupier)
    return api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]


def _deadlocking(monkeypatch, name: str, *, times: int) -> list[int]:
    """Make ``services.<name>`` run for real (writing its rows and keeping its audit events), then
    be broken off by a deadlock, ``times`` times."""
    real = getattr(services, name)
    calls: list[int] = []

    def flaky(**kwargs: Any) -> Any:
        calls.append(1)
        with transaction.atomic():  # the service's own transaction, broken off at its very end
            result = real(**kwargs)
            if len(calls) <= times:
                raise broken_off("40P01")
        return result

    monkeypatch.setattr(services, name, flaky)
    return calls


def test_api_a_deadlocked_step_is_retried_once_and_goes_through(croupier, coup, monkeypatch) -> None:
    calls = _deadlocking(monkeypatch, "coup_step_record", times=1)
    api = Api(croupier)
    before = row_counts()
    response = api.post(f"/coups/{coup}/steps/", BET, key="k1")
    assert response.status_code == 201, response.content
    assert len(calls) == 2
    after = row_counts()
    assert after["CoupStep"] == before["CoupStep"] + 1  # once, not twice
    assert IdempotencyRecord.objects.filter(key="k1").count() == 1
    assert AuditEvent.objects.filter(action="tables.coup.step").count() == 1


def test_api_deadlocked_twice_answers_409_retry_with_nothing_written(croupier, coup, monkeypatch) -> None:
    calls = _deadlocking(monkeypatch, "coup_step_record", times=2)
    api = Api(croupier)
    before = row_counts()
    events = AuditEvent.objects.count()
    response = api.post(f"/coups/{coup}/steps/", BET, key="k2")
    assert (response.status_code, response["Content-Type"]) == (409, "application/problem+json")
    assert response.json()["code"] == "retry" and len(calls) == 2
    assert row_counts() == before and AuditEvent.objects.count() == events
    assert not IdempotencyRecord.objects.filter(key="k2").exists()  # the client may send it again
    # and when it does, it goes through
    monkeypatch.undo()
    again = api.post(f"/coups/{coup}/steps/", BET, key="k2")
    assert again.status_code == 201


def test_api_a_lock_timeout_twice_answers_503(croupier, table, coup, monkeypatch) -> None:
    def busy(**kwargs: Any) -> Any:
        raise broken_off("55P03")

    monkeypatch.setattr(services, "coup_step_record", busy)
    response = Api(croupier).post(f"/coups/{coup}/steps/", BET)
    answer = (response.status_code, response.json()["code"], response["Retry-After"])
    assert answer == (503, "lock_timeout", "1")


# ----------------------------------------------------------------------------- croupier's screens
def test_screens_a_deadlock_twice_shows_a_notice_not_a_500(croupier, table, monkeypatch) -> None:
    from django.test import Client

    open_floor(croupier, table)
    client = Client()
    client.force_login(croupier)
    calls = _deadlocking(monkeypatch, "coup_start", times=2)
    before = row_counts()
    response = client.post(reverse("floor:coup_start", args=[table.pk]), {"amount": 100}, **HTMX)
    assert response.status_code == 409 and len(calls) == 2
    assert "The table was busy and nothing was recorded" in response.content.decode()
    assert row_counts() == before


def test_any_other_page_answers_a_broken_off_transaction_without_a_500(rf) -> None:
    from core.middleware import DatabaseBusyMiddleware

    # the next handler is never called: the exception is handed straight to process_exception
    middleware = DatabaseBusyMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    page = middleware.process_exception(rf.get("/review/"), broken_off("55P03"))
    assert page is not None and (page.status_code, page["Retry-After"]) == (503, "1")
    api = middleware.process_exception(rf.get("/api/v1/x/"), broken_off("40P01"))
    assert api is not None and api.status_code == 409 and b'"retry"' in api.content
    assert middleware.process_exception(rf.get("/"), ValueError()) is None


# ------------------------------------------------------------------ real locks on PostgreSQL
@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_real_deadlock_is_retried_and_both_transactions_go_through() -> None:
    """Two threads lock two rows in opposite orders: PostgreSQL breaks one off (40P01); it runs
    once more and goes through; both changes are there, once each."""
    first, second = CasinoFactory(name="A"), CasinoFactory(name="B")
    both_hold_one = threading.Barrier(2)
    calls = {"ab": 0, "ba": 0}
    finished = {"ab": threading.Event(), "ba": threading.Event()}
    errors: list[BaseException] = []

    def locker(name: str, order: tuple[int, int]) -> None:
        other = finished["ba" if name == "ab" else "ab"]

        def work() -> None:
            calls[name] += 1
            if calls[name] > 1:  # (on a starved machine the winner may not have gone on yet)
                other.wait(timeout=30)
            with transaction.atomic():
                Casino.objects.select_for_update().get(pk=order[0])
                if calls[name] == 1:
                    both_hold_one.wait(timeout=10)
                Casino.objects.select_for_update().get(pk=order[1])
                Player.objects.create(casino_id=order[0], display_name=f"by {name}")

        try:
            run_retrying(work)
        except BaseException as exc:
            errors.append(exc)
        finally:
            finished[name].set()
            connection.close()

    threads = [
        threading.Thread(target=locker, args=("ab", (first.pk, second.pk))),
        threading.Thread(target=locker, args=("ba", (second.pk, first.pk))),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert sorted(calls.values()) == [1, 2]  # the victim ran exactly once more
    assert sorted(Player.objects.values_list("display_name", flat=True)) == ["by ab", "by ba"]


@pytest.mark.postgres
@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_a_real_lock_timeout_is_retried_then_refused_with_503() -> None:
    casino = CasinoFactory()
    holding, release = threading.Event(), threading.Event()

    def holder() -> None:
        try:
            with transaction.atomic():
                Casino.objects.select_for_update().get(pk=casino.pk)
                holding.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert holding.wait(timeout=10)
        calls: list[int] = []

        def work() -> None:
            calls.append(1)
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL lock_timeout = '100ms'")
                Casino.objects.select_for_update().get(pk=casino.pk)

        started = time.monotonic()
        with pytest.raises(DatabaseBusy):
            run_retrying(work)
        assert len(calls) == 2 and time.monotonic() - started < 10
    finally:
        release.set()
        thread.join(timeout=30)


@pytest.mark.postgres
def test_web_processes_set_the_lock_and_statement_timeouts(settings) -> None:
    if connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS"):
        # behind a transaction pooler the limits are per transaction: tests/core/test_pooler.py
        pytest.skip("session-level limits: a direct connection's (this one is pooled)")
    settings.DB_LOCK_TIMEOUT_MS, settings.DB_STATEMENT_TIMEOUT_MS = 1234, 56789
    web_limits_set(connection)
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == "1234ms"
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == "56789ms"
