"""Idempotent POSTs: the :func:`idempotent` decorator runs a handler through
core.services.idempotency, so a resent request gets the first answer and runs nothing twice, and
runs it once more when the database broke its transaction off (core.transient)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from core.services import idempotency
from core.transient import run_retrying
from core.types import request_staff


def _plain(data: Any) -> Any:
    """Rendered once to plain JSON, so the first response and its replays are the same bytes."""
    return json.loads(json.dumps(data, cls=JSONEncoder))


def _request_body(request: Request) -> Any:
    data = request.data
    if hasattr(data, "lists"):  # a QueryDict
        return {key: values for key, values in data.lists()}
    return data


def idempotency_key(request: Request) -> str:
    """The request's Idempotency-Key ("" without one; :func:`idempotent` has refused that already)."""
    return request.headers.get(idempotency.HEADER, "")


def idempotent(method: Callable[..., Response]) -> Callable[..., Response]:
    """Run a POST handler through core.services.idempotency: missing key → 400, replay → the
    first response (header ``Idempotent-Replayed: true``), same key with another body → 422. A
    deadlock or lock timeout runs the whole transaction (claim, work, stored answer) once more,
    then answers 409 ``retry`` / 503 ``lock_timeout``."""

    @functools.wraps(method)
    def handler(self: APIView, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = idempotency.idempotency_key_check(request.headers.get(idempotency.HEADER))
        assert request.method is not None  # None only for an HttpRequest built by hand
        fingerprint = idempotency.request_fingerprint(
            method=request.method, path=request.path, body=_request_body(request)
        )

        def work() -> tuple[int, Any]:
            response = method(self, request, *args, **kwargs)
            return response.status_code, _plain(response.data)

        user = request_staff(request)
        result = run_retrying(
            lambda: idempotency.idempotent_run(user=user, key=key, fingerprint=fingerprint, work=work)
        )
        response = Response(result.body, status=result.status)
        if result.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    return handler
