"""The shoe: a new one started, the open one closed."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status as http

from core.sentence import said
from core.types import Staff
from tables import services
from tables.api import inputs
from tables.api.views.base import TableAction, open_session
from tables.models import Shoe, Table


class ShoeStartView(TableAction):
    """A new shoe: decks, burnt cards, cut and stop card."""

    input = inputs.ShoeStartIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.shoe_start(actor=actor, session=open_session(table), **data)


class ShoeCloseView(TableAction):
    """Close the open shoe (before 5/6 of it was dealt, it is flagged for the pit boss)."""

    input = inputs.ReasonIn

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        shoe = Shoe.objects.filter(session=open_session(table), state=Shoe.State.OPEN).first()
        if shoe is None:
            raise DjangoValidationError(said("This table has no shoe in play."))
        return services.shoe_close(actor=actor, shoe=shoe, reason=data["reason"])
