"""Environment → settings: no env means SQLite in var/ and in-process Celery."""

from __future__ import annotations

import hashlib
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


def probe_process(code: str, *, without: tuple[str, ...], **env: str) -> subprocess.CompletedProcess[str]:
    """``code`` run under the base settings, with the variables starting with one of ``without``
    taken out of this process's environment and ``env`` added (whatever it exits with)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(without)}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "casino.settings.base", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_probe(code: str, *, without: tuple[str, ...], **env: str) -> dict:
    """What ``code`` prints (JSON) under the base settings (``probe_process``); it must exit 0."""
    result = probe_process(code, without=without, **env)
    result.check_returncode()
    return json.loads(result.stdout)


def probe(**env: str) -> dict:
    return run_probe(PROBE, without=("DATABASE_URL", "CELERY_BROKER_URL", "DEBUG"), **env)


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


AUDIT_PROBE = (
    "import json, django; from django.conf import settings as s; django.setup(); "
    "print(json.dumps({'id': s.AUDIT_HMAC_KEY_ID, 'key': s.AUDIT_HMAC_KEY, "
    "'retired': s.AUDIT_HMAC_RETIRED_KEYS, "
    "'plain_until': s.AUDIT_PLAIN_UNTIL_SEQ, 'anchors': s.AUDIT_ANCHOR_FILE, "
    "'max_age': s.AUDIT_ANCHOR_MAX_AGE_HOURS, 'beat': s.CELERY_BEAT_SCHEDULE['audit-anchor-head']['task']}))"
)


def audit_probe(**env: str) -> dict:
    return run_probe(AUDIT_PROBE, without=("AUDIT_", "SECRET_KEY", "DJANGO_"), **env)


def test_the_audit_key_comes_from_the_environment_and_defaults_to_one_derived_for_development() -> None:
    derived = audit_probe(SECRET_KEY="one-dev-secret", DATABASE_URL="sqlite:////srv/night/db.sqlite3")
    assert derived == {
        "id": "dev",
        "key": hashlib.sha256(b"chemin-audit-hmac-dev\none-dev-secret").hexdigest(),
        "retired": {},
        "plain_until": None,
        "anchors": "/srv/night/db.anchors.jsonl",  # one file per database, beside it
        "max_age": 26.0,
        "beat": "audit.anchor_head",
    }
    assert audit_probe(SECRET_KEY="another-dev-secret")["key"] != derived["key"]
    on_postgres = audit_probe(SECRET_KEY="s", DATABASE_URL="postgres://app@db:5432/chemin_night")
    assert on_postgres["anchors"] == str(ROOT / "var" / "audit-anchors-chemin_night.jsonl")
    got = audit_probe(
        AUDIT_HMAC_KEY_ID="2027a",
        AUDIT_HMAC_KEY="x" * 64,
        AUDIT_HMAC_RETIRED_KEYS="2026a=old-key-1,2026b=old-key-2",
        AUDIT_PLAIN_UNTIL_SEQ="73412",
        AUDIT_ANCHOR_FILE="/mnt/worm/anchors.jsonl",
        AUDIT_ANCHOR_MAX_AGE_HOURS="30",
    )
    assert got == {
        "id": "2027a",
        "key": "x" * 64,
        "retired": {"2026a": "old-key-1", "2026b": "old-key-2"},
        "plain_until": 73412,
        "anchors": "/mnt/worm/anchors.jsonl",
        "max_age": 30.0,
        "beat": "audit.anchor_head",
    }


DB_OPTIONS_PROBE = (
    "import json, django; from django.conf import settings as s; django.setup(); "
    "o = s.DATABASES['default'].get('OPTIONS', {}); "
    "print(json.dumps({'binding': o.get('server_side_binding'), "
    "'prepare': o.get('prepare_threshold', 'unset')}))"
)


#: the database's variables, taken out of this process's environment for the options probe
DB_VARIABLES = ("DATABASE_URL", "DATABASE_POOLER", "DATABASE_PREPARE_THRESHOLD")


def db_options_probe(**env: str) -> dict:
    return run_probe(DB_OPTIONS_PROBE, without=DB_VARIABLES, **env)


POSTGRES = "postgres://app@db.internal:5432/chemin"


def test_postgresql_reached_directly_binds_on_the_server_and_prepares_after_five_runs() -> None:
    assert db_options_probe(DATABASE_URL=POSTGRES) == {"binding": True, "prepare": 5}
    assert db_options_probe(DATABASE_URL=POSTGRES, DATABASE_PREPARE_THRESHOLD="2") == {
        "binding": True,
        "prepare": 2,
    }


def test_prepared_statements_stay_off_behind_a_pooler_when_turned_off_and_on_sqlite() -> None:
    pooled = db_options_probe(DATABASE_URL=POSTGRES, DATABASE_POOLER="pgbouncer-transaction")
    assert pooled == {"binding": None, "prepare": None}  # a prepared statement would outlive its transaction
    assert db_options_probe(DATABASE_URL=POSTGRES, DATABASE_PREPARE_THRESHOLD="off") == {
        "binding": None,
        "prepare": "unset",  # Django's default: psycopg binds into the text, prepares nothing
    }
    assert db_options_probe() == {"binding": None, "prepare": "unset"}  # SQLite, the README's default


def test_a_prepare_threshold_that_is_not_a_number_is_refused_at_start_up() -> None:
    result = probe_process(
        DB_OPTIONS_PROBE, without=DB_VARIABLES, DATABASE_URL=POSTGRES, DATABASE_PREPARE_THRESHOLD="always"
    )
    assert result.returncode == 1
    assert "DATABASE_PREPARE_THRESHOLD is a whole number of runs or 'off', not 'always'" in result.stderr
