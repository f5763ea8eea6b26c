"""A report run through a real Celery worker on Redis whose worker is killed (SIGKILL, the whole
process group) in the middle of writing: a second worker picks the message up again (late ack,
visibility timeout) and writes the run from scratch. Exactly one run finishes, its stored file's
sha256 is the one recorded and the one on the audit chain, and no temporary file is left."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection, transaction
from django.test import override_settings

from audit.models import AuditEvent
from audit.selectors import audit_chains_verify
from audit.services import audit_record
from casino.celery import app
from reports.models import ReportRun
from reports.services import report_run_request
from tests.conftest import redis_url
from tests.reports.runs import levy_request

ROOT = Path(__file__).resolve().parents[2]
#: audit events to export: 8 chunks of 500 lines, each followed by a progress call that sleeps
EVENTS = 4000
DELAY_PER_CHUNK = 0.7
#: seconds after its delivery an unacknowledged message is given to another worker: a worker
#: starting sweeps the unacknowledged messages once (later sweeps are minutes apart), so the second
#: worker is started once this has passed since the first one took the message
VISIBILITY_TIMEOUT = 1

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@contextmanager
def real_broker(url: str) -> Iterator[None]:
    """Tasks sent to Redis (the test settings run them in-process), for the block."""
    from kombu import pools

    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url", "broker_write_url")}
    app.conf.update(task_always_eager=False, broker_url=url, broker_write_url=url)
    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    try:
        with override_settings(CELERY_BROKER_URL=url):
            yield
    finally:
        pools.reset()
        app._pool = None
        app.amqp._producer_pool = None
        app.conf.update(saved)


def _worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            str(Path(sys.executable).with_name("celery")),
            "-A",
            "casino",
            "worker",
            "--queues=reports,celery",
            "--concurrency=1",
            "--prefetch-multiplier=1",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: killed with its pool's child
    )


def _stop(worker: subprocess.Popen[bytes], sig: int) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, sig)
    worker.wait(timeout=20)


def _until(what: Callable[[], Any], timeout: float, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = what()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out; worker log:\n{log.read_text()[-6000:]}")


def test_a_worker_killed_mid_report_leaves_one_whole_audited_file(accountant, tmp_path, settings_) -> None:
    url = redis_url()
    redis.Redis.from_url(url).flushdb()  # this test's broker database: no message of an earlier run
    with transaction.atomic():
        for i in range(EVENTS):
            audit_record(actor=None, action="test.filler", after={"i": i})
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings.base",
        "DATABASE_URL": f"postgres://{connection.settings_dict['USER']}@{connection.settings_dict['HOST']}:"
        f"{connection.settings_dict['PORT']}/{connection.settings_dict['NAME']}",
        "CELERY_BROKER_URL": url,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "SECRET_KEY": settings.SECRET_KEY,
        "AUDIT_HMAC_KEY": settings.AUDIT_HMAC_KEY,
        "AUDIT_HMAC_KEY_ID": settings.AUDIT_HMAC_KEY_ID,
        "AUDIT_ANCHOR_FILE": "",
        "REPORTS_ROOT": str(settings_["root"]),
        "REPORTS_PROGRESS_INTERVAL": "0",
        "REPORTS_TEST_DELAY_PER_CHUNK": str(DELAY_PER_CHUNK),
        "LOG_LEVEL": "INFO",
    }
    log = tmp_path / "worker.log"
    first = _worker(env, log)
    second = None
    try:
        with real_broker(url):
            run = report_run_request(actor=accountant, request=levy_request(kind="audit-trail", fmt="jsonl"))
        # mid-run: the first chunks written (and their progress committed), then kill -9
        _until(
            lambda: ReportRun.objects.filter(pk=run.pk, status="running", rows_done__gte=500).exists(),
            30,
            log,
        )
        _stop(first, signal.SIGKILL)
        assert ReportRun.objects.get(pk=run.pk).status == "running"
        time.sleep(VISIBILITY_TIMEOUT + 0.5)
        second = _worker(env, log)
        done = _until(lambda: ReportRun.objects.filter(pk=run.pk, status="finished").first(), 40, log)
    finally:
        _stop(first, signal.SIGKILL)
        if second is not None:
            _stop(second, signal.SIGTERM)
    assert ReportRun.objects.count() == 1 and ReportRun.objects.filter(status="finished").count() == 1
    assert done.attempts == 2
    stored = settings_["root"] / done.file.name
    body = stored.read_bytes()
    assert hashlib.sha256(body).hexdigest() == done.sha256
    lines = body.splitlines()
    assert len(lines) == done.row_count + 1 and lines[-1].startswith(
        b'{"anchor":'
    )  # whole: ends with its anchor
    finish = AuditEvent.objects.get(action="reports.reportrun.finish", object_id=str(run.pk))
    assert finish.after is not None
    assert (finish.after["sha256"], finish.after["attempts"]) == (done.sha256, 2)
    # nothing but the finished file: the dead attempt's temporary file was removed
    assert sorted(p.relative_to(settings_["root"]) for p in settings_["root"].rglob("*") if p.is_file()) == [
        Path(done.file.name)
    ]
    # the worker's events hashed with the same key, on every chain
    assert all(r.ok for r in audit_chains_verify())


@pytest.fixture
def settings_(reports_root: Path) -> dict[str, Path]:
    return {"root": reports_root}
