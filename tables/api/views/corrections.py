"""Corrections of flagged coups: the pit bosses' queue, a restoration submitted, approved or
rejected, any coup not over yet voided, and a bank nobody bet on withdrawn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import Prefetch, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import status as http
from rest_framework.request import Request
from rest_framework.response import Response

from core.types import Staff
from tables import services
from tables.api import inputs, outputs
from tables.api.read_models import PendingCorrections, pending_correction_data, void_request_data
from tables.api.views.base import CoupAction, PitQueue
from tables.models import Coup, CoupStep, VoidRequest
from tables.permissions import casino_scope
from tables.selectors import corrections_pending

if TYPE_CHECKING:  # django-stubs-ext is a dev requirement
    from django_stubs_ext import WithAnnotations


class CorrectionsPendingView(PitQueue):
    """Restored coups waiting for a pit boss's approval, oldest first (pit bosses, accountants)."""

    serializer_class = outputs.PendingCorrectionOut
    refusal = "Only pit bosses and accountants see the corrections queue."

    def get_queryset(self) -> QuerySet[WithAnnotations[Coup, PendingCorrections]]:
        latest = CoupStep.objects.filter(kind=CoupStep.Kind.CORRECTION).select_related("actor", "corrects")
        pending = casino_scope(self.request.user).narrow(corrections_pending(), "shoe__table__casino")
        return pending.prefetch_related(
            Prefetch("steps", queryset=latest.order_by("-index"), to_attr="corrections_submitted")
        )

    @extend_schema(responses=outputs.PendingCorrectionOut(many=True), operation_id="corrections_pending")
    def get(self, request: Request) -> Response:
        return self.queue_page(request)

    def item_data(self, item: Any) -> dict[str, Any]:
        return pending_correction_data(item)


class CorrectionSubmitView(CoupAction):
    """The croupier restores a flagged coup with the cards dealt to complete it (the coup's
    ``restoration.needs_cards`` says how many). Its settlement is provisional until approved."""

    input = inputs.CorrectionIn

    def act(self, *, actor: Staff, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.correction_submit(actor=actor, coup=coup, cards=data["cards"], idempotency_key=key)


class CorrectionApproveView(CoupAction):
    """A pit boss (never the one who submitted it) approves the correction: the settlement is final."""

    def act(self, *, actor: Staff, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.correction_approve(actor=actor, coup=coup, idempotency_key=key)


class CorrectionRejectView(CoupAction):
    """A pit boss rejects the correction (``reason`` required): it goes back to the croupier."""

    input = inputs.RejectIn

    def act(self, *, actor: Staff, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.correction_reject(actor=actor, coup=coup, reason=data["reason"], idempotency_key=key)


class CoupVoidView(CoupAction):
    """A pit boss voids any coup not over yet — being played, awaiting its correction or its
    approval — (``reason`` required): every stake is returned, the bank stays as declared, the
    cards dealt stay dealt. Above the casino's limit for one pit boss the answer is 202 and the
    void request that waits for a second (``/void-requests/``)."""

    input = inputs.RejectIn
    other_outputs = {http.HTTP_202_ACCEPTED: outputs.VoidRequestOut}

    def act(self, *, actor: Staff, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.coup_void(actor=actor, coup=coup, reason=data["reason"], idempotency_key=key)

    def answer(self, result: Any) -> Response:
        if isinstance(result, VoidRequest):
            return Response(void_request_data(result), status=http.HTTP_202_ACCEPTED)
        return super().answer(result)


class CoupBankWithdrawView(CoupAction):
    """Nobody bet on the declared bank (RULES.md §7): the croupier withdraws it without a deal; the
    coup ends ``withdrawn``, the banker keeps the bank for the next coup or passes it."""

    input = inputs.BankWithdrawIn

    def act(self, *, actor: Staff, coup: Coup, data: dict[str, Any], key: str) -> Any:
        return services.coup_bank_withdraw(
            actor=actor, coup=coup, expected_step=data.get("step"), idempotency_key=key
        )
