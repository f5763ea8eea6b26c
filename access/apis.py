"""REST API views (thin). /api/v1/me/ tells a tablet who is logged in and with which roles;
/api/v1/auth/token/ trades a username and password for a new API token (shown once, stored hashed;
throttled, locked out after repeated failures, audited)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from access.services.tokens import api_token_issue
from core.api.inputs import StrictSerializer, TextField
from core.api.outputs import ErrorOut
from core.parsers import SafeJSONParser
from core.throttles import ScopedThrottle
from core.types import request_staff
from tables.selectors import staff_profile


class AssignmentSerializer(serializers.Serializer):
    table_id = serializers.IntegerField()
    table = serializers.CharField()
    shift_start = serializers.DateTimeField()
    shift_end = serializers.DateTimeField()


class CasinoSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    full_name = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    is_superuser = serializers.BooleanField()
    current_assignments = AssignmentSerializer(many=True)
    casinos = CasinoSerializer(many=True, help_text="the casinos he works for")
    group_wide = serializers.BooleanField(
        help_text="reads every casino: the group auditor, a superuser, or one who works for each there is"
    )


class MeView(APIView):
    serializer_class = MeSerializer

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        profile = staff_profile(user=request_staff(request))
        return Response(MeSerializer(profile.as_dict()).data)


class TokenIn(StrictSerializer):
    username = TextField(max_length=150)
    password = TextField(max_length=4096, trim_whitespace=False)


class TokenOut(serializers.Serializer):
    token = serializers.CharField(
        help_text="send it as 'Authorization: Token <token>'; shown this once (only its hash is kept)"
    )


class TokenView(APIView):
    """Username and password → a new API token for this device, shown once. Open to anonymous
    clients, throttled per client address (scope ``token``, ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``)
    refused before any password check when the login budget ran out (429 ``login_budget``,
    access.services.login_budget) and locked out after repeated failures (django-axes: 429
    ``locked_out``). Each call mints a new token (the stored hash cannot give the old one back): a
    client keeps the one it got."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedThrottle]
    throttle_scope = "token"
    parser_classes = [SafeJSONParser]

    @extend_schema(request=TokenIn, responses={200: TokenOut, 400: ErrorOut, 429: ErrorOut})
    def post(self, request: Request) -> Response:
        serializer = TokenIn(data=request.data if request.data is not None else {})
        serializer.is_valid(raise_exception=True)
        token = api_token_issue(**serializer.validated_data, request=request._request)
        # a secret shown once: no cache, proxy or browser history may keep it
        return Response(TokenOut({"token": token}).data, headers={"Cache-Control": "no-store"})
