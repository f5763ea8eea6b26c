"""API test helpers: a token-authenticated client per persona (as a tablet or smart shoe would
connect), a fresh Idempotency-Key per POST unless a test gives one, and row counts to prove that
a refused request wrote nothing."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.factories import api_token_for
from tests.problems import problem_body
from tests.tables.play import row_counts

V1 = "/api/v1"


class Api:
    """One client. ``post`` sends JSON with an Idempotency-Key; ``step`` records a coup step with
    the step count this client last saw (kept from every coup it received)."""

    def __init__(self, user: Any = None) -> None:
        self.client = APIClient()
        self.user = user
        if user is not None:
            self.client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_for(user)}")
        self.seen: dict[int, int] = {}

    def _remember(self, response: Any) -> Any:
        body = response.json() if response.get("Content-Type", "").startswith("application/json") else None
        if isinstance(body, dict):
            coup = body.get("coup") if isinstance(body.get("coup"), dict) else body
            if isinstance(coup, dict) and "step_count" in coup and "id" in coup:
                self.seen[coup["id"]] = coup["step_count"]
        return response

    def get(self, path: str) -> Any:
        return self._remember(self.client.get(V1 + path))

    def post(self, path: str, body: Any = None, *, key: str | None = None, **headers: Any) -> Any:
        if key is None:
            key = uuid.uuid4().hex
        extra: dict[str, Any] = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        response = self.client.post(
            V1 + path, body if body is not None else {}, format="json", **extra, **headers
        )
        return self._remember(response)

    def step(
        self, coup_id: int, kind: str, *, step: int | None = None, key: str | None = None, **fields: Any
    ) -> Any:
        if step is None:
            step = self.seen.get(coup_id)
            if step is None:
                step = self.get(f"/coups/{coup_id}/").json()["step_count"]
        return self.post(f"/coups/{coup_id}/steps/", {"step": step, "kind": kind, **fields}, key=key)

    def refuse(self, path: str, body: Any = None, *, status: int, key: str | None = None) -> Any:
        """POST what must be refused with ``status``, and prove that it wrote nothing; the problem
        answer's body without its derived members (tests.problems)."""
        before = row_counts()
        response = self.post(path, body, key=key)
        assert response.status_code == status, (response.status_code, response.content[:2000])
        assert row_counts() == before
        return problem_body(response)

    def ok(self, response: Any, status: int = 201) -> dict[str, Any]:
        assert response.status_code == status, (response.status_code, response.content[:2000])
        return response.json()


@pytest.fixture
def api() -> Callable[[Any], Api]:
    return Api
