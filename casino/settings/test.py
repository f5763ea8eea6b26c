"""Settings for the test suite: real PostgreSQL by default, fast hashing, eager Celery."""

from __future__ import annotations

import os
from pathlib import Path

# The suite is written for PostgreSQL (triggers, advisory locks, concurrency); pytest-django
# creates ``test_chemin`` next to ``chemin``. DATABASE_URL=sqlite:///… still works for the
# portable subset (PostgreSQL-only tests are marked ``postgres``).
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/chemin")

from casino.settings.base import *

DEBUG = False
SECRET_KEY = "test-only-secret-key-not-used-anywhere-else-0123456789abcdef"
# Anchors are written only where a test asks (tmp_path); every chain a test builds is keyed.
AUDIT_ANCHOR_FILE = ""
AUDIT_PLAIN_UNTIL_SEQ = 0
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only; tests only

if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The portable subset on SQLite (DATABASE_URL=sqlite:///…): a test database file of its own in
    # var/, as make run's is a file (not Django's in-memory default, whose shared cache locks
    # tables instead of waiting for the writer). Named here because pytest-django only recognises
    # Django's own SQLite engine, not audit.backends.sqlite3, when it names each xdist worker's copy
    # (test_chemin.sqlite3_gw0, …).
    # Named after the database file asked for, so two runs with two DATABASE_URLs never share one.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test_{Path(DATABASES['default']['NAME']).name}")}

# A second alias for the read-replica router's tests (tests/core/test_db_router.py): a mirror of
# the test database; the router stays off (READ_REPLICA_ALIAS empty) unless a test turns it on.
DATABASES["replica"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}
READ_REPLICA_ALIAS = ""

# The hot standby (.ci/pool_and_standby.sh) for the tests marked ``standby``: its copy of the test
# database, which streaming replication keeps equal to the primary's (a mirror: never created,
# never migrated). Reached directly, never through a pooler; a standby that is down fails fast.
STANDBY_DATABASE_URL = os.environ.get("STANDBY_DATABASE_URL", "postgres://postgres@127.0.0.1:5433").rstrip("/")
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["standby"] = {
        **env.db_url_config(f"{STANDBY_DATABASE_URL}/{DATABASES['default']['NAME']}"),
        "OPTIONS": {"connect_timeout": 2},
        "TEST": {"MIRROR": "default"},
    }

# Tasks run inside the test process even when CI exports CELERY_BROKER_URL: the broker URL stays
# set so /healthz and the ``redis`` tests can still reach the real broker.
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
# beat's work in the web process is the development server's only (core/embedded_beat.py)
EMBEDDED_BEAT = False

# Serve static files from static/ through the finders: tests never run collectstatic.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True

# The suite sends thousands of API calls from one address and a few users: the general throttles
# would refuse them. tests/security sets its own rates; the token scope keeps its real one.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        **REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
        "anon": "1000000/minute",
        "user": "1000000/minute",
    },
}

# The suite signs in thousands of times from one address as a few users: the login budget would
# refuse it. tests/security/test_login_budget.py sets its own limits.
LOGIN_BUDGET_PER_USERNAME = 0
LOGIN_BUDGET_PER_ADDRESS = 0
LOGIN_BUDGET_PER_SECOND = 0
