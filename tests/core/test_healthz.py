"""/healthz: unauthenticated JSON; 200 when database and broker answer, 503 otherwise."""

from __future__ import annotations

import pytest
from django.db import OperationalError, connection
from django.test import override_settings

from tests.conftest import redis_url

pytestmark = pytest.mark.django_db


def test_in_process_broker_is_healthy(client) -> None:
    with override_settings(CELERY_BROKER_URL=""):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "in-process"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.redis
def test_real_redis_broker_is_healthy(client) -> None:
    with override_settings(CELERY_BROKER_URL=redis_url()):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}


def test_broker_on_a_closed_port_gives_503(client) -> None:
    with override_settings(CELERY_BROKER_URL="redis://127.0.0.1:1/0", HEALTHZ_BROKER_TIMEOUT=1.0):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "error", "database": "ok", "broker": "error: OperationalError"}


def test_database_failure_gives_503(client, monkeypatch) -> None:
    def broken_cursor(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", broken_cursor)
    with override_settings(CELERY_BROKER_URL=""):
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {
        "status": "error",
        "database": "error: OperationalError",
        "broker": "in-process",
    }


def test_healthz_only_answers_get(client) -> None:
    assert client.post("/healthz").status_code == 405
