"""The older games (Macao, Landsknecht, old baccarat; docs/games/): an older game's table between
coups, its coups started, read and listed, a coup's next step recorded, a coup voided, and the
Landsknecht fund dues collected. Thin views over older_games.services and
older_games.selectors; a coup's ``next_steps`` says what may be sent next."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.idempotency import idempotency_key, idempotent
from core.api.schema import ApiSchema
from core.types import Staff, request_staff
from older_games import services as games
from older_games.api import inputs as game_inputs
from older_games.api import outputs as game_outputs
from older_games.api.read_models import game_coup_data, game_coup_summary_data, game_table_data
from older_games.selectors import game_coup_view, game_coups
from tables.api import inputs, outputs
from tables.api.read_models import void_request_data
from tables.api.views.base import ApiView, TableAction, open_session, table_get, valid
from tables.models import GameCoup, Table, TableSession, VoidRequest
from tables.permissions import check_can_read_table, check_croupier_at, check_works_for
from tables.selectors import tables_readable


def game_coup_get(coup_id: int) -> GameCoup:
    return get_object_or_404(GameCoup.objects.select_related("table", "banker"), pk=coup_id)


class TableGameView(ApiView):
    """An older game's table between coups: its seated players, the seating the next coup would
    start with or why none can start (``blocked``), the Landsknecht fund and its unpaid dues, the
    open coup and the latest ones. 400 for a chemin de fer table (``tables/{id}/`` is its read)."""

    @extend_schema(
        responses={
            200: game_outputs.GameTableOut,
            400: outputs.ErrorOut,
            403: outputs.ErrorOut,
            404: outputs.ErrorOut,
        },
        operation_id="tables_game_read",
    )
    def get(self, request: Request, table_id: int) -> Response:
        table = table_get(table_id)
        check_can_read_table(request.user, table)
        games.table_play(table)  # an older game's table, or 400
        return Response(game_table_data(table))


class GameCoupStartView(TableAction):
    """A new coup of the table's older game, seated as ``tables/{id}/game/`` proposes (or with
    ``banker``, a seated player's id): the answer is the coup, its ``next_steps`` the first step."""

    input = game_inputs.GameCoupStartIn
    output = game_outputs.GameCoupOut
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return games.game_coup_start(actor=actor, session=open_session(table), banker=data["banker"])

    def render(self, table: Table, result: Any) -> Any:
        return game_coup_data(game_coup_view(result.coup))


class GameCoupListView(GenericAPIView):
    """The older games' coups you may read (``?table=``, ``?session=``), newest first."""

    schema = ApiSchema()
    serializer_class = game_outputs.GameCoupSummaryOut

    def get_queryset(self) -> QuerySet[GameCoup]:
        query = game_inputs.GameCoupsQueryIn(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        coups = game_coups(table=query.validated_data.get("table"))
        if "session" in query.validated_data:
            coups = coups.filter(session_id=query.validated_data["session"])
        return coups.filter(table__in=tables_readable(user=request_staff(self.request)))

    @extend_schema(
        parameters=[game_inputs.GameCoupsQueryIn],
        responses=game_outputs.GameCoupSummaryOut(many=True),
        operation_id="game_coups_list",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        return self.get_paginated_response([game_coup_summary_data(coup) for coup in page])


class GameCoupDetailView(ApiView):
    """A game coup: seating with names, hands, cards, what each player could still lose, its
    steps and ``next_steps``; once settled its net, postings and record."""

    @extend_schema(
        responses={200: game_outputs.GameCoupOut, 403: outputs.ErrorOut, 404: outputs.ErrorOut},
        operation_id="game_coups_read",
    )
    def get(self, request: Request, coup_id: int) -> Response:
        coup = game_coup_get(coup_id)
        check_can_read_table(request.user, coup.table_id)
        return Response(game_coup_data(game_coup_view(coup)))


class _GameCoupStepWrite(ApiView):
    """A step the croupier of the coup's table writes on it (the next step, an undo); the answer is
    the coup as it stands after it."""

    output = game_outputs.GameCoupOut
    status_code = http.HTTP_201_CREATED

    def record(self, *, request: Request, coup: GameCoup) -> Any:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, coup_id: int) -> Response:
        coup = game_coup_get(coup_id)
        check_croupier_at(request.user, coup.table_id)
        result = self.record(request=request, coup=coup)
        return Response(game_coup_data(game_coup_view(result.coup)), status=self.status_code)


class GameCoupStepView(_GameCoupStepWrite):
    """Record the coup's next step: an option of ``next_steps`` (its ``step``, a value for each
    name in its ``choose``) with ``expected_steps``, the coup's ``step_count`` as last seen (409 if
    stale). The game's machine refuses an illegal step (400, its reason); the step that ends the
    coup settles it. Only the croupier of the coup's table."""

    input = game_inputs.GameStepIn

    def record(self, *, request: Request, coup: GameCoup) -> Any:
        data = valid(game_inputs.GameStepIn, request, {"game": coup.game})
        expected = data.pop("expected_steps")
        return games.game_step_record(
            actor=request_staff(request),
            coup=coup.pk,
            payload=data,
            expected_steps=expected,
            idempotency_key=idempotency_key(request),
        )


class GameCoupUndoView(_GameCoupStepWrite):
    """Take back the coup's last step still in effect (a mistyped card) while it is open: an undo
    step is appended, the replay skips both (400 with nothing to take back, 409 if stale or over).
    Only the croupier of the coup's table."""

    input = game_inputs.GameUndoIn

    def record(self, *, request: Request, coup: GameCoup) -> Any:
        data = valid(game_inputs.GameUndoIn, request)
        return games.game_step_undo(
            actor=request_staff(request),
            coup=coup.pk,
            expected_steps=data["expected_steps"],
            reason=data.get("reason", ""),
        )


class GameCoupVoidView(ApiView):
    """End an open coup with nothing settled, ``reason`` required: the table's croupier or a pit
    boss (409 once the coup is over). Above the casino's limit for one pit boss the answer is 202
    and the void request that waits for a second (``/void-requests/``)."""

    input = game_inputs.GameVoidIn
    output = game_outputs.GameCoupOut
    status_code = http.HTTP_200_OK
    other_outputs = {http.HTTP_202_ACCEPTED: outputs.VoidRequestOut}

    @idempotent
    def post(self, request: Request, coup_id: int) -> Response:
        coup = game_coup_get(coup_id)
        check_works_for(request.user, coup.table.casino_id)  # another casino's coup: 403 first
        data = valid(game_inputs.GameVoidIn, request)
        voided = games.game_coup_void(actor=request_staff(request), coup=coup.pk, reason=data["reason"])
        if isinstance(voided, VoidRequest):  # above the casino's limit: a second pit boss decides
            return Response(void_request_data(voided), status=http.HTTP_202_ACCEPTED)
        return Response(game_coup_data(game_coup_view(voided)), status=self.status_code)


class FundDuesView(ApiView):
    """Landsknecht: every seated player of the session who has not paid into the reserve fund pays
    the house's due (one posting each); the answer is the table between coups."""

    output = game_outputs.GameTableOut
    status_code = http.HTTP_201_CREATED

    @idempotent
    def post(self, request: Request, session_id: int) -> Response:
        session = get_object_or_404(TableSession.objects.select_related("table"), pk=session_id)
        check_croupier_at(request.user, session.table)
        valid(inputs.EmptyIn, request)
        games.game_fund_collect(actor=request_staff(request), session=session)
        return Response(game_table_data(session.table), status=self.status_code)
