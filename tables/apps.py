from typing import Any

from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and coups"

    def ready(self) -> None:
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_migrate

        from tables.builtin import builtin_data_after_migrate

        # `manage.py flush` (and the test runner's flush between transactional tests) empties every
        # table, then emits post_migrate: re-create the built-in profiles and roles the data
        # migrations made, or the next request would find no groups at all.
        post_migrate.connect(builtin_data_after_migrate, sender=self, dispatch_uid="tables_builtin_data")
        # SQLite has no time zones: the reports' gaming day is the calendar's own code there
        # (tables.gaming_day.gaming_day_sql), a function of every new SQLite connection.
        connection_created.connect(_sqlite_functions, dispatch_uid="tables_sqlite_functions")


def _sqlite_functions(sender: Any, connection: Any, **kwargs: Any) -> None:
    if connection.vendor == "sqlite":
        from tables.gaming_day import sqlite_gaming_day

        connection.connection.create_function("gaming_day", 3, sqlite_gaming_day, deterministic=True)
