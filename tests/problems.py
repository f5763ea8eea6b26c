"""Checking an RFC 9457 problem answer (core.problems) in one place."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from core.problems import CONTENT_TYPE, TYPE_PREFIX

#: the members derived from the status, the code and the path: checked here, not by each test
DERIVED = ("type", "title", "status", "instance")


def problem_body(response: Any, *, path: str | None = None) -> dict[str, Any]:
    """The body of a problem answer, checked (content type, ``type`` naming ``code``, ``status``
    and ``title`` the response's, ``instance`` its path), without the derived members: what is
    left is ``code``, ``detail`` and the refusal's own members (``current_step``, field errors)."""
    assert response["Content-Type"] == CONTENT_TYPE, (response.status_code, response.content[:500])
    body = response.json()
    assert body["status"] == response.status_code
    assert body["type"] == TYPE_PREFIX + body["code"]
    assert body["title"] == HTTPStatus(response.status_code).phrase
    assert isinstance(body["detail"], str) and body["detail"]
    if path is not None:
        assert body["instance"] == path
    return {key: value for key, value in body.items() if key not in DERIVED}


def field_errors(body: dict[str, Any]) -> dict[str, Any]:
    """The field errors of a 400 ``invalid`` problem body (as :func:`problem_body` returns it)."""
    assert body["code"] == "invalid", body
    return {key: value for key, value in body.items() if key not in ("code", "detail")}
