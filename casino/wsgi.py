"""WSGI entry point: ``gunicorn casino.wsgi:application``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.production")

application = get_wsgi_application()

# lock_timeout and statement_timeout on this web process's connections (not on Celery's)
from core.db_limits import web_limits_enable  # noqa: E402  (needs the settings configured above)

web_limits_enable()
