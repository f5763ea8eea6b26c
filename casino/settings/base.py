"""Base settings, usable as-is for local development.

Everything that differs between machines comes from the environment through the single
``env`` below; ``test`` and ``production`` import this module and only override.
Without any environment the project runs on SQLite (``var/db.sqlite3``) with Celery tasks
executed in-process, so ``make run`` needs no service at all.
"""

from __future__ import annotations

from pathlib import Path

import environ
from celery.schedules import crontab

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
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's assets, served by us: the docs work offline
    "django_htmx",
    "core",
    "audit",
    "tables",
    "ledger",
    "review",
    "reports",
    "cage",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "core.middleware.DatabaseBusyMiddleware",
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
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False  # services own their transactions
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
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Web processes only, PostgreSQL only (core/db_limits.py, docs/deployment.md): how long a request
# waits for a row or advisory lock, and how long one statement may run, before it is refused
# (503, nothing written) instead of hanging; 0 turns a limit off.
DB_LOCK_TIMEOUT_MS = env.int("DB_LOCK_TIMEOUT_MS", default=5_000)
DB_STATEMENT_TIMEOUT_MS = env.int("DB_STATEMENT_TIMEOUT_MS", default=60_000)

# --- auth -----------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# --- i18n / time ----------------------------------------------------------------------------
LANGUAGE_CODE = "en"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True  # every timestamp is stored in UTC; the audit chain hashes UTC ISO-8601

# --- static files ---------------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: an unauthenticated API call then gets 401 + "WWW-Authenticate: Token" (what a
    # tablet client can act on) rather than the bare 403 that session-only authentication gives.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "tables.api.errors.api_exception_handler",
    # REST framework's parsers, JSON bounded in size, depth and text (core/parsers.py): no body
    # becomes a 500 (RecursionError, a lone surrogate).
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # Only POST /api/v1/auth/token/ is throttled (scope "token", per client address): guessing
    # passwords there is slow. NUM_PROXIES: the reverse proxies in front of us (0: REMOTE_ADDR is
    # the client; a spoofed X-Forwarded-For is never believed).
    "DEFAULT_THROTTLE_RATES": {"token": env.str("API_TOKEN_THROTTLE_RATE", default="10/minute")},
    "NUM_PROXIES": env.int("API_NUM_PROXIES", default=0),
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
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    # Re-verify the audit chain every night; a break is logged at ERROR (hook alerting to it).
    "audit-verify-chain": {"task": "audit.verify_chain", "schedule": 24 * 60 * 60},
    # Five past every hour, bill the hourly fees of every hour just finished (idempotent per hour).
    "ledger-bill-due-hourly-fees": {
        "task": "ledger.bill_due_hourly_fees",
        "schedule": crontab(minute=5),
    },
    # Stored answers to idempotent API requests are kept IDEMPOTENCY_RETENTION_DAYS, then forgotten.
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
}
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
}
