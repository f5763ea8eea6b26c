"""The API's base view: strict JSON in (core.parsers), the schema's conventions (core.api.schema:
every POST documents its Idempotency-Key and error answers), and the shape check of a body.
The apps' views build on it (tables.api.views.base, cage, reports)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework import status as http
from rest_framework.request import Request
from rest_framework.views import APIView

from core.api.inputs import EmptyIn
from core.api.outputs import ErrorOut
from core.api.schema import ApiSchema
from core.parsers import SafeJSONParser


class ApiView(APIView):
    schema = ApiSchema()
    parser_classes = [SafeJSONParser]
    input: type[serializers.Serializer] = EmptyIn
    output: type[serializers.Serializer] = ErrorOut
    status_code: int = http.HTTP_200_OK


def valid(
    serializer_class: type[serializers.Serializer], request: Request, context: dict[str, Any] | None = None
) -> dict[str, Any]:
    serializer = serializer_class(
        data=request.data if request.data is not None else {}, context=context or {}
    )
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
