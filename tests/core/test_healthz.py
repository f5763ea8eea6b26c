"""/healthz (liveness): 200 while the process answers, whatever the database and the broker do.
/readyz (readiness): 200 when database and broker answer, 503 naming the one that does not."""

from __future__ import annotations

import pytest
from django.db import OperationalError, connection
from django.test import override_settings

from core.models import OutboxMessage
from tests.conftest import redis_url

pytestmark = pytest.mark.django_db

CLOSED_PORT = "redis://127.0.0.1:1/0"


def broken_cursor(*args, **kwargs):
    raise OperationalError("connection refused")


def test_healthz_is_up_with_the_broker_down(client, django_assert_num_queries) -> None:
    with override_settings(CELERY_BROKER_URL=CLOSED_PORT), django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_healthz_is_up_with_the_database_down(client, monkeypatch) -> None:
    monkeypatch.setattr(connection, "cursor", broken_cursor)
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_readyz_with_an_in_process_broker(client) -> None:
    with override_settings(CELERY_BROKER_URL=""):
        response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "broker": "in-process",
        "outbox": {"unsent": 0, "oldest_unsent_seconds": None},
    }
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.redis
def test_readyz_with_a_real_redis_broker(client) -> None:
    with override_settings(CELERY_BROKER_URL=redis_url()):
        response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["broker"] == "ok"


def test_readyz_names_a_broker_on_a_closed_port(client) -> None:
    with override_settings(CELERY_BROKER_URL=CLOSED_PORT, HEALTHZ_BROKER_TIMEOUT=1.0):
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == {
        "status": "error",
        "database": "ok",
        "broker": "error: OperationalError",
        "outbox": {"unsent": 0, "oldest_unsent_seconds": None},
    }


def test_readyz_reports_the_outbox_backlog(client) -> None:
    from django.utils import timezone

    OutboxMessage.objects.create(task="t", key="a", created_at=timezone.now())
    OutboxMessage.objects.create(task="t", key="b", created_at=timezone.now(), sent_at=timezone.now())
    with override_settings(CELERY_BROKER_URL=""):
        outbox = client.get("/readyz").json()["outbox"]
    assert outbox["unsent"] == 1 and 0 <= outbox["oldest_unsent_seconds"] < 60


def test_readyz_names_a_database_failure(client, monkeypatch) -> None:
    monkeypatch.setattr(connection, "cursor", broken_cursor)
    with override_settings(CELERY_BROKER_URL=""):
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "database": "error: OperationalError",
        "broker": "in-process",
    }


@pytest.mark.parametrize("path", ["/healthz", "/readyz"])
def test_probes_only_answer_get(client, path) -> None:
    assert client.post(path).status_code == 405
