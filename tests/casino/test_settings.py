"""Environment → settings: no env means SQLite in var/ and in-process Celery."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'engine': settings.DATABASES['default']['ENGINE'], "
    "'name': str(settings.DATABASES['default']['NAME']), 'eager': settings.CELERY_TASK_ALWAYS_EAGER, "
    "'broker': settings.CELERY_BROKER_URL, 'debug': settings.DEBUG}))"
)


def probe(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DEBUG")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "casino.settings.base", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_no_environment_means_sqlite_in_var_and_eager_celery() -> None:
    assert probe() == {
        "engine": "audit.backends.sqlite3",  # Django's, appending the audit chain last
        "name": str(ROOT / "var" / "db.sqlite3"),
        "eager": True,
        "broker": "",
        "debug": True,
    }


def test_environment_switches_to_postgresql_and_redis() -> None:
    got = probe(DATABASE_URL="postgres://app@db.internal:5432/chemin", CELERY_BROKER_URL="redis://mq:6379/0")
    assert got == {
        "engine": "audit.backends.postgresql",
        "name": "chemin",
        "eager": False,
        "broker": "redis://mq:6379/0",
        "debug": True,
    }
