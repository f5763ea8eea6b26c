"""Opening, pausing, resuming and closing a table's session."""

from __future__ import annotations

from typing import Any

from rest_framework import status as http

from core.types import Staff
from tables import services
from tables.api import inputs
from tables.api.views.base import TableAction, open_session
from tables.models import Table


class SessionOpenView(TableAction):
    """Open the table: a new session."""

    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.table_session_open(actor=actor, table=table)


class SessionCloseView(TableAction):
    """Close the session: shoe closed, bank returned, everybody leaves."""

    input = inputs.ReasonIn

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.table_session_close(actor=actor, session=open_session(table), reason=data["reason"])


class SessionPauseView(TableAction):
    """Pause play (between coups)."""

    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.session_pause_start(actor=actor, session=open_session(table))


class SessionResumeView(TableAction):
    """Resume play after a pause."""

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.session_pause_end(actor=actor, session=open_session(table))
