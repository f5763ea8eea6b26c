"""Coups: a new one started, read, its next step recorded, and a finished one as a record."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status as http
from rest_framework.request import Request
from rest_framework.response import Response

from chemin_de_fer.engine.interchange import record_to_dict
from chemin_de_fer.engine.machine import Move, Phase
from core.api.idempotency import idempotency_key, idempotent
from core.types import Staff, request_staff
from tables import services
from tables.api import inputs, outputs
from tables.api.read_models import coup_data, step_result_data
from tables.api.views.base import NO_OPEN_SESSION, ApiView, TableAction, table_not_found, valid
from tables.engine_bridge import exported_record
from tables.models import Coup, Table
from tables.permissions import check_can_read_table, check_reads_casino
from tables.perms import EXPORT_COUPS
from tables.selectors import coup_view
from tables.services import Amendment, Caller, CoupConflict, StepRequest
from tables.services.locking import open_session_lock_at_table


class CoupStartView(TableAction):
    """A new coup: the banker declares his bank (the coup's first step)."""

    input = inputs.CoupStartIn
    output = outputs.StepResultOut
    status_code = http.HTTP_201_CREATED

    @idempotent
    def post(self, request: Request, table_id: int, **kwargs: Any) -> Response:
        # TableAction's refusals in its order (no such table 404, not its croupier 403, a body not
        # valid 400, no session open 400), but not from reads of their own: the statement that
        # locks the table and its open session answers them (the row, the croupier's shift there,
        # the session), and the start goes on under those locks, taking none again
        actor = request_staff(request)
        try:
            session = open_session_lock_at_table(actor=actor, table=table_id)
        except Table.DoesNotExist:
            raise table_not_found() from None
        data = valid(self.input, request)
        if session is None:
            raise DjangoValidationError(NO_OPEN_SESSION)
        result = services.coup_start(
            actor=actor,
            session=session,
            amount=data["bank"],
            idempotency_key=idempotency_key(request),
            session_locked=True,
        )
        return Response(step_result_data(result), status=self.status_code)


class CoupDetailView(ApiView):
    """A coup's state: phase, bets, cards, the legal next steps (each with the violation it would
    carry), the engine's advice at an option point, violations, verdict, restoration, correction."""

    @extend_schema(
        responses={200: outputs.CoupOut, 403: outputs.ErrorOut, 404: outputs.ErrorOut},
        operation_id="coups_read",
    )
    def get(self, request: Request, coup_id: int) -> Response:
        coup = get_object_or_404(Coup.objects.select_related("shoe"), pk=coup_id)
        check_can_read_table(request.user, coup.shoe.table_id)
        return Response(coup_data(coup_view(coup=coup)))


class CoupRecordView(ApiView):
    """The finished coup as an interchange record (docs/coup-record.md), the same JSON as the coup
    records export; pit bosses and accountants. A restored coup carries the correction's cards as
    ``shoe_next``, so ``validate_coups`` restores it the same way."""

    @extend_schema(
        responses={
            200: outputs.CoupRecordOut,
            403: outputs.ErrorOut,
            404: outputs.ErrorOut,
            409: outputs.ConflictOut,
        },
        operation_id="coups_record",
    )
    def get(self, request: Request, coup_id: int) -> Response:
        coup = get_object_or_404(Coup.objects.select_related("shoe__table"), pk=coup_id)
        if not request.user.has_perm(EXPORT_COUPS):
            raise PermissionDenied("Only pit bosses and accountants export coup records.")
        check_reads_casino(request.user, coup.shoe.table.casino_id)
        view = coup_view(coup=coup)
        if view.state.phase is not Phase.DONE:
            raise CoupConflict(
                "The coup is not finished: it has no record yet.", current_step=coup.step_count
            )
        return Response(record_to_dict(exported_record(view.coup, view.steps, view.state)))


class _CoupStepWrite(ApiView):
    """A step written on a coup named by its id (the next step, an amendment): the service locks
    and reads the coup in its transaction, so a coup that is not there is found there (404)."""

    output = outputs.StepResultOut
    status_code = http.HTTP_201_CREATED

    def record(self, *, actor: Staff, coup_id: int, data: dict[str, Any], key: str, **kwargs: Any) -> Any:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, coup_id: int, **kwargs: Any) -> Response:
        data = valid(self.input, request)
        try:
            result = self.record(
                actor=request_staff(request),
                coup_id=coup_id,
                data=data,
                key=idempotency_key(request),
                **kwargs,
            )
        except Coup.DoesNotExist:
            raise Http404("No such coup.") from None
        return Response(step_result_data(result), status=self.status_code)


class CoupStepView(_CoupStepWrite):
    """Record the coup's next step. ``step`` is the step count the client last saw (409 if stale).
    A step against the rules needs ``"confirm": true`` (422 ``confirmation_required`` otherwise);
    confirmed, it is recorded with its violation and the coup is flagged."""

    input = inputs.StepIn

    def record(self, *, actor: Staff, coup_id: int, data: dict[str, Any], key: str, **kwargs: Any) -> Any:
        step = StepRequest(
            kind=Move(data["kind"]),
            amount=data.get("amount"),
            seat=data.get("seat"),
            spectator=data.get("spectator"),
            card=data.get("card"),
            callers=tuple(Caller(**caller) for caller in data.get("callers", ())),
            seated_round_over=data.get("seated_round_over", False),
            consent=data.get("consent", False),
        )
        return services.coup_step_record(
            actor=actor,
            coup=coup_id,
            request=step,
            expected_step=data["step"],
            confirm=data["confirm"],
            idempotency_key=key,
        )


class CoupStepAmendView(_CoupStepWrite):
    """Amend a mistyped bet or card before the reveal (docs/table-workflow.md, "Amending a typo"):
    a new ``amend`` step supersedes step ``index``; ``reason`` is required. Refused (409) after the
    reveal: the pit boss's correction applies then. An amendment that would make a later step
    impossible is refused (400, naming the step); one after which a later step breaks the rules
    needs ``"confirm": true`` (422 ``confirmation_required``)."""

    input = inputs.AmendIn

    def record(self, *, actor: Staff, coup_id: int, data: dict[str, Any], key: str, **kwargs: Any) -> Any:
        return services.step_amend(
            actor=actor,
            coup=coup_id,
            index=kwargs["index"],
            amendment=Amendment(
                amount=data["amount"], seat=data["seat"], spectator=data["spectator"], card=data["card"]
            ),
            reason=data["reason"],
            expected_step=data["step"],
            confirm=data["confirm"],
            idempotency_key=key,
        )
