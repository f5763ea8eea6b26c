"""Base settings, usable as-is for local development.

Everything that differs between machines comes from the environment through the single
``env`` below; ``test`` and ``production`` import this module and only override.
Without any environment the project runs on SQLite (``var/db.sqlite3``) with Celery tasks
executed in-process, so ``make run`` needs no service at all.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"
VAR_DIR.mkdir(exist_ok=True)

env = environ.Env()

# DEBUG is on here only because this module is what `make run` uses on a developer's machine;
# production.py forces it off.
DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="django-insecure-local-development-only-never-use-in-production")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "axes",  # login lockout (access.services.logins)
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's assets, served by us: the docs work offline
    "django_htmx",
    "django_celery_beat",  # beat's schedules in the database, editable in /admin/ (docs/reports.md)
    "core",
    "audit",
    "access",
    "tables",
    "ledger",
    "review",
    "reports",
    "compliance",
    "cage",
    "casino",  # the whole house's own commands (load_demo: a demo casino on every app)
]

#: the games the house plays, one wing each (tables.games): a new game is a new wing and one line
GAME_WINGS = [
    "tables.wing.ChemindeFer",
    "older_games.wing.OlderGames",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # after the session (it may read the language there), before CommonMiddleware (which builds
    # redirects for the language chosen); the language itself comes from the django_language
    # cookie set by set_language, else LANGUAGE_CODE; /api/ always English (core/locale.py)
    "core.locale.ScreenLocaleMiddleware",
    # a query string with a control character (NUL ...), or a form field with NUL or a lone
    # surrogate, is a 400 before any view reads it; after the locale: the 400 page is translated
    "core.middleware.ControlCharactersMiddleware",
    # a 404 under /api/ is problem JSON with DEBUG on too (Django's debug page otherwise)
    "core.middleware.ApiNotFoundMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "core.middleware.DatabaseBusyMiddleware",
    "core.headers.SecurityHeadersMiddleware",
    # after CsrfViewMiddleware (its process_view comes first): a password check the login budget
    # refuses is a 429 before the view hashes anything (access.services.login_budget)
    "access.middleware.LoginBudgetMiddleware",
    # last, as django-axes requires: turns a locked-out login into its 429 answer
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "review.context_processors.alerts",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False  # services own their transactions
# Seconds a web process keeps its database connection between requests. 0 (development, tests)
# opens one per request; production keeps them (casino/settings/production.py: 60), and so does
# bench/multitable_bench.py's gunicorn: a new PostgreSQL backend per request costs the server more
# CPU than the step it serves (docs/benchmarks.md).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0)
# A persistent connection (CONN_MAX_AGE, production) is checked before a request reuses it: after a
# database restart the first request of each worker reconnects instead of answering 500.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# Django's own backends with the audit chain appended last, just before COMMIT (audit/backends/).
DATABASES["default"]["ENGINE"] = {
    "django.db.backends.postgresql": "audit.backends.postgresql",
    "django.db.backends.sqlite3": "audit.backends.sqlite3",
}.get(DATABASES["default"]["ENGINE"], DATABASES["default"]["ENGINE"])
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # BEGIN IMMEDIATE takes SQLite's write lock at the start of every transaction, so two writers
    # never both read the audit chain head and then race to append (see docs/audit.md).
    DATABASES["default"].setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"
    DATABASES["default"]["OPTIONS"].setdefault("timeout", 20)
    # Write-ahead logging: a reader never blocks a writer. In SQLite's default journal a report
    # streaming the audit trail (or any long read) held its read lock for as long as it read, and
    # every croupier's step waited the 20 s above behind it, then failed. Kept by the database
    # file once set; an in-memory database (the tests') keeps its own journal.
    DATABASES["default"]["OPTIONS"].setdefault("init_command", "PRAGMA journal_mode=WAL;")
# A connection pooler between the processes and PostgreSQL (docs/scaling.md, "PgBouncer and the hot
# standby"): DATABASE_POOLER=pgbouncer-transaction when DATABASE_URL names a PgBouncer in
# transaction pooling, which hands a server connection to a client for one transaction only.
# Nothing may then outlive a transaction on the server: Django's server-side cursors are off
# (outside a transaction they are WITH HOLD cursors, left on a server connection another client
# gets next; .iterator() then fetches its rows whole), psycopg prepares no statement, and the web
# limits are set per transaction (core/db_limits.py). The rest of the code keeps no session state:
# advisory locks are transaction-scoped, SET only LOCAL, no LISTEN, no temporary table.
DATABASE_POOLERS = ("", "pgbouncer-transaction")
DATABASE_POOLER = env.str("DATABASE_POOLER", default="")
if DATABASE_POOLER not in DATABASE_POOLERS:
    raise ImproperlyConfigured(f"DATABASE_POOLER must be one of {DATABASE_POOLERS}, not {DATABASE_POOLER!r}")
if DATABASE_POOLER == "pgbouncer-transaction":
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = None
# Prepared statements, on PostgreSQL reached directly: psycopg sends a statement's parameters apart
# from its text (server-side binding) and prepares the statement once its connection has run it
# DATABASE_PREPARE_THRESHOLD times (psycopg's own default, 5). PostgreSQL then parses and plans each
# of a coup step's statements once per connection instead of at every step: about half of its CPU
# a step, measured through gunicorn (docs/benchmarks.md, "Statements prepared once a connection").
# It pays with persistent connections (CONN_MAX_AGE: production keeps them 60 s); one connection a
# request never reaches the threshold. Never behind a transaction pooler (above): a prepared
# statement lives on one server connection, which the next transaction may not get.
# DATABASE_PREPARE_THRESHOLD=off keeps Django's default (parameters bound by psycopg, nothing
# prepared).
DATABASE_PREPARE_THRESHOLD = env.str("DATABASE_PREPARE_THRESHOLD", default="5").strip().lower()
if DATABASE_PREPARE_THRESHOLD not in ("off", "") and not DATABASE_PREPARE_THRESHOLD.isdigit():
    raise ImproperlyConfigured(
        f"DATABASE_PREPARE_THRESHOLD is a whole number of runs or 'off', not {DATABASE_PREPARE_THRESHOLD!r}"
    )
if (
    DATABASE_PREPARE_THRESHOLD.isdigit()
    and DATABASE_POOLER == ""
    and DATABASES["default"]["ENGINE"].endswith("postgresql")
):
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=int(DATABASE_PREPARE_THRESHOLD)
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# A PostgreSQL read replica (streaming replication) for the back office's long reads: report runs
# and the pit's dashboard read from it inside core.db_router.replica_reads(); everything else, and
# every read inside a write transaction, stays on the primary (docs/scaling.md).
READ_REPLICA_URL = env.str("READ_REPLICA_URL", default="")
READ_REPLICA_ALIAS = "replica" if READ_REPLICA_URL else ""
if READ_REPLICA_URL:
    DATABASES["replica"] = env.db_url_config(READ_REPLICA_URL)
    DATABASES["replica"]["CONN_MAX_AGE"] = DATABASES["default"]["CONN_MAX_AGE"]
    DATABASES["replica"]["CONN_HEALTH_CHECKS"] = True
    # a replica that is down must not hold a page for long before it falls back to the primary
    DATABASES["replica"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 2)
# Before a replica_reads() block reads the replica, the replica is checked (core/db_router.py): a
# replica that does not connect within READ_REPLICA_CONNECT_TIMEOUT seconds, or whose replay lags
# more than READ_REPLICA_MAX_LAG_SECONDS, is passed over for the primary (the page says so). The
# answer is kept READ_REPLICA_CHECK_SECONDS in each process.
READ_REPLICA_MAX_LAG_SECONDS = env.float("READ_REPLICA_MAX_LAG_SECONDS", default=10.0)
READ_REPLICA_CHECK_SECONDS = env.float("READ_REPLICA_CHECK_SECONDS", default=5.0)
READ_REPLICA_CONNECT_TIMEOUT = env.float("READ_REPLICA_CONNECT_TIMEOUT", default=2.0)
DATABASE_ROUTERS = ["core.db_router.ReadReplicaRouter"]
# Web processes only, PostgreSQL only (core/db_limits.py, docs/deployment.md): how long a request
# waits for a row or advisory lock, and how long one statement may run, before it is refused
# (503, nothing written) instead of hanging; 0 turns a limit off.
DB_LOCK_TIMEOUT_MS = env.int("DB_LOCK_TIMEOUT_MS", default=5_000)
DB_STATEMENT_TIMEOUT_MS = env.int("DB_STATEMENT_TIMEOUT_MS", default=60_000)

# --- audit chain ----------------------------------------------------------------------------
# Every audit event's hash is an HMAC-SHA256 keyed with AUDIT_HMAC_KEY (docs/audit.md): the key
# lives outside the database, so whoever can rewrite the table cannot re-hash the chain to match.
# The key id is stored on each event, so a key can be rotated: the new one signs from then on, the
# retired ones (AUDIT_HMAC_RETIRED_KEYS="id=key,id=key") still verify what they signed.
# Development only: a key derived from SECRET_KEY; production.py requires a real one.
AUDIT_HMAC_KEY_ID = env.str("AUDIT_HMAC_KEY_ID", default="dev")
AUDIT_HMAC_KEY = env.str(
    "AUDIT_HMAC_KEY", default=hashlib.sha256(b"chemin-audit-hmac-dev\n" + SECRET_KEY.encode()).hexdigest()
)
AUDIT_HMAC_RETIRED_KEYS: dict[str, str] = env.dict("AUDIT_HMAC_RETIRED_KEYS", default={})
# The last seq hashed with plain SHA-256, before the cut-over to keyed hashes (an existing chain);
# a plain event after it is a forgery. Unset: any plain prefix is accepted (development only).
AUDIT_PLAIN_UNTIL_SEQ: int | None = env.int("AUDIT_PLAIN_UNTIL_SEQ", default=None)
# Where `audit_anchor` (and beat, and every report export) appends the signed chain head: a file
# or mount the database's role and administrators cannot write (WORM bucket, log host). "" = none.
# The development default is one file per database (beside a SQLite file, else named after the
# database in var/): anchors name a chain's head, and another database's anchors would read as a
# deleted tail of this one's.
def _anchor_file_default(database: dict[str, Any]) -> str:
    name = str(database.get("NAME") or "db")
    if database.get("ENGINE", "").endswith("sqlite3") and name not in ("", ":memory:"):
        return str(Path(name).with_suffix(".anchors.jsonl"))
    return str(VAR_DIR / f"audit-anchors-{Path(name).name}.jsonl")


AUDIT_ANCHOR_FILE = env.str("AUDIT_ANCHOR_FILE", default=_anchor_file_default(DATABASES["default"]))
# `verify_audit --anchors`: the newest anchor, and the gap between two, may be this old at most
# (a day between beat's anchors, plus slack for a late run).
AUDIT_ANCHOR_MAX_AGE_HOURS = env.float("AUDIT_ANCHOR_MAX_AGE_HOURS", default=26.0)
# How often beat anchors the chains' heads (each report run anchors them too): the most of the
# tail an attacker with the database's login could delete unseen (issue 20).
AUDIT_ANCHOR_EVERY_MINUTES = env.int("AUDIT_ANCHOR_EVERY_MINUTES", default=5)

# --- auth -----------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # first: refuses a locked-out username or address before any password is checked
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]


def _proxy_networks(values: list[str]) -> tuple[str, ...]:
    """TRUSTED_PROXIES as networks ("10.0.0.1", "10.0.0.0/24", "::1"), refused at start-up when one
    is not an address: a bare number is the old meaning (a count of proxies), which believed the
    header from any client that reached the app directly."""
    import ipaddress

    networks = []
    for value in (v.strip() for v in values):
        if not value:
            continue
        try:
            if value.isdigit():
                raise ValueError(value)
            networks.append(str(ipaddress.ip_network(value, strict=False)))
        except ValueError:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES: {value!r} is not an address or a network; list the reverse "
                "proxies' own addresses (comma-separated), not how many there are"
            ) from None
    return tuple(networks)


# The reverse proxies in front of the app, by address or network (core/client_ip.py): only a
# request whose peer is one of them has its X-Forwarded-For believed. Empty (the default):
# REMOTE_ADDR only. The lockout, the login budget, the throttles and the audit trail all use it.
TRUSTED_PROXIES = _proxy_networks(env.list("TRUSTED_PROXIES", default=[]))
# The login budget (access/services/login_budget.py, docs/deployment.md "Logins"): password checks
# a minute per username and per client address, and a second for the whole site, counted in the
# "login_budget" cache (below) before any hash; 0 turns one off.
LOGIN_BUDGET_PER_USERNAME = env.int("LOGIN_BUDGET_PER_USERNAME", default=10)
LOGIN_BUDGET_PER_ADDRESS = env.int("LOGIN_BUDGET_PER_ADDRESS", default=30)
LOGIN_BUDGET_PER_SECOND = env.int("LOGIN_BUDGET_PER_SECOND", default=1)
# ... up to this many in a second that follows a calm one (tablets signing in at a shift change)
LOGIN_BUDGET_BURST = env.int("LOGIN_BUDGET_BURST", default=5)
# Lockout (django-axes, docs/deployment.md "Logins"): LOGIN_FAILURE_LIMIT failures for a username,
# or from a client address, lock it for LOGIN_LOCKOUT_MINUTES (an administrator can lift it).
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = dt.timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=30))
# Failures count per username; per client address only under a spray (failures for
# LOGIN_SPRAY_USERNAMES usernames from it): a shared tablet is one address (access/services/logins.py)
AXES_LOCKOUT_PARAMETERS = "access.services.logins.lockout_parameters"
LOGIN_SPRAY_USERNAMES = env.int("LOGIN_SPRAY_USERNAMES", default=5)
# A locked-out attempt is refused by one indexed read and writes nothing of axes' (it is still
# in our security log): a flood against a locked account cannot grow a row or extend the lock.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = False  # a correct password elsewhere must not clear an address's failures
AXES_CLIENT_IP_CALLABLE = "core.client_ip.client_ip_or_none"
AXES_USERNAME_CALLABLE = "access.services.logins.login_username"
AXES_LOCKOUT_CALLABLE = "access.services.logins.lockout_response"
AXES_DISABLE_ACCESS_LOG = True  # successful logins are audit events already (auth.login)
AXES_ENABLE_ACCESS_FAILURE_LOG = False  # failures go to core.LoginFailure (summarised on the chain)
AXES_ENABLE_ADMIN = False  # access/admin.py has its own view of the lockouts, with an audited reset
AXES_VERBOSE = False
LOGIN_FAILURE_RETENTION_DAYS = env.int("LOGIN_FAILURE_RETENTION_DAYS", default=90)
# A device's API tokens (access/services/tokens.py): past this many, its oldest are revoked.
API_TOKEN_MAX_PER_USER = env.int("API_TOKEN_MAX_PER_USER", default=5)
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# --- browser security headers (core/headers.py) ------------------------------------------------
# Same names and shape as Django 6.0's built-in CSP settings. No inline script or style anywhere
# (templates/, htmx configured in base.html's meta); images may be data: URLs (Swagger UI's icons).
SECURE_CSP: dict[str, list[str] | bool] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
SECURE_CSP_REPORT_ONLY: dict[str, list[str] | bool] = {}
# Nothing of the browser's hardware or payment features is used: all refused to every origin.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "hid",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
}

# --- i18n / time ----------------------------------------------------------------------------
# English is the default; French and Russian are offered in the navigation's language switch
# (set_language, a cookie; no language prefix in the URLs). The game's own words stay French in
# every language: see docs/i18n.md for the glossary and how to update the catalogues in locale/.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fr", "Français"), ("ru", "Русский")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True  # every timestamp is stored in UTC; the audit chain hashes UTC ISO-8601

# --- static files ---------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    # Report runs' files (reports/storage.py, docs/reports.md): a folder by default; in production
    # any Django storage, e.g. django-storages' S3 backend (REPORTS_STORAGE_BACKEND and OPTIONS).
    "reports": {
        "BACKEND": env.str("REPORTS_STORAGE_BACKEND", default="django.core.files.storage.FileSystemStorage"),
        "OPTIONS": env.json(
            "REPORTS_STORAGE_OPTIONS",
            default={"location": env.str("REPORTS_ROOT", default=str(VAR_DIR / "reports"))},
        ),
    },
}

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK: dict[str, Any] = {
    # Token first: an unauthenticated API call then gets 401 + "WWW-Authenticate: Token" (what a
    # tablet client can act on) rather than the bare 403 that session-only authentication gives.
    # Tokens are stored hashed (access/authentication.py, core.models.ApiToken).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "access.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.errors.api_exception_handler",
    # REST framework's parsers, JSON bounded in size, depth and text (core/parsers.py): no body
    # becomes a 500 (RecursionError, a lone surrogate).
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Every API call is throttled: authenticated ones per user (far above what a table records: a
    # stolen token cannot be run flat out), anonymous ones per client address (only views open to
    # anonymous clients reach a throttle: DRF refuses the others' 401 first); POST
    # /api/v1/auth/token/ has its own, tight scope "token" (guessing passwords there is slow).
    # Client address: core/client_ip.py (TRUSTED_PROXIES). Counted in the default cache, i.e. per
    # process unless CACHES names a shared one; the lockout itself is in the database.
    "DEFAULT_THROTTLE_CLASSES": ["core.throttles.AnonThrottle", "core.throttles.UserThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "token": env.str("API_TOKEN_THROTTLE_RATE", default="10/minute"),
        "anon": env.str("API_ANON_THROTTLE_RATE", default="60/minute"),
        "user": env.str("API_USER_THROTTLE_RATE", default="1200/minute"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Chemin de Fer back-office API",
    "DESCRIPTION": "Tables, coups and audit for Chemin de Fer casino tables.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema describes who may do what; it is not public.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # every id in a path is core.converters.IdConverter's: a 64-bit integer, never negative
    "PATH_CONVERTER_OVERRIDES": {
        "id": {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**63 - 1}
    },
}

# A request body not whole this many seconds after its headers is a 408, and one over this many
# bytes a 413, before Django reads it (core/body_deadline.py; gunicorn's sync workers have no read
# timeout of their own). 0 seconds turns the deadline off.
REQUEST_BODY_TIMEOUT_SECONDS = env.float("REQUEST_BODY_TIMEOUT_SECONDS", default=10.0)
REQUEST_BODY_MAX_BYTES = env.int("REQUEST_BODY_MAX_BYTES", default=10 * 1024 * 1024)

# --- Caches ---------------------------------------------------------------------------------
# "default": in-process (the API throttles: a Redis outage must not refuse the floor's calls).
# "login_budget": the login budget's counters (access/services/login_budget.py), shared by every
# worker and node when CACHE_URL names a Redis (production defaults it to the broker's); in-process
# otherwise, exact for make run's single process. Short socket timeouts: an unreachable Redis makes
# the budget count in the process, it does not hold a login for seconds.
CACHE_URL = env.str("CACHE_URL", default="")


def _login_budget_cache(url: str) -> dict[str, Any]:
    if url:
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "chemin",
            "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
        }
    return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "login-budget"}


CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "login_budget": _login_budget_cache(CACHE_URL),
}

# --- Celery ---------------------------------------------------------------------------------
# No broker configured → tasks run in-process (eager), which is what a laptop and the test suite
# want. Setting CELERY_BROKER_URL (redis://…) switches to real workers (`make worker`).
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True  # a task lost with its worker is redelivered, not silently dropped
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TIMEZONE = TIME_ZONE
# Report runs are long (minutes): they go to their own queue, "reports", so they never hold up the
# short tasks, and a worker takes one message at a time (prefetch 1): with late acks, a prefetched
# message waits unacknowledged behind a long report, and would be redelivered to another worker
# when the visibility timeout passes. `make worker` consumes both queues (docs/reports.md).
CELERY_TASK_ROUTES = {"reports.run": {"queue": "reports"}, "reports.scheduled": {"queue": "reports"}}
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis redelivers a message not acknowledged within this many seconds (acks_late: a report is
# acknowledged when it is finished). It must be longer than the longest report, or a report still
# being written is handed to a second worker (harmless: the run's attempt fences the first one
# out, but the work is doubled); a worker that died is noticed after it, so not much longer.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=1800)}
# The schedules live in the database (django-celery-beat): CELERY_BEAT_SCHEDULE below is the
# system's own, code-defined, copied into it by beat at every start; the reports' per-casino
# schedules are created by `manage.py report_schedules` and edited in /admin/.
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    # Re-verify the audit chain every night; a break is logged at ERROR (hook alerting to it).
    "audit-verify-chain": {"task": "audit.verify_chain", "schedule": 24 * 60 * 60},
    # Every AUDIT_ANCHOR_EVERY_MINUTES, verify what each chain gained since its newest anchor and
    # append its signed head to AUDIT_ANCHOR_FILE: at most that window of the tail is unvouched for
    # (a deleted tail is caught), and the incremental verification starts from the anchor.
    "audit-anchor-head": {"task": "audit.anchor_head", "schedule": AUDIT_ANCHOR_EVERY_MINUTES * 60},
    # Beside it, verify the books: every coup re-derived by the rules engine against the ledger and
    # its levy, balances against entries, postings against their audit events (verify_books).
    "books-verify": {"task": "books.verify", "schedule": 24 * 60 * 60},
    # Five past every hour, bill the hourly fees of every hour just finished (idempotent per hour).
    "ledger-bill-due-hourly-fees": {
        "task": "ledger.bill_due_hourly_fees",
        "schedule": crontab(minute=5),
    },
    # Stored answers to idempotent API requests are kept IDEMPOTENCY_RETENTION_DAYS, then forgotten.
    # Every 5 minutes, one audit event summarising the refused logins since the last one (they are
    # not chained one by one: access/services/logins.py); summarised ones older than the retention go.
    "core-summarise-login-failures": {"task": "core.summarise_login_failures", "schedule": 5 * 60},
    "core-purge-idempotency-records": {
        "task": "core.purge_idempotency_records",
        "schedule": 24 * 60 * 60,
    },
    # Celery work committed while the broker was down waits in the outbox (core/services/outbox.py).
    "core-outbox-drain": {
        "task": "core.outbox_drain",
        "schedule": env.float("OUTBOX_DRAIN_INTERVAL", default=60.0),
    },
    "core-purge-outbox": {"task": "core.purge_outbox", "schedule": 24 * 60 * 60},
    # The per table-day rollups the dashboard and the reports read follow the audit trail
    # (tables/services/rollups.py); the dashboard also refreshes them when it is opened.
    "tables-rollups-refresh": {"task": "tables.rollups_refresh", "schedule": 60.0},
    # Every minute, raise the pit boss's alerts (review/services.py alerts_raise; idempotent).
    "review-alerts-raise": {"task": "review.alerts_raise", "schedule": 60.0},
    # A report run whose worker stopped beating (killed, out of memory) goes back to the queue:
    # within REPORTS_STALE_SECONDS + this of its worker's death (reports/services.py).
    "reports-requeue-stalled": {
        "task": "reports.requeue_stalled",
        "schedule": env.float("REPORTS_REQUEUE_EVERY_SECONDS", default=30.0),
    },
}
# Without a broker there is no beat: the development server (`make run`) runs these entries of the
# schedule itself, when they are due (core/embedded_beat.py). Off in the test settings and in
# production; never in a management command, gunicorn or a worker.
EMBEDDED_BEAT = env.bool("EMBEDDED_BEAT", default=not CELERY_BROKER_URL)
EMBEDDED_BEAT_ENTRIES = (
    "review-alerts-raise",
    "tables-rollups-refresh",
    "ledger-bill-due-hourly-fees",
    "core-outbox-drain",
    "core-summarise-login-failures",
    "reports-requeue-stalled",
    # the audit trail's and the books' checks, at production's intervals: the chains' heads
    # anchored every AUDIT_ANCHOR_EVERY_MINUTES, the chains and the books verified daily
    "audit-anchor-head",
    "audit-verify-chain",
    "books-verify",
)
# Of those, the checks run in a second thread of their own, one after the other: a whole walk of
# the chains or of the books takes minutes on a big database, and the floor's entries (the alerts
# every minute) must not wait for it. They only read while they walk (no write lock on SQLite: the
# tables keep writing), and each is due once its interval has passed since it last ran as the
# database (the stored verifications) or the anchor file records it, not since the server started:
# `make run` restarts far more often than once a day, and a daily check counted from each start
# would never run.
EMBEDDED_BEAT_CHECKS = ("audit-anchor-head", "audit-verify-chain", "books-verify")
# Where each check records when it last ran, by task: a function answering it, or a model whose
# newest row nobody asked for (requested_by empty: the nightly run's) started then.
EMBEDDED_BEAT_LAST_RUN = {
    "audit.anchor_head": "audit.anchor_file.anchor_signed_last",  # the newest anchor in the file
    "audit.verify_chain": "audit.ChainVerification",
    "books.verify": "ledger.BooksVerification",
}
# Seconds between two refreshes of the dashboard's live part (htmx polling).
REVIEW_POLL_SECONDS = env.int("REVIEW_POLL_SECONDS", default=10)
# --- report runs (reports/, docs/reports.md) ---------------------------------------------------
# How often a run's progress (rows written) is committed for the page to poll, in seconds.
REPORTS_PROGRESS_INTERVAL = env.float("REPORTS_PROGRESS_INTERVAL", default=1.0)
# The writing worker's heartbeat, and how long without one a running run is taken for dead and
# queued again (beat's reports-requeue-stalled), in seconds.
REPORTS_HEARTBEAT_SECONDS = env.float("REPORTS_HEARTBEAT_SECONDS", default=20.0)
REPORTS_STALE_SECONDS = env.float("REPORTS_STALE_SECONDS", default=60.0)
# A run redelivered this many times (its worker died each time) is failed instead of retried.
REPORTS_MAX_ATTEMPTS = env.int("REPORTS_MAX_ATTEMPTS", default=3)
# Tests only: seconds slept per progress call, to make a report slow enough to kill mid-run.
REPORTS_TEST_DELAY_PER_CHUNK = env.float("REPORTS_TEST_DELAY_PER_CHUNK", default=0.0)

# The most chips one buy-in or cash-out at the cage may move (a typo's extra zeros are refused).
CAGE_MAX_AMOUNT = env.int("CAGE_MAX_AMOUNT", default=10_000_000)
IDEMPOTENCY_RETENTION_DAYS = env.int("IDEMPOTENCY_RETENTION_DAYS", default=7)
HEALTHZ_BROKER_TIMEOUT = env.float("HEALTHZ_BROKER_TIMEOUT", default=2.0)
# The outbox: an unsent message younger than the grace is left to its own commit's send; sent
# messages are forgotten after the retention (unsent ones never are).
OUTBOX_DRAIN_GRACE_SECONDS = env.float("OUTBOX_DRAIN_GRACE_SECONDS", default=30.0)
OUTBOX_RETENTION_DAYS = env.int("OUTBOX_RETENTION_DAYS", default=7)
# A broker that does not answer fails a send after this long (the outbox keeps the message).
CELERY_BROKER_CONNECTION_TIMEOUT = env.float("CELERY_BROKER_CONNECTION_TIMEOUT", default=2.0)
# The deepest JSON document the API parses (ours are 3 levels deep; see core/parsers.py).
API_JSON_MAX_DEPTH = env.int("API_JSON_MAX_DEPTH", default=32)

# --- logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # django-axes logs every failed login at INFO/WARNING: a password flood would flood the log too.
    # The record is core.LoginFailure and its summary on the audit chain (access/services/logins.py).
    "loggers": {"axes": {"level": env.str("AXES_LOG_LEVEL", default="ERROR")}},
}
