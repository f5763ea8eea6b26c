"""The Chemin de Fer back-office project package (settings, URLs, Celery, site-wide views)."""

# Import the Celery app when Django starts so that @shared_task binds to it.
from casino.celery import app as celery_app

__all__ = ("celery_app",)
