"""What every view of the REST API builds on: :class:`ApiView`, the two kinds of POST
(:class:`TableAction` at a table, :class:`CoupAction` on a coup) and the lookups they share.

Thin views: parse the request, check the permission, call one service or selector, render the
result with tables.api.read_models. Every POST is idempotent (core.api.idempotency) and runs as
one transaction with its service; refusals are rendered by core.api.errors.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.idempotency import idempotency_key, idempotent
from core.api.schema import ApiSchema
from core.api.views import ApiView as KitView
from core.api.views import valid
from core.types import Staff, request_staff
from tables.api import outputs
from tables.api.read_models import step_result_data, table_data
from tables.models import Coup, Seat, Spectator, Table, TableSession
from tables.permissions import check_croupier_at, check_works_for, reads_everything
from tables.selectors import table_open_session


class ApiView(KitView):
    """The floor's view: a POST answers the table (``TableOut``) unless it says otherwise."""

    output: type[serializers.Serializer] = outputs.TableOut


# ========================================================================================== lookups
#: the refusal of a write at a table with no session open
NO_OPEN_SESSION = "This table has no open session."


def table_get(table_id: int) -> Table:
    return get_object_or_404(Table.objects.select_related("casino", "profile"), pk=table_id)


def table_not_found() -> Http404:
    """``table_get``'s refusal of a table that is not there, in its words."""
    return Http404(f"No {Table._meta.object_name} matches the given query.")


def open_session(table: Table) -> TableSession:
    session = table_open_session(table=table)
    if session is None:
        raise DjangoValidationError(NO_OPEN_SESSION)
    return session


def seat_at(session: TableSession, number: int) -> Seat:
    seat = Seat.objects.filter(session=session, number=number, left_at__isnull=True).first()
    if seat is None:
        raise DjangoValidationError({"seat": f"Nobody sits at seat {number}."})
    return seat


def spectator_at(session: TableSession, spectator_id: int) -> Spectator:
    spectator = Spectator.objects.filter(session=session, pk=spectator_id, left_at__isnull=True).first()
    if spectator is None:
        raise Http404("No such spectator at this table.")
    return spectator


# =========================================================================================== writes
class TableAction(ApiView):
    """A POST at a table: only the croupier on shift there; the service re-checks in its transaction."""

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        raise NotImplementedError

    def render(self, table: Table, result: Any) -> Any:
        table.refresh_from_db(fields=["state"])  # opening or closing the session changed it
        return table_data(table)

    @idempotent
    def post(self, request: Request, table_id: int, **kwargs: Any) -> Response:
        table = table_get(table_id)
        check_croupier_at(request.user, table)
        data = {**valid(self.input, request), **kwargs}
        actor = request_staff(request)
        result = self.act(actor=actor, table=table, data=data, key=idempotency_key(request))
        return Response(self.render(table, result), status=self.status_code)


class CoupAction(ApiView):
    """A POST on a coup's correction; the service checks who may make it."""

    output = outputs.StepResultOut
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, coup: Coup, data: dict[str, Any], key: str) -> Any:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, coup_id: int) -> Response:
        coup = get_object_or_404(Coup.objects.select_related("shoe__table"), pk=coup_id)
        check_works_for(request.user, coup.shoe.table.casino_id)  # another casino's coup: 403 first
        data = valid(self.input, request)
        actor = request_staff(request)
        result = self.act(actor=actor, coup=coup, data=data, key=idempotency_key(request))
        return self.answer(result)

    def answer(self, result: Any) -> Response:
        return Response(step_result_data(result), status=self.status_code)


# ============================================================================================ queues
class PitQueue(GenericAPIView):
    """A paginated queue of what waits for a pit boss: only who reads everything (pit bosses,
    accountants) sees it, anyone else is told why not (``refusal``); each item is answered by
    ``item_data``."""

    schema = ApiSchema()
    refusal = ""

    def item_data(self, item: Any) -> dict[str, Any]:
        raise NotImplementedError

    def queue_page(self, request: Request) -> Response:
        if not reads_everything(request.user):
            raise PermissionDenied(self.refusal)
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        return self.get_paginated_response([self.item_data(item) for item in page])
