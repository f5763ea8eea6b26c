"""``python manage.py db_roles_sql``: print the SQL that sets up the PostgreSQL roles (core.db_roles;
docs/deployment.md shows its output for the default names)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from core.db_roles import RoleNames, script


class Command(BaseCommand):
    help = "Print the SQL creating the owner and application roles and their rights (docs/deployment.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = RoleNames()
        parser.add_argument("--database", default=defaults.database)
        parser.add_argument("--owner", default=defaults.owner, help="the role that runs migrations")
        parser.add_argument("--app", default=defaults.app, help="the role the web and Celery processes use")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            names = RoleNames(database=options["database"], owner=options["owner"], app=options["app"])
        except ValueError as error:
            self.stderr.write(str(error))
            raise SystemExit(2) from None
        self.stdout.write(script(names), ending="")
