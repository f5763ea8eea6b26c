"""The cage's REST endpoints (thin; docs/api.md): buy-ins and cash-outs, a player's balance and
his chip history. POSTs take an Idempotency-Key like every POST of the API (core.api.idempotency)
and call cage.services, which re-check who may act inside the transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response

from cage import selectors, services
from cage.permissions import (
    check_can_operate_cage,
    check_can_read_balance,
    check_can_read_chips,
    check_can_read_player,
)
from compliance import selectors as compliance_selectors
from compliance.models import DocumentType
from compliance.services import DOCUMENT_NUMBER_MAX, document_parse
from core.api.idempotency import idempotency_key, idempotent
from core.api.inputs import MAX_ID, StrictSerializer, TextChoiceField, TextField, WholeNumberField, chips
from core.api.outputs import PageOut
from core.api.views import ApiView, valid
from ledger.models import Entry
from tables.api.outputs import PlayerOut
from tables.api.read_models import player_data
from tables.models import Player

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    from cage.selectors import RunningBalance


# ------------------------------------------------------------------------------------ shapes
class CageMoveIn(StrictSerializer):
    player = WholeNumberField(min_value=1, max_value=MAX_ID)
    amount = chips()
    # the player's identity document, when the move needs him identified and none is on file
    # (refused with the code identification_required otherwise); recorded once per player
    document_type = TextChoiceField(choices=DocumentType.choices, required=False)
    document_number = TextField(max_length=DOCUMENT_NUMBER_MAX, required=False)


class CashTodayOut(serializers.Serializer):
    player = serializers.IntegerField()
    gaming_day = serializers.DateField()
    cash_in = serializers.IntegerField(help_text="chips bought at the cage this gaming day")
    cash_out = serializers.IntegerField(help_text="chips cashed in at the cage this gaming day (not netted)")
    identified = serializers.BooleanField(help_text="an identity document is on file")


class BalanceOut(serializers.Serializer):
    player = PlayerOut()
    casino = serializers.IntegerField()
    balance = serializers.IntegerField(help_text="chips in the player's account (negative: a marker is owed)")
    marker = serializers.IntegerField(help_text="chips the player owes the house; 0 when nothing is owed")
    reserve = serializers.IntegerField(help_text="the player's own reserve (a banker's chips above the bank)")


class CageReceiptOut(BalanceOut):
    transaction = serializers.IntegerField(help_text="the ledger transaction posted")
    kind = serializers.ChoiceField(choices=["buy_in", "cash_out"])
    amount = serializers.IntegerField()
    posted_at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True)


class HistoryEntryOut(serializers.Serializer):
    entry = serializers.IntegerField()
    transaction = serializers.IntegerField()
    at = serializers.DateTimeField()
    kind = serializers.CharField(
        help_text="the ledger transaction's kind: buy_in, cash_out, coup_settlement…"
    )
    what = serializers.CharField()
    coup = serializers.IntegerField(allow_null=True)
    amount = serializers.IntegerField(help_text="chips into (+) or out of (-) the player's account")
    balance_after = serializers.IntegerField()


class PlayersQuery(serializers.Serializer):
    """The query string of GET cage/players/ (strings, so not the JSON bodies' strict numbers)."""

    casino = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="the casino's id")
    search = serializers.CharField(
        required=False, allow_blank=True, max_length=100, default="",
        help_text="part of a name, or a whole membership number",
    )  # fmt: skip


class CagePlayersPageOut(PageOut):
    results = BalanceOut(many=True)


class HistoryPageOut(PageOut):
    results = HistoryEntryOut(many=True)


# ------------------------------------------------------------------------------ read models
def balance_data(chips_: selectors.PlayerChips) -> dict[str, Any]:
    return {
        "player": player_data(chips_.player),  # the floor's shape of a player (PlayerOut)
        "casino": chips_.player.casino_id,
        "balance": chips_.balance,
        "marker": chips_.marker,
        "reserve": chips_.reserve,
    }


def receipt_data(receipt: services.CageReceipt) -> dict[str, Any]:
    txn = receipt.transaction
    return {
        **balance_data(selectors.player_chips(player=receipt.player)),
        "transaction": txn.pk,
        "kind": receipt.kind,
        "amount": receipt.amount,
        "posted_at": txn.posted_at,
        "actor": txn.actor.get_username() if txn.actor is not None else None,
    }


def history_entry_data(entry: WithAnnotations[Entry, RunningBalance]) -> dict[str, Any]:
    txn = entry.transaction
    return {
        "entry": entry.pk,
        "transaction": txn.pk,
        "at": txn.posted_at,
        "kind": txn.kind,
        "what": txn.get_kind_display(),
        "coup": txn.coup_id,
        "amount": entry.amount,
        "balance_after": entry.balance_after,
    }


# ------------------------------------------------------------------------------------ views
class _CageMoveView(ApiView):
    input = CageMoveIn
    output = CageReceiptOut
    status_code = http.HTTP_201_CREATED
    kind = services.BUY_IN

    @idempotent
    def post(self, request: Request) -> Response:
        check_can_operate_cage(request.user)
        data = valid(self.input, request)
        player = get_object_or_404(
            Player.objects.filter(house=False).select_related("casino"), pk=data["player"]
        )
        post = services.cage_buy_in if self.kind == services.BUY_IN else services.cage_cash_out
        receipt = post(
            actor=request.user,
            casino=player.casino,
            player=player,
            amount=data["amount"],
            key=idempotency_key(request),
            document=document_parse(data.get("document_type"), data.get("document_number")),
        )
        return Response(receipt_data(receipt), status=self.status_code)


class BuyInView(_CageMoveView):
    """The player buys chips at the cage (the cage, a superuser)."""

    kind = services.BUY_IN


class CashOutView(_CageMoveView):
    """The player cashes chips in at the cage: never more than he holds (the cage, a superuser)."""

    kind = services.CASH_OUT


class CagePlayersView(ApiView):
    """The casino's players with their chips, by name, paginated; ``search`` matches a name or a
    membership number: how a cashier's device finds the player it sells chips to (the cage, a pit
    boss, an accountant)."""

    @extend_schema(parameters=[PlayersQuery], responses=CagePlayersPageOut)
    def get(self, request: Request) -> Response:
        check_can_read_chips(request.user)
        query = PlayersQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        casino = get_object_or_404(
            selectors.cage_casinos(user=request.user), pk=query.validated_data["casino"]
        )
        players = selectors.cage_players(casino=casino, search=query.validated_data["search"])
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(players, request, view=self) or []
        chips_ = selectors.players_chips(players=page)
        return paginator.get_paginated_response([balance_data(c) for c in chips_])


class PlayerBalanceView(ApiView):
    """A player's chips: the cage, a pit boss, an accountant; a croupier for the players at his table."""

    @extend_schema(responses=BalanceOut)
    def get(self, request: Request, player_id: int) -> Response:
        player = get_object_or_404(Player, pk=player_id)
        check_can_read_balance(request.user, player)
        return Response(balance_data(selectors.player_chips(player=player)))


class PlayerHistoryView(ApiView):
    """The entries on a player's chip account, newest first, paginated: the cage, a pit boss, an
    accountant."""

    @extend_schema(responses=HistoryPageOut)
    def get(self, request: Request, player_id: int) -> Response:
        check_can_read_chips(request.user)
        player = get_object_or_404(Player, pk=player_id)
        check_can_read_player(request.user, player)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(selectors.player_history(player=player), request, view=self)
        return paginator.get_paginated_response([history_entry_data(e) for e in page or []])


class PlayerCashTodayView(ApiView):
    """A player's cash in and cash out at the cage this gaming day, and whether he is identified:
    what the cashier sees before a move that may need identification (the cage)."""

    @extend_schema(responses=CashTodayOut)
    def get(self, request: Request, player_id: int) -> Response:
        check_can_operate_cage(request.user)
        player = get_object_or_404(Player.objects.filter(house=False).select_related("casino"), pk=player_id)
        check_can_read_player(request.user, player)
        totals = compliance_selectors.day_totals_now(casino=player.casino, player=player)
        return Response(
            {
                "player": player.pk,
                "gaming_day": totals.day,
                "cash_in": totals.cash_in,
                "cash_out": totals.cash_out,
                "identified": compliance_selectors.identification_of(player) is not None,
            }
        )
