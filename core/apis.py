"""REST API views (thin). /api/v1/me/ tells a tablet who is logged in and with which roles."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.types import request_staff
from tables.selectors import staff_profile


class AssignmentSerializer(serializers.Serializer):
    table_id = serializers.IntegerField()
    table = serializers.CharField()
    shift_start = serializers.DateTimeField()
    shift_end = serializers.DateTimeField()


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    full_name = serializers.CharField()
    roles = serializers.ListField(child=serializers.CharField())
    is_superuser = serializers.BooleanField()
    current_assignments = AssignmentSerializer(many=True)


class MeView(APIView):
    serializer_class = MeSerializer

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        profile = staff_profile(user=request_staff(request))
        return Response(MeSerializer(profile.as_dict()).data)
