"""How the REST API documents itself (drf-spectacular): every POST declares the Idempotency-Key
header, its input and output serializers, and the error answers it may give."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from core.api.outputs import ConflictOut, ErrorOut, UnprocessableOut
from core.services import idempotency

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    idempotency.HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=True,
    description="A new key (e.g. a UUID) per request; resend the same key to replay a request safely.",
)
ERROR_RESPONSES: dict[int, Any] = {
    400: OpenApiTypes.OBJECT,  # {"field": ["message"]} or {"detail": "message"}
    401: ErrorOut,
    403: ErrorOut,
    404: ErrorOut,
    409: ConflictOut,
    422: UnprocessableOut,
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
            view: Any = self.view  # an ApiView (core.api.views): only its subclasses POST
            # a view may answer another way too (a void above the limit: 202 and the request)
            return {view.status_code: view.output, **getattr(view, "other_outputs", {}), **ERROR_RESPONSES}
        return super().get_response_serializers()
