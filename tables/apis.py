"""The REST API for the table workflow (docs/api.md), so a smart shoe or another client can drive a
table: thin views that parse the request, check the permission, call one service or selector and
render the result.

Responses are the plain data built by the ``*_data`` functions; the ``*Out`` serializers of
tables.serializers document them in the schema (running every step's answer through DRF's
serializers would cost more than the rest of the API's share of a step; a test checks that each
answer renders identically through its serializer).

Every POST is idempotent (``Idempotency-Key`` header, tables.services.idempotency) and runs as one
transaction with its service. Errors are rendered by :func:`api_exception_handler` (configured in
``REST_FRAMEWORK["EXCEPTION_HANDLER"]``), never as a 500.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db.models import Prefetch, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from tables import serializers as s
from tables import services
from tables.engine_bridge import coup_record
from tables.models import (
    UNFINISHED_COUP_STATES,
    Coup,
    CoupStep,
    Seat,
    SessionPause,
    Shoe,
    ShoeAlarm,
    ShoeCard,
    Spectator,
    Table,
    TableSession,
)
from tables.permissions import check_can_read_table, check_croupier_at, reads_everything
from tables.rules.machine import Move, Phase
from tables.selectors import (
    assignments_current,
    bank_open_turn,
    bank_rotation,
    corrections_pending,
    coup_view,
    table_open_session,
    user_roles,
)
from tables.services import Caller, ConfirmationRequired, CoupConflict, StepRequest, idempotency
from tables.services.idempotency import IdempotencyInProgress, IdempotencyKeyReused

logger = logging.getLogger(__name__)

EXPORT_COUPS = "tables.export_coups"


# ============================================================================================ errors
def _validation_body(exc: DjangoValidationError) -> dict[str, Any]:
    """``{"field": ["message"]}`` for field errors, ``{"detail": "..."}`` for the others."""
    if hasattr(exc, "error_dict"):
        return {
            ("non_field_errors" if field == NON_FIELD_ERRORS else field): messages
            for field, messages in exc.message_dict.items()
        }
    return {"detail": " ".join(exc.messages)}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """One mapping from the services' exceptions to HTTP, on top of DRF's own (401, 403, 404, 400)."""
    if isinstance(exc, DjangoValidationError):
        return Response(_validation_body(exc), status=http.HTTP_400_BAD_REQUEST)
    if isinstance(exc, CoupConflict):
        return Response(
            {"detail": exc.message, "current_step": exc.current_step}, status=http.HTTP_409_CONFLICT
        )
    if isinstance(exc, ConfirmationRequired):
        return Response(
            {
                "code": "confirmation_required",
                "detail": str(exc),
                "violation": s.violation_data(exc.violation),
            },
            status=http.HTTP_422_UNPROCESSABLE_ENTITY,
        )
    if isinstance(exc, IdempotencyKeyReused):
        return Response({"code": exc.code, "detail": str(exc)}, status=http.HTTP_422_UNPROCESSABLE_ENTITY)
    if isinstance(exc, IdempotencyInProgress):
        return Response({"detail": str(exc), "current_step": None}, status=http.HTTP_409_CONFLICT)
    if isinstance(exc, IntegrityError):
        # a database constraint refused a write that raced another one: nothing was written
        logger.warning("API write refused by a database constraint: %s", exc)
        return Response(
            {
                "detail": "This conflicts with a change recorded meanwhile: reload and retry.",
                "current_step": None,
            },
            status=http.HTTP_409_CONFLICT,
        )
    return drf_exception_handler(exc, context)


# =========================================================================================== schema
IDEMPOTENCY_PARAMETER = OpenApiParameter(
    idempotency.HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=True,
    description="A new key (e.g. a UUID) per request; resend the same key to replay a request safely.",
)
ERROR_RESPONSES: dict[int, Any] = {
    400: OpenApiTypes.OBJECT,  # {"field": ["message"]} or {"detail": "message"}
    401: s.ErrorOut,
    403: s.ErrorOut,
    404: s.ErrorOut,
    409: s.ConflictOut,
    422: s.UnprocessableOut,
}


class ApiSchema(AutoSchema):
    """POST views declare ``input``, ``output`` and ``status_code``; every POST documents the
    Idempotency-Key header and the error responses."""

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self.method == "POST":
            parameters.append(IDEMPOTENCY_PARAMETER)
        return parameters

    def get_request_serializer(self) -> Any:
        if self.method == "POST":
            return getattr(self.view, "input", None)
        return super().get_request_serializer()

    def get_response_serializers(self) -> Any:
        if self.method == "POST":
            return {self.view.status_code: self.view.output, **ERROR_RESPONSES}
        return super().get_response_serializers()


class ApiView(APIView):
    schema = ApiSchema()
    parser_classes = [JSONParser]
    input: type[serializers.Serializer] = s.EmptyIn
    output: type[serializers.Serializer] = s.TableOut
    status_code: int = http.HTTP_200_OK


# ====================================================================================== idempotency
def _plain(data: Any) -> Any:
    """Rendered once to plain JSON, so the first response and its replays are the same bytes."""
    return json.loads(json.dumps(data, cls=JSONEncoder))


def _request_body(request: Request) -> Any:
    data = request.data
    if hasattr(data, "lists"):  # a QueryDict
        return {key: values for key, values in data.lists()}
    return data


def idempotent(method: Callable[..., Response]) -> Callable[..., Response]:
    """Run a POST handler through tables.services.idempotency: missing key → 400, replay → the
    first response (header ``Idempotent-Replayed: true``), same key with another body → 422."""

    @functools.wraps(method)
    def handler(self: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = idempotency.idempotency_key_check(request.headers.get(idempotency.HEADER))
        fingerprint = idempotency.request_fingerprint(
            method=request.method, path=request.path, body=_request_body(request)
        )

        def work() -> tuple[int, Any]:
            response = method(self, request, *args, **kwargs)
            return response.status_code, _plain(response.data)

        result = idempotency.idempotent_run(user=request.user, key=key, fingerprint=fingerprint, work=work)
        response = Response(result.body, status=result.status)
        if result.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    return handler


# ========================================================================================== helpers
def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data if request.data is not None else {})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _key(request: Request) -> str:
    return request.headers.get(idempotency.HEADER, "")


def _table(table_id: int) -> Table:
    return get_object_or_404(Table.objects.select_related("casino", "profile"), pk=table_id)


def _open_session(table: Table) -> TableSession:
    session = table_open_session(table=table)
    if session is None:
        raise DjangoValidationError("This table has no open session.")
    return session


def _seat(session: TableSession, number: int) -> Seat:
    seat = Seat.objects.filter(session=session, number=number, left_at__isnull=True).first()
    if seat is None:
        raise DjangoValidationError({"seat": f"Nobody sits at seat {number}."})
    return seat


def _player_data(player: Any) -> dict[str, Any]:
    return {
        "id": player.pk,
        "display_name": player.display_name,
        "membership_number": player.membership_number,
    }


# -------------------------------------------------------- table reads (a selector: see docs/api.md)
def tables_readable(*, user: AbstractBaseUser) -> QuerySet[Table]:
    """Pit bosses and accountants read every table; a croupier the tables of his current shifts."""
    tables = Table.objects.select_related("casino", "profile").order_by("casino__name", "name", "pk")
    if reads_everything(user):
        return tables
    if "croupier" not in user_roles(user=user):
        return tables.none()
    return tables.filter(pk__in=assignments_current(user=user).values("table_id"))


def table_summary_data(table: Table) -> dict[str, Any]:
    return {
        "id": table.pk,
        "name": table.name,
        "casino": table.casino.name,
        "profile": table.profile.slug,
        "seat_count": table.seat_count,
        "state": table.state,
        "first_banker_method": table.first_banker_method,
    }


def table_data(table: Table) -> dict[str, Any]:
    """The table as a client needs it now: session, people, shoe, bank, the coup in play."""
    data: dict[str, Any] = {
        **table_summary_data(table),
        "session": None,
        "seats": [],
        "spectators": [],
        "shoe": None,
        "bank": None,
        "bank_rotation": None,
        "current_coup": None,
        "last_coup": None,
    }
    session = table_open_session(table=table)
    if session is None:
        return data
    session.table = table
    pause = SessionPause.objects.filter(session=session, ended_at__isnull=True).first()
    data["session"] = {
        "id": session.pk,
        "opened_at": session.opened_at,
        "opened_by": session.opened_by.get_username(),
        "paused": pause is not None,
        "paused_since": pause.started_at if pause else None,
    }
    seats = Seat.objects.filter(session=session, left_at__isnull=True).select_related("player")
    data["seats"] = [
        {
            "id": seat.pk,
            "number": seat.number,
            "player": _player_data(seat.player),
            "joined_at": seat.joined_at,
        }
        for seat in seats.order_by("number")
    ]
    spectators = Spectator.objects.filter(session=session, left_at__isnull=True).select_related("player")
    data["spectators"] = [
        {"id": spec.pk, "player": _player_data(spec.player), "joined_at": spec.joined_at}
        for spec in spectators.order_by("joined_at", "pk")
    ]
    shoe = Shoe.objects.filter(table=table, state=Shoe.State.OPEN).first()
    if shoe is not None:
        dealt = ShoeCard.objects.filter(shoe=shoe).count()
        data["shoe"] = {
            "id": shoe.pk,
            "number": shoe.number,
            "decks": shoe.decks,
            "cards_dealt": dealt,
            "cards_left": 52 * shoe.decks - dealt,
            "stop_card_position": shoe.stop_card_position,
            "stop_reached": shoe.stop_reached,
            "alarm": shoe.alarm,
            "alarms": [
                {
                    "kind": a.kind,
                    "card": a.card,
                    "detail": a.detail,
                    "coup": a.coup_id,
                    "raised_at": a.raised_at,
                }
                for a in ShoeAlarm.objects.filter(shoe=shoe).order_by("raised_at", "pk")
            ],
        }
    turn = bank_open_turn(session=session)
    if turn is not None:
        data["bank"] = {
            "id": turn.pk,
            "player": _player_data(turn.player),
            "seat": turn.seat.number,
            "started_how": turn.started_how,
            "started_at": turn.started_at,
            "required_minimum": turn.required_minimum,
        }
    else:
        rotation = bank_rotation(session=session)
        assert rotation is not None
        data["bank_rotation"] = {
            "how": rotation.how,
            "required_minimum": rotation.required_minimum,
            "order": [seat.number for seat in rotation.order],
            "candidates": [seat.number for seat in rotation.candidates],
            "offer_to": rotation.offer_to.number if rotation.offer_to else None,
        }
    coups = Coup.objects.filter(shoe__session=session).order_by("-created_at", "-pk")
    data["current_coup"] = coups.filter(state__in=UNFINISHED_COUP_STATES).values_list("pk", flat=True).first()
    data["last_coup"] = coups.values_list("pk", flat=True).first()
    return data


def _step_result_data(result: services.StepResult) -> dict[str, Any]:
    return {"step": s.step_data(result.step), "coup": s.coup_data(coup_view(coup=result.coup))}


# ============================================================================================ reads
class TableListView(GenericAPIView):
    """The tables you may read: all of them for pit bosses and accountants, for a croupier those he
    is assigned to now."""

    schema = ApiSchema()
    serializer_class = s.TableSummaryOut

    def get_queryset(self) -> QuerySet[Table]:
        return tables_readable(user=self.request.user)

    @extend_schema(responses=s.TableSummaryOut(many=True), operation_id="tables_list")
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        return self.get_paginated_response([table_summary_data(t) for t in page])


class TableDetailView(ApiView):
    """The table now: session, seats, spectators, open shoe, bank (or its rotation), current coup."""

    @extend_schema(responses={200: s.TableOut, 403: s.ErrorOut, 404: s.ErrorOut}, operation_id="tables_read")
    def get(self, request: Request, table_id: int) -> Response:
        table = _table(table_id)
        check_can_read_table(request.user, table)
        return Response(table_data(table))


class CoupDetailView(ApiView):
    """A coup's state: phase, bets, cards, the legal next steps (each with the violation it would
    carry), the engine's advice at an option point, violations, verdict, restoration, correction."""

    @extend_schema(responses={200: s.CoupOut, 403: s.ErrorOut, 404: s.ErrorOut}, operation_id="coups_read")
    def get(self, request: Request, coup_id: int) -> Response:
        coup = get_object_or_404(Coup.objects.select_related("shoe"), pk=coup_id)
        check_can_read_table(request.user, coup.shoe.table_id)
        return Response(s.coup_data(coup_view(coup=coup)))


class CoupRecordView(ApiView):
    """The finished coup as an interchange record (docs/coup-record.md); pit bosses and accountants.
    A restored coup carries the correction's cards as ``shoe_next``, so ``validate_coups`` restores
    it the same way."""

    @extend_schema(
        responses={200: s.CoupRecordOut, 403: s.ErrorOut, 404: s.ErrorOut, 409: s.ConflictOut},
        operation_id="coups_record",
    )
    def get(self, request: Request, coup_id: int) -> Response:
        coup = get_object_or_404(Coup, pk=coup_id)
        if not request.user.has_perm(EXPORT_COUPS):
            raise PermissionDenied("Only pit bosses and accountants export coup records.")
        view = coup_view(coup=coup)
        if view.state.phase is not Phase.DONE:
            raise CoupConflict(
                "The coup is not finished: it has no record yet.", current_step=coup.step_count
            )
        shoe_next = tuple(view.correction.payload["cards"]) if view.correction else ()
        record = coup_record(view.coup, view.state, shoe_next=shoe_next)
        return Response(s.coup_record_data(record))


class CorrectionsPendingView(GenericAPIView):
    """Restored coups waiting for a pit boss's approval, oldest first (pit bosses, accountants)."""

    schema = ApiSchema()
    serializer_class = s.PendingCorrectionOut

    def get_queryset(self) -> QuerySet[Coup]:
        latest = CoupStep.objects.filter(kind=CoupStep.Kind.CORRECTION).select_related("actor", "corrects")
        return corrections_pending().prefetch_related(
            Prefetch("steps", queryset=latest.order_by("-index"), to_attr="corrections_submitted")
        )

    @extend_schema(responses=s.PendingCorrectionOut(many=True), operation_id="corrections_pending")
    def get(self, request: Request) -> Response:
        if not reads_everything(request.user):
            raise PermissionDenied("Only pit bosses and accountants see the corrections queue.")
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None
        data = [
            {
                "coup": coup.pk,
                "table": coup.shoe.table_id,
                "table_name": coup.shoe.table.name,
                "shoe_number": coup.shoe.number,
                "coup_number": coup.number,
                "bank": coup.bank,
                "created_at": coup.created_at,
                "correction": (
                    s.step_data(coup.corrections_submitted[0]) if coup.corrections_submitted else None
                ),
            }
            for coup in page
        ]
        return self.get_paginated_response(data)


# ================================================================================ writes at a table
class TableAction(ApiView):
    """A POST at a table: only the croupier on shift there; the service re-checks in its transaction."""

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        raise NotImplementedError

    def render(self, table: Table, result: Any) -> Any:
        table.refresh_from_db(fields=["state"])  # opening or closing the session changed it
        return table_data(table)

    @idempotent
    def post(self, request: Request, table_id: int, **kwargs: Any) -> Response:
        table = _table(table_id)
        check_croupier_at(request.user, table)
        data = {**_valid(self.input, request), **kwargs}
        result = self.act(actor=request.user, table=table, data=data, key=_key(request))
        return Response(self.render(table, result), status=self.status_code)


class SessionOpenView(TableAction):
    """Open the table: a new session."""

    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.table_session_open(actor=actor, table=table)


class SessionCloseView(TableAction):
    """Close the session: shoe closed, bank returned, everybody leaves."""

    input = s.ReasonIn

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.table_session_close(actor=actor, session=_open_session(table), reason=data["reason"])


class SessionPauseView(TableAction):
    """Pause play (between coups)."""

    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.session_pause_start(actor=actor, session=_open_session(table))


class SessionResumeView(TableAction):
    """Resume play after a pause."""

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.session_pause_end(actor=actor, session=_open_session(table))


class PlayerCreateView(TableAction):
    """A new player of the table's casino (to seat him or let him stand as a spectator)."""

    input = s.PlayerCreateIn
    output = s.PlayerOut
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.player_create(actor=actor, casino=table.casino, **data)

    def render(self, table: Table, result: Any) -> Any:
        return _player_data(result)


class SeatTakeView(TableAction):
    """A player sits down at a seat."""

    input = s.SeatTakeIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.seat_take(actor=actor, session=session, player=data["player"], number=data["number"])


class SeatLeaveView(TableAction):
    """The player at this seat leaves (a banker between coups gives up the bank)."""

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.seat_leave(actor=actor, seat=_seat(_open_session(table), data["number"]))


class SpectatorJoinView(TableAction):
    """A player stands at the table as a spectator."""

    input = s.SpectatorJoinIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.spectator_join(actor=actor, session=_open_session(table), player=data["player"])


class SpectatorLeaveView(TableAction):
    """A spectator leaves."""

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        spectator = Spectator.objects.filter(session=session, pk=data["spectator_id"]).first()
        if spectator is None:
            raise Http404("No such spectator at this table.")
        return services.spectator_leave(actor=actor, spectator=spectator)


class ShoeStartView(TableAction):
    """A new shoe: decks, burnt cards, cut and stop card."""

    input = s.ShoeStartIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.shoe_start(actor=actor, session=_open_session(table), **data)


class ShoeCloseView(TableAction):
    """Close the open shoe (before 5/6 of it was dealt, it is flagged for the pit boss)."""

    input = s.ReasonIn

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        shoe = Shoe.objects.filter(session=_open_session(table), state=Shoe.State.OPEN).first()
        if shoe is None:
            raise DjangoValidationError("This table has no shoe in play.")
        return services.shoe_close(actor=actor, shoe=shoe, reason=data["reason"])


class BankFirstView(TableAction):
    """The session's first banker, chosen by lot or auction (``amount``: the winning bid)."""

    input = s.BankFirstIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.bank_first_assign(
            actor=actor, session=session, seat=_seat(session, data["seat"]), amount=data["amount"]
        )


class BankOfferView(TableAction):
    """The answer of the seat the bank is offered to now (accept or refuse)."""

    input = s.BankOfferIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.bank_offer_answer(
            actor=actor, session=session, seat=_seat(session, data["seat"]), accept=data["accept"]
        )


class BankPassView(TableAction):
    """The banker gives up the bank between coups."""

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.bank_pass(actor=actor, session=_open_session(table))


class BankAuctionView(TableAction):
    """A passed bank awarded by auction to whoever puts up at least the same amount."""

    input = s.BankAuctionIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.bank_auction_award(
            actor=actor, session=session, seat=_seat(session, data["seat"]), amount=data["amount"]
        )


class BankNewView(TableAction):
    """Nobody took the bank at the required amount: the first neighbour opens one from the minimum."""

    input = s.SeatIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.bank_new_from_minimum(actor=actor, session=session, seat=_seat(session, data["seat"]))


def _spectator(session: TableSession, spectator_id: int) -> Spectator:
    spectator = Spectator.objects.filter(session=session, pk=spectator_id, left_at__isnull=True).first()
    if spectator is None:
        raise Http404("No such spectator at this table.")
    return spectator


class BankShareView(TableAction):
    """Club: a spectator puts up part of a new bank, with the banker's consent (before its first coup)."""

    input = s.BankShareIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.bank_share_contribute(
            actor=actor,
            session=session,
            spectator=_spectator(session, data["spectator"]),
            amount=data["amount"],
        )


class BankShareOutView(TableAction):
    """Club: before a deal, the spectator takes his proportional share out of the bank."""

    input = s.BankShareOutIn

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        session = _open_session(table)
        return services.bank_share_withdraw(
            actor=actor, session=session, spectator=_spectator(session, data["spectator"])
        )


class CoupStartView(TableAction):
    """A new coup: the banker declares his bank (the coup's first step)."""

    input = s.CoupStartIn
    output = s.StepResultOut
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.coup_start(
            actor=actor, session=_open_session(table), amount=data["bank"], idempotency_key=key
        )

    def render(self, table: Table, result: Any) -> Any:
        return _step_result_data(result)


# ================================================================================== writes on a coup
class CoupStepView(ApiView):
    """Record the coup's next step. ``step`` is the step count the client last saw (409 if stale).
    A step against the rules needs ``"confirm": true`` (422 ``confirmation_required`` otherwise);
    confirmed, it is recorded with its violation and the coup is flagged."""

    input = s.StepIn
    output = s.StepResultOut
    status_code = http.HTTP_201_CREATED

    @idempotent
    def post(self, request: Request, coup_id: int) -> Response:
        data = _valid(s.StepIn, request)
        step = StepRequest(
            kind=Move(data["kind"]),
            amount=data.get("amount"),
            seat=data.get("seat"),
            spectator=data.get("spectator"),
            card=data.get("card"),
            callers=tuple(Caller(**caller) for caller in data.get("callers", ())),
        )
        try:
            result = services.coup_step_record(
                actor=request.user,
                coup=coup_id,
                request=step,
                expected_step=data["step"],
                confirm=data["confirm"],
                idempotency_key=_key(request),
            )
        except Coup.DoesNotExist:
            raise Http404("No such coup.") from None
        return Response(_step_result_data(result), status=self.status_code)


class CoupAction(ApiView):
    """A POST on a coup's correction; the service checks who may make it."""

    output = s.StepResultOut
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: AbstractBaseUser, coup: Coup, data: dict[str, Any], key: str) -> Any:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, coup_id: int) -> Response:
        coup = get_object_or_404(Coup, pk=coup_id)
        data = _valid(self.input, request)
        result = self.act(actor=request.user, coup=coup, data=data, key=_key(request))
        return Response(_step_result_data(result), status=self.status_code)


class CorrectionSubmitView(CoupAction):
    """The croupier restores a flagged coup with the cards dealt to complete it (the coup's
    ``restoration.needs_cards`` says how many). Its settlement is provisional until approved."""

    input = s.CorrectionIn

    def act(self, *, actor: AbstractBaseUser, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.correction_submit(actor=actor, coup=coup, cards=data["cards"], idempotency_key=key)


class CorrectionApproveView(CoupAction):
    """A pit boss (never the one who submitted it) approves the correction: the settlement is final."""

    def act(self, *, actor: AbstractBaseUser, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.correction_approve(actor=actor, coup=coup, idempotency_key=key)


class CoupVoidView(CoupAction):
    """A pit boss voids a flagged coup that cannot be restored (``reason`` required): every bet is
    returned and the bank stays as declared."""

    input = s.RejectIn

    def act(self, *, actor: AbstractBaseUser, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.coup_void(actor=actor, coup=coup, reason=data["reason"], idempotency_key=key)


class CorrectionRejectView(CoupAction):
    """A pit boss rejects the correction (``reason`` required): it goes back to the croupier."""

    input = s.RejectIn

    def act(self, *, actor: AbstractBaseUser, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.correction_reject(actor=actor, coup=coup, reason=data["reason"], idempotency_key=key)
