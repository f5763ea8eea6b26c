"""The REST API's JSON parser: REST framework's, refusing what would otherwise become a 500.

``json.loads`` recurses once per ``[`` or ``{``: 100,000 of them raise ``RecursionError``, and a
document a few hundred levels deep parses but then breaks whatever walks it next (the serializers,
the fingerprint of the idempotency key). It also accepts a lone surrogate (``"\\ud800"``), a
string that cannot be encoded back to UTF-8 — the database write or the rendering of the answer
fails later — and NUL, which PostgreSQL cannot store in text. Each is refused here with a 400
problem (core.problems); a body above ``DATA_UPLOAD_MAX_MEMORY_SIZE`` is 413, read no further.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser
from rest_framework.utils import json

#: a lone surrogate half (U+D800-U+DFFF) or NUL, anywhere in a string
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = "The request body is too large."


class NestingTooDeep(ParseError):
    default_code = "nesting_too_deep"
    default_detail = "The JSON document is nested too deeply."


class UnstorableText(ParseError):
    default_code = "invalid_text"
    default_detail = "A JSON string holds a lone surrogate (\\ud800-\\udfff) or NUL: not valid text."


def body_limit() -> int | None:
    """The most bytes a request body may have (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return None if limit is None else int(limit)


def too_large_detail(limit: int | None) -> str:
    return (
        f"The request body is larger than the {limit} bytes accepted."
        if limit
        else "The request body is too large."
    )


def json_check(data: Any, *, max_depth: int) -> None:
    """Refuse a parsed document deeper than ``max_depth`` containers, or holding unstorable text.
    Iterative, so no document can exhaust the stack here."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            if _UNSTORABLE.search(value):
                raise UnstorableText()
        elif isinstance(value, (Mapping, list)):
            if depth >= max_depth:
                raise NestingTooDeep(f"The JSON document is nested more than {max_depth} levels deep.")
            if isinstance(value, Mapping):
                for key, item in value.items():
                    stack.append((key, depth + 1))
                    stack.append((item, depth + 1))
            else:
                stack.extend((item, depth + 1) for item in value)


class SafeJSONParser(JSONParser):
    """REST framework's JSON parser (strict: no NaN/Infinity), bounded in size, depth and text."""

    def parse(
        self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        limit = body_limit()
        # DRF reads the request's stream itself, past Django's own check of request.body: bound it here
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge(too_large_detail(limit))
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise ParseError(f"JSON parse error - the body is not valid {encoding}: {exc.reason}") from exc
        try:
            data = json.loads(text, parse_constant=json.strict_constant if self.strict else None)
        except RecursionError:
            raise NestingTooDeep() from None  # the traceback of 100,000 frames helps nobody
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        json_check(data, max_depth=settings.API_JSON_MAX_DEPTH)
        return data
