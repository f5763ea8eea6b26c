"""Production settings: everything secret or host-specific must come from the environment.

``DJANGO_SETTINGS_MODULE=casino.settings.production SECRET_KEY=… ALLOWED_HOSTS=…
python manage.py check --deploy`` reports no issue (tests/casino/test_deploy.py).
"""

from __future__ import annotations

from casino.settings.base import *
from casino.settings.base import _login_budget_cache, env

DEBUG = False
EMBEDDED_BEAT = False  # beat runs (`make beat`): the web processes never do its work themselves
SECRET_KEY = env.str("SECRET_KEY")  # no default: refusing to start beats a guessable key
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
# The audit chain's HMAC key and the anchors' destination: no defaults (docs/audit.md). A chain
# hashed before the cut-over to keyed hashes names its last plain seq; a new one has none.
AUDIT_HMAC_KEY = env.str("AUDIT_HMAC_KEY")
AUDIT_ANCHOR_FILE = env.str("AUDIT_ANCHOR_FILE")
AUDIT_PLAIN_UNTIL_SEQ = env.int("AUDIT_PLAIN_UNTIL_SEQ", default=0)

# TLS is terminated by the reverse proxy, which must set X-Forwarded-Proto (docs/deployment.md).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # load balancers probe over plain HTTP
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SECURE = True
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[f"https://{h}" for h in ALLOWED_HOSTS])
X_FRAME_OPTIONS = "DENY"
# A shared tablet left unattended should not stay logged in for two weeks.
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=12 * 60 * 60)

# The login budget counts once for every worker and node (access/services/login_budget.py): in
# CACHE_URL's Redis, else the broker's (its own key prefix).
if not CACHE_URL and CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CACHES["login_budget"] = _login_budget_cache(CELERY_BROKER_URL)

DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)

STORAGES = {
    **STORAGES,  # "default" and "reports" (the report runs' files: REPORTS_STORAGE_BACKEND …) as in base
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
