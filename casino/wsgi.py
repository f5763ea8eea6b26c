"""WSGI entry point: ``gunicorn casino.wsgi:application``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.production")

from django.conf import settings

from core.body_deadline import BodyDeadline

# a body that does not arrive is a 408 within REQUEST_BODY_TIMEOUT_SECONDS, not a worker held
# until gunicorn's timeout kills it (core/body_deadline.py)
application = BodyDeadline(
    get_wsgi_application(),
    seconds=settings.REQUEST_BODY_TIMEOUT_SECONDS,
    max_bytes=settings.REQUEST_BODY_MAX_BYTES,
)

# lock_timeout and statement_timeout on this web process's connections (not on Celery's)
from core.db_limits import web_limits_enable  # noqa: E402  (needs the settings configured above)

web_limits_enable()
