"""Celery as in production (tasks sent to a broker, not run in-process) with the broker down."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.test import override_settings
from kombu import pools

from casino.celery import app

#: nothing listens there: a connection is refused at once
CLOSED_PORT = "redis://127.0.0.1:1/0"


@contextmanager
def broker_down() -> Iterator[None]:
    """Tasks are sent (not run eagerly) to a broker on a closed port, for the block: every send
    fails as it does when Redis is down. The app's connection pools are rebuilt for the block and
    after it, so the broker URL takes effect and nothing of it leaks into other tests."""
    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url", "broker_write_url")}
    app.conf.update(task_always_eager=False, broker_url=CLOSED_PORT, broker_write_url=CLOSED_PORT)
    _reset_pools()
    try:
        with override_settings(CELERY_BROKER_URL=CLOSED_PORT, HEALTHZ_BROKER_TIMEOUT=1.0):
            yield
    finally:
        _reset_pools()
        app.conf.update(saved)


def _reset_pools() -> None:
    # kombu keeps producer pools per broker URL, process-wide; Celery keeps its own references
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
