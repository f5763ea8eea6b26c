"""Voids waiting for a second pit boss (issue 20): the list, an approval, a refusal."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.idempotency import idempotent
from core.types import request_staff
from tables import services
from tables.api import inputs, outputs
from tables.api.read_models import void_request_data
from tables.api.views.base import ApiView, PitQueue, valid
from tables.models import VoidRequest
from tables.permissions import casino_scope, check_works_for
from tables.selectors import void_requests_pending


class VoidRequestsPendingView(PitQueue):
    """Voids waiting for a second pit boss whose coup can still be voided, oldest first (pit
    bosses, accountants, the group auditor; within the casinos they read)."""

    serializer_class = outputs.VoidRequestOut
    refusal = "Only pit bosses and accountants see the voids waiting."

    def get_queryset(self) -> QuerySet[VoidRequest]:
        return void_requests_pending(casinos=casino_scope(self.request.user).casino_ids)

    @extend_schema(responses=outputs.VoidRequestOut(many=True), operation_id="void_requests_pending")
    def get(self, request: Request) -> Response:
        return self.queue_page(request)

    def item_data(self, item: Any) -> dict[str, Any]:
        return void_request_data(item)


def _request_get(request: Request, pk: int) -> VoidRequest:
    """The request (404 if unknown; 403 if of a casino he does not work for, as every write there),
    its coup and people loaded for the answer."""
    rows = VoidRequest.objects.select_related(
        "casino", "requested_by", "decided_by", "coup__shoe__table", "game_coup__table"
    )
    found = get_object_or_404(rows, pk=pk)
    check_works_for(request.user, found.casino_id)
    return found


class _Decision(ApiView):
    output = outputs.VoidRequestOut

    def decide(self, *, request: Request, void: VoidRequest, data: dict[str, Any]) -> VoidRequest:
        raise NotImplementedError

    @idempotent
    def post(self, request: Request, request_id: int) -> Response:
        void = _request_get(request, request_id)
        data = valid(self.input, request)
        decided = self.decide(request=request, void=void, data=data)
        return Response(void_request_data(_request_get(request, decided.pk)), status=self.status_code)


class VoidRequestApproveView(_Decision):
    """A second pit boss — not the one who asked, nor anyone who recorded a step of the coup —
    approves: the coup is voided in his name (the answer: the request, ``approved``; ``lapsed``
    when the coup ended meanwhile and there was nothing left to void)."""

    def decide(self, *, request: Request, void: VoidRequest, data: dict[str, Any]) -> VoidRequest:
        return services.void_request_approve(actor=request_staff(request), request=void)


class VoidRequestRefuseView(_Decision):
    """A second pit boss refuses (``reason`` required): the coup goes on as it stands."""

    input = inputs.RejectIn

    def decide(self, *, request: Request, void: VoidRequest, data: dict[str, Any]) -> VoidRequest:
        return services.void_request_refuse(actor=request_staff(request), request=void, reason=data["reason"])
