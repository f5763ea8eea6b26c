"""The back office's REST endpoints (thin; docs/api.md): a player's rating slip over a period of
gaming days, for those who see his page (pit bosses, accountants, the group auditor)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.inputs import StrictSerializer
from core.api.outputs import ErrorOut
from core.api.views import ApiView
from core.numbers import plain_decimal
from core.widgets import FIRST_DAY, LAST_DAY, day_supported
from review.forms import period_clean
from review.selectors.rating import SessionName, player_rating, rating_session_names
from review.services import can_see_dashboard
from tables.api.outputs import PlayerOut
from tables.api.read_models import player_data
from tables.gaming_day import casino_calendar
from tables.models import Player
from tables.permissions import check_reads_casino
from tables.rating import RatingLine

#: decimals of an expectation in the API's answers (exact value rounded half-even)
EXPECTATION_DIGITS = 6


# ------------------------------------------------------------------------------------ shapes
class RatingQuery(StrictSerializer):
    """The query string of GET players/{id}/rating/: ``from`` and ``to`` are Python keywords, so
    the fields are declared in ``get_fields``."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            "from": serializers.DateField(
                required=False,
                validators=[day_supported],
                help_text="first gaming day, inclusive (default: six days before `to`); "
                f"{FIRST_DAY} to {LAST_DAY}",
            ),
            "to": serializers.DateField(
                required=False,
                validators=[day_supported],
                help_text=f"last gaming day, inclusive (default: today); {FIRST_DAY} to {LAST_DAY}",
            ),
        }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # the page's period, cleaned by the same function (its refusals are Django's
        # ValidationError, which DRF answers as its own)
        asked = {"start": attrs.get("from"), "end": attrs.get("to")}
        period = period_clean(asked, today=self.context["today"])
        return {"from": period["start"], "to": period["end"]}


class RatingLineOut(serializers.Serializer):
    seconds_seated = serializers.IntegerField(help_text="time seated, less the session's pauses")
    coups = serializers.IntegerField(help_text="settled coups he bet on or banked")
    coups_banked = serializers.IntegerField()
    staked = serializers.IntegerField(help_text="chips he bet (not as banker)")
    average_stake = serializers.CharField(allow_null=True, help_text="exact, 2 decimals; null: no bet")
    largest_stake = serializers.IntegerField()
    net = serializers.IntegerField(help_text="chips won (positive) or lost, after the levy he paid")
    levy = serializers.IntegerField(help_text="levy paid as banker")
    fees = serializers.IntegerField(help_text="hourly fees and card money paid")
    expected_levy = serializers.CharField(
        help_text="the odds engine's expected levy of his banks, 6 decimals"
    )
    theoretical = serializers.CharField(help_text="the house's theoretical revenue: expected levy + fees")
    actual = serializers.IntegerField(help_text="the house's actual revenue: levy + fees")


class RatingSessionOut(RatingLineOut):
    session = serializers.IntegerField()
    table = serializers.IntegerField()
    table_name = serializers.CharField()
    opened_at = serializers.DateTimeField()


class RatingDayOut(RatingLineOut):
    gaming_day = serializers.DateField()


class RatingOut(serializers.Serializer):
    """The slip (``from`` is a Python keyword: the fields are declared in ``get_fields``)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        return {
            "player": PlayerOut(),
            "from": serializers.DateField(help_text="first gaming day, inclusive"),
            "to": serializers.DateField(help_text="last gaming day, inclusive"),
            "sessions": RatingSessionOut(many=True, help_text="oldest first"),
            "days": RatingDayOut(many=True, help_text="oldest first"),
            "total": RatingLineOut(),
        }


def line_data(line: RatingLine) -> dict[str, Any]:
    return {
        "seconds_seated": line.seconds,
        "coups": line.coups,
        "coups_banked": line.banked,
        "staked": line.staked,
        "average_stake": plain_decimal(line.average_stake, 2),
        "largest_stake": line.largest_stake,
        "net": line.net,
        "levy": line.levy,
        "fees": line.fees,
        "expected_levy": plain_decimal(line.expected_levy, EXPECTATION_DIGITS),
        "theoretical": plain_decimal(line.theoretical, EXPECTATION_DIGITS),
        "actual": line.actual,
    }


def session_data(name: SessionName, line: RatingLine) -> dict[str, Any]:
    return {
        "session": line.session_id,
        "table": name.table_id,
        "table_name": name.table_name,
        "opened_at": name.opened_at.isoformat(),
        **line_data(line),
    }


# ------------------------------------------------------------------------------------ views
class PlayerRatingView(ApiView):
    """A player's rating slip over gaming days ``from`` to ``to`` of his casino: per session, per
    gaming day and in total (pit bosses, accountants, the group auditor; docs/review.md)."""

    @extend_schema(
        parameters=[RatingQuery], responses={200: RatingOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut}
    )
    def get(self, request: Request, player_id: int) -> Response:
        if not can_see_dashboard(request.user):
            raise PermissionDenied("Only a pit boss or an accountant may read a player's rating.")
        player = get_object_or_404(Player.objects.select_related("casino"), pk=player_id, house=False)
        check_reads_casino(request.user, player.casino_id)
        now = timezone.now()
        query = RatingQuery(
            data=request.query_params.dict(), context={"today": casino_calendar(player.casino).day_of(now)}
        )
        query.is_valid(raise_exception=True)
        slip = player_rating(
            player=player, first=query.validated_data["from"], last=query.validated_data["to"], now=now
        )
        names = rating_session_names(slip)
        return Response(
            {
                "player": player_data(player),
                "from": slip.first.isoformat(),
                "to": slip.last.isoformat(),
                "sessions": [
                    session_data(names[s.session_id], s) for s in slip.sessions if s.session_id is not None
                ],
                "days": [
                    {"gaming_day": d.day.isoformat() if d.day else None, **line_data(d)} for d in slip.days
                ],
                "total": line_data(slip.total),
            }
        )
