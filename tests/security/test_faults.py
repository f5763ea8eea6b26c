"""Faults are never 500s (issue 10, item 5): what the reporter measured, each now answered.

- the broker down: /healthz stays 200 (liveness), /readyz says 503 naming the broker; a write
  committed meanwhile answers its own status, its Celery work waits in the outbox and is sent
  exactly once when the broker is back;
- a database restart: a reused connection is checked first (CONN_HEALTH_CHECKS);
- every error under /api/ is problem JSON (RFC 9457), never HTML: 100,000 ``[``, a lone surrogate,
  NUL, a body too large, an unknown URL, the database out of reach, a bug.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection
from django.test import Client, override_settings
from rest_framework.test import APIClient

from core.models import OutboxMessage
from core.services.outbox import outbox_drain
from tables.models import Casino, FeeHour, Table
from tests.broker import broker_down
from tests.core.urls_errors import database_unavailable_error
from tests.problems import problem_body
from tests.tables.api.conftest import Api
from tests.tables.play import open_floor, row_counts

pytestmark = pytest.mark.django_db


# ------------------------------------------------------------------------------ broker outage
def test_the_probes_while_the_broker_is_down(client) -> None:
    with broker_down():
        live, ready = client.get("/healthz"), client.get("/readyz")
    assert (live.status_code, live.json()) == (200, {"status": "ok"})
    assert ready.status_code == 503
    assert ready.json()["broker"] == "error: OperationalError" and ready.json()["database"] == "ok"


def test_a_write_committed_while_the_broker_is_down_answers_and_its_work_waits(
    croupier, table, django_capture_on_commit_callbacks
) -> None:
    Casino.objects.filter(pk=table.casino_id).update(
        levy_mode="hourly_fee", levy_rate_bp=0, hourly_fee_amount=60
    )
    api = Api(croupier)
    api.ok(api.post(f"/tables/{table.pk}/session/open/"), 201)
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        closed = api.post(f"/tables/{table.pk}/session/close/", {"reason": "end of the night"})
    # committed and answered as usual: the send after COMMIT failed, quietly
    assert closed.status_code == 200 and closed.json()["state"] == Table.State.CLOSED
    message = OutboxMessage.objects.get()
    assert (message.task, message.sent_at, message.attempts) == ("ledger.bill_hourly_fees", None, 1)
    assert message.last_error.startswith("OperationalError: Error 111 connecting to 127.0.0.1:1")
    assert not FeeHour.objects.exists()
    # the broker back: the drain sends it (run here, in-process), exactly once
    assert outbox_drain(grace=0).sent == 1
    assert outbox_drain(grace=0).sent == 0
    message.refresh_from_db()
    assert message.sent_at is not None and message.attempts == 2
    assert FeeHour.objects.count() == 1


def test_a_verification_asked_for_while_the_broker_is_down_is_kept(
    client, pit_boss, django_capture_on_commit_callbacks
) -> None:
    client.force_login(pit_boss)
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        response = client.post("/review/audit/verify/")
    assert response.status_code in (302, 303), response.content[:300]
    message = OutboxMessage.objects.get()
    assert (message.task, message.kwargs, message.sent_at) == (
        "audit.verify_chain",
        {"requested_by_id": pit_boss.pk},
        None,
    )


# ----------------------------------------------------------------------------- database restart
def test_connections_are_checked_before_reuse() -> None:
    assert connection.settings_dict["CONN_HEALTH_CHECKS"] is True


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_connection_cut_by_a_database_restart_is_replaced(monkeypatch) -> None:
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)  # persistent, as in production
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])  # what a restart does to it
    close_old_connections()  # what Django does when a request starts
    with connection.cursor() as cursor:  # the dead connection is noticed and replaced
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid
    connection.close()


# ---------------------------------------------------------------------------- bodies refused
def post_raw(api: Api, path: str, body: Any, **extra: Any) -> Any:
    return api.client.generic(
        "POST", path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="raw-1", **extra
    )


@pytest.fixture
def steps(croupier, table) -> tuple[Api, str]:
    """A croupier's client and the steps of his coup (bank 100, at step 1)."""
    open_floor(croupier, table)
    api = Api(croupier)
    coup = api.ok(api.post(f"/tables/{table.pk}/coups/", {"bank": 100}))["coup"]["id"]
    return api, f"/api/v1/coups/{coup}/steps/"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("[" * 100_000, "nesting_too_deep"),  # was a RecursionError: 500
        ("[" * 33 + "]" * 33, "nesting_too_deep"),  # parses, but deeper than API_JSON_MAX_DEPTH
        ('{"step": 1, "kind": "bet", "seat": 2, "amount": 10, "note": "\\ud800"}', "invalid_text"),
        ('{"step": 1, "kind": "bet", "seat": 2, "amount": 10, "\\udfff": 1}', "invalid_text"),
        ('{"step": 1, "kind": "\\u0000bet"}', "invalid_text"),
        (b'{"step": 1, "kind": "\xed\xa0\x80"}', "parse_error"),  # a surrogate encoded raw: not UTF-8
        ('{"step": 1, "kind": ', "parse_error"),
        ('{"step": NaN}', "parse_error"),
    ],
    ids=[
        "100k-brackets",
        "depth-33",
        "surrogate",
        "surrogate-key",
        "nul",
        "raw-surrogate",
        "truncated",
        "nan",
    ],
)
def test_bodies_that_were_500s_are_400_problems(steps, body, code) -> None:
    api, path = steps
    before = row_counts()
    response = post_raw(api, path, body)
    assert response.status_code == 400
    assert problem_body(response, path=path)["code"] == code
    assert row_counts() == before


def test_thirty_two_levels_are_still_parsed(steps) -> None:
    api, path = steps
    response = post_raw(api, path, json.dumps({"step": 1, "kind": "bet", "deep": [[[[[[[[[[1]]]]]]]]]]}))
    assert problem_body(response)["deep"] == ["Unknown field."]  # parsed, then refused by the serializer


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1_000)
def test_a_body_too_large_is_413(steps) -> None:
    api, path = steps
    before = row_counts()
    response = post_raw(api, path, json.dumps({"step": 1, "kind": "bet", "note": "x" * 2_000}))
    assert response.status_code == 413
    assert problem_body(response, path=path) == {
        "code": "payload_too_large",
        "detail": "The request body is larger than the 1000 bytes accepted.",
    }
    assert row_counts() == before


# ------------------------------------------------------------------------------ never HTML
@pytest.mark.parametrize("path", ["/api/v1/no-such-thing/", "/api/nothing", "/api/v1/tables/1/nope/"])
def test_an_unknown_api_url_is_a_404_problem(croupier, path) -> None:
    response = Api(croupier).client.get(path, HTTP_ACCEPT="text/html")
    assert response.status_code == 404
    assert problem_body(response, path=path) == {"code": "not_found", "detail": "Not found."}


def test_the_browsable_api_never_answers_an_error_in_html(croupier) -> None:
    client = Api(croupier).client
    missing = client.get("/api/v1/tables/999999/", HTTP_ACCEPT="text/html")
    assert missing.status_code == 404 and problem_body(missing)["code"] == "not_found"
    wrong_method = client.get("/api/v1/tables/1/session/open/", HTTP_ACCEPT="text/html")
    assert wrong_method.status_code == 405 and problem_body(wrong_method)["code"] == "method_not_allowed"
    assert wrong_method["Allow"] == "POST, OPTIONS"
    anonymous = APIClient().get("/api/v1/tables/", HTTP_ACCEPT="text/html")
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"] == "Token"
    assert problem_body(anonymous)["code"] == "not_authenticated"


def test_the_database_out_of_reach_is_a_503_problem(croupier, monkeypatch) -> None:
    api = Api(croupier)

    def unreachable(*args, **kwargs):
        raise database_unavailable_error()

    monkeypatch.setattr(connection, "cursor", unreachable)
    response = api.client.get("/api/v1/tables/")
    assert response.status_code == 503 and response["Retry-After"] == "1"
    assert problem_body(response, path="/api/v1/tables/")["code"] == "database_unavailable"


@pytest.mark.urls("tests.core.urls_errors")
def test_outside_rest_framework_too(client) -> None:
    client = Client(raise_request_exception=False)
    down = client.get("/api/database-down/")  # a plain Django view: the middleware answers
    assert down.status_code == 503 and down["Retry-After"] == "1"
    assert problem_body(down)["code"] == "database_unavailable"
    bug = client.get("/api/boom/")  # handler500
    assert bug.status_code == 500
    assert problem_body(bug) == {
        "code": "server_error",
        "detail": "The server failed; the error has been logged.",
    }
    assert "deliberate failure" not in bug.content.decode()
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1_000):  # Django's own check: RequestDataTooBig
        big = client.post("/api/echo/", {"note": "x" * 2_000})
    assert big.status_code == 413 and problem_body(big)["code"] == "payload_too_large"
    page = client.get("/database-down/")  # a page: the 503 page, not the 500 one
    assert page.status_code == 503 and page["Retry-After"] == "1"
    assert "<h1>Briefly unavailable</h1>" in page.content.decode()
