"""RFC 9457 problem details: how every error under ``/api/`` answers, whoever raised it.

A refusal of a service (core.errors), an exception of Django REST framework (401, 403, 405, 429,
a parse error), a URL no view answers (404), a body too large (413), the database out of reach
(503) and a bug (500) all answer ``application/problem+json``::

    {"type": "urn:chemin:problem:coup_conflict", "title": "Conflict", "status": 409,
     "detail": "Stale step: the coup is at step 2, not 1.", "instance": "/api/v1/coups/7/steps/",
     "code": "coup_conflict", "current_step": 2}

``code`` is the stable, machine-readable name a client branches on (``type`` is the same name as
a URI); the members the API answered before problem details (``current_step``, ``violation``,
field errors such as ``{"amount": [...]}``) stay beside them, so no client loses a field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse

from core.errors import ErrorAnswer

CONTENT_TYPE = "application/problem+json"
#: ``type`` is this prefix + ``code``: a URI that names the problem (not a page to fetch)
TYPE_PREFIX = "urn:chemin:problem:"
#: the members RFC 9457 defines, plus our ``code``; a field error of the same name goes to ``errors``
MEMBERS = frozenset({"type", "title", "status", "detail", "instance", "code"})
#: seconds a client waits before sending again a request refused with 503
RETRY_AFTER = "1"
API_PREFIX = "/api/"


def is_api(request: HttpRequest | None) -> bool:
    """Whether ``request`` is one of the REST API's (those always answer problem JSON)."""
    return request is not None and request.path_info.startswith(API_PREFIX)


def title(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def messages_of(body: Any, field: str = "") -> list[str]:
    """Every message of an error body, field errors as ``"field: message"``, in order."""
    if isinstance(body, Mapping):
        return [
            m for key, value in body.items() for m in messages_of(value, str(key) if field == "" else field)
        ]
    if isinstance(body, (list, tuple)):
        return [m for value in body for m in messages_of(value, field)]
    if body is None:
        return []
    return [f"{field}: {body}" if field and field != "detail" else str(body)]


def problem(*, status: int, code: str, detail: str, instance: str, extra: Any = None) -> dict[str, Any]:
    """The problem document; ``extra`` is the error's own body (a mapping, or a list of messages)."""
    document: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": title(status),
        "status": status,
        "detail": detail,
        "instance": instance,
        "code": code,
    }
    if isinstance(extra, Mapping):
        for key, value in extra.items():
            if key in ("detail", "code"):
                continue  # the same message and code, already above
            if key in MEMBERS:
                document.setdefault("errors", {})[key] = value
            else:
                document[str(key)] = value
    elif isinstance(extra, (list, tuple)) and extra:
        document["errors"] = list(extra)
    return document


def body_detail(body: Any, default: str) -> str:
    """The human-readable ``detail`` of an error body: its own, else its messages joined."""
    if isinstance(body, Mapping) and isinstance(body.get("detail"), str):
        return str(body["detail"])
    return " ".join(messages_of(body)) or default


class ProblemResponse(HttpResponse):
    """A problem document rendered as ``application/problem+json`` (503: with ``Retry-After``).

    A plain Django response, not REST framework's: content negotiation cannot turn it into the
    browsable API's HTML, and it answers the same from a view, a middleware or an error handler.
    """

    def __init__(self, document: dict[str, Any], *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(
            json.dumps(document, cls=DjangoJSONEncoder, ensure_ascii=False),
            status=document["status"],
            content_type=CONTENT_TYPE,
            headers=dict(headers or {}),
        )
        self.problem = document
        if document["status"] == 503 and "Retry-After" not in self:
            self["Retry-After"] = RETRY_AFTER


def problem_response(
    request: HttpRequest | None, *, status: int, code: str, detail: str, extra: Any = None
) -> ProblemResponse:
    instance = request.path if request is not None else ""
    return ProblemResponse(problem(status=status, code=code, detail=detail, instance=instance, extra=extra))


def answer_response(request: HttpRequest | None, answer: ErrorAnswer) -> ProblemResponse:
    """core.errors' answer to a refusal, as problem details (its body's members kept)."""
    return problem_response(
        request,
        status=answer.status,
        code=answer.code,
        detail=body_detail(answer.body, answer.message),
        extra=answer.body,
    )
