"""The people at a table: new players, seats taken and left, spectators who join and leave."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status as http
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.outputs import PageOut
from core.types import Staff
from tables import selectors, services
from tables.api import inputs, outputs
from tables.api.read_models import player_data
from tables.api.views.base import TableAction, open_session, seat_at, table_get
from tables.models import Spectator, Table
from tables.permissions import check_can_read_table


class PlayersPageOut(PageOut):
    results = outputs.PlayerOut(many=True)


class PlayerCreateView(TableAction):
    """GET: the casino's players free to sit or stand at the table (a device's seat picker, the
    croupier screen's list), for whoever reads the table. POST: a new player of the table's casino
    (to seat him or let him stand as a spectator), by the croupier on shift."""

    input = inputs.PlayerCreateIn
    output = outputs.PlayerOut
    status_code = http.HTTP_201_CREATED

    @extend_schema(
        parameters=[
            OpenApiParameter("search", str, description="part of a name, or a whole membership number")
        ],
        responses={200: PlayersPageOut, 403: outputs.ErrorOut, 404: outputs.ErrorOut},
        operation_id="tables_players_list",
    )
    def get(self, request: Request, table_id: int) -> Response:
        table = table_get(table_id)
        check_can_read_table(request.user, table)
        search = request.query_params.get("search", "")[:100]
        paginator = PageNumberPagination()
        players = selectors.players_available(table=table, search=search)
        page = paginator.paginate_queryset(players, request, view=self)
        return paginator.get_paginated_response([player_data(p) for p in page or []])

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.player_create(actor=actor, casino=table.casino, **data)

    def render(self, table: Table, result: Any) -> Any:
        return player_data(result)


class SeatTakeView(TableAction):
    """A player sits down at a seat."""

    input = inputs.SeatTakeIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.seat_take(actor=actor, session=session, player=data["player"], number=data["number"])


class SeatLeaveView(TableAction):
    """The player at this seat leaves (a banker between coups gives up the bank)."""

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.seat_leave(actor=actor, seat=seat_at(open_session(table), data["number"]))


class SpectatorJoinView(TableAction):
    """A player stands at the table as a spectator."""

    input = inputs.SpectatorJoinIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.spectator_join(actor=actor, session=open_session(table), player=data["player"])


class SpectatorLeaveView(TableAction):
    """A spectator leaves."""

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        spectator = Spectator.objects.filter(session=session, pk=data["spectator_id"]).first()
        if spectator is None:
            raise Http404("No such spectator at this table.")
        return services.spectator_leave(actor=actor, spectator=spectator)
