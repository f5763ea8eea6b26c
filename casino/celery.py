"""The Celery application. Workers: ``make worker``; periodic tasks: ``make beat``."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.base")

app = Celery("casino")
# Every CELERY_* Django setting configures the app (CELERY_BROKER_URL → broker_url, …).
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
