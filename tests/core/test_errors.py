"""core.errors: every refusal the services raise maps to one exact status, code and body, the
same for the API and the screens."""

from __future__ import annotations

import pytest
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.db import IntegrityError
from django.http import Http404
from rest_framework.views import exception_handler as drf_exception_handler

from chemin_de_fer.engine.coup import Code, Violation
from core.errors import INTEGRITY_MESSAGE, Conflict, DomainError, error_answer
from core.services.idempotency import IdempotencyInProgress, IdempotencyKeyReused
from tables.services import ConfirmationRequired, CoupConflict

VIOLATION = Violation(Code.PLAYER_SHOULD_DRAW, "player", "he had 4")


@pytest.mark.parametrize(
    "exc,status,code",
    [
        (CoupConflict("Stale step.", current_step=3), 409, "coup_conflict"),
        (ConfirmationRequired(VIOLATION), 422, "confirmation_required"),
        (IdempotencyKeyReused(), 422, "idempotency_key_reused"),
        (IdempotencyInProgress("Still running."), 409, "idempotency_in_progress"),
        (ValidationError("Bad card."), 400, "invalid"),
        (PermissionDenied("Not your table."), 403, "permission_denied"),
        (Http404("No such coup."), 404, "not_found"),
        (IntegrityError("duplicate key"), 409, "write_conflict"),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else None,
)
def test_each_refusal_has_its_status_and_code(exc: Exception, status: int, code: str) -> None:
    answer = error_answer(exc)
    assert answer is not None
    assert (answer.status, answer.code) == (status, code)


def test_domain_errors_carry_their_status_and_code_on_the_class() -> None:
    assert issubclass(CoupConflict, Conflict) and issubclass(IdempotencyInProgress, Conflict)
    assert issubclass(ConfirmationRequired, DomainError) and issubclass(IdempotencyKeyReused, DomainError)
    assert (CoupConflict.status, CoupConflict.code) == (409, "coup_conflict")
    assert (ConfirmationRequired.status, ConfirmationRequired.code) == (422, "confirmation_required")
    assert (IdempotencyKeyReused.status, IdempotencyKeyReused.code) == (422, "idempotency_key_reused")
    assert (IdempotencyInProgress.status, IdempotencyInProgress.code) == (409, "idempotency_in_progress")


def test_the_bodies_are_the_api_answers() -> None:
    def body(exc: Exception) -> object:
        answer = error_answer(exc)
        assert answer is not None
        return answer.body

    assert body(CoupConflict("Stale step.", current_step=3)) == {"detail": "Stale step.", "current_step": 3}
    assert body(ConfirmationRequired(VIOLATION)) == {
        "code": "confirmation_required",
        "detail": "PLAYER_SHOULD_DRAW: confirm that this happened at the table",
        "violation": {"code": "PLAYER_SHOULD_DRAW", "side": "player", "detail": "he had 4"},
    }
    assert body(IdempotencyKeyReused()) == {
        "code": "idempotency_key_reused",
        "detail": "This Idempotency-Key was already used for a different request: "
        "use a new key for a new request.",
    }
    assert body(IdempotencyInProgress("Still running.")) == {"detail": "Still running.", "current_step": None}
    assert body(IntegrityError("duplicate key")) == {"detail": INTEGRITY_MESSAGE, "current_step": None}
    assert body(ValidationError("Bad card.")) == {"detail": "Bad card."}
    assert body(ValidationError({"seat": "Nobody sits there.", NON_FIELD_ERRORS: "No."})) == {
        "seat": ["Nobody sits there."],
        "non_field_errors": ["No."],
    }


def test_validation_messages_are_listed_for_the_screens() -> None:
    answer = error_answer(ValidationError({"amount": ["Too much.", "Not a chip."], "seat": "Empty."}))
    assert answer is not None
    assert answer.messages == ("Too much.", "Not a chip.", "Empty.")
    assert answer.message == "Too much. Not a chip. Empty."


@pytest.mark.parametrize(
    "exc", [PermissionDenied(), PermissionDenied("Not your table."), Http404(), Http404("No such coup.")]
)
def test_permission_denied_and_not_found_answer_as_rest_framework_does(exc: Exception) -> None:
    answer = error_answer(exc)
    response = drf_exception_handler(exc, {})
    assert answer is not None and response is not None
    assert (answer.status, answer.body) == (response.status_code, response.data)


def test_anything_else_is_not_a_refusal() -> None:
    assert error_answer(RuntimeError("a bug")) is None
    assert error_answer(KeyError("x")) is None


def test_a_refusal_built_with_said_reaches_the_screen_whole_and_the_api_as_its_english() -> None:
    """``validation_messages`` keeps a ``said`` sentence (core/sentence.py) as raised, for
    the screen to say it with its values (tables.wording.say); the API's body is the English text."""
    from core.sentence import Sentence, said

    exc = ValidationError({"amount": said("only {left} of the bank is left to cover", left=30)})
    answer = error_answer(exc)
    assert answer is not None
    (message,) = answer.messages
    assert message == "only 30 of the bank is left to cover"
    assert isinstance(message, Sentence) and message.values == {"left": 30}
    assert answer.body == {"amount": ["only 30 of the bank is left to cover"]}
    assert type(answer.body["amount"][0]) is str  # the API's answer: plain English
