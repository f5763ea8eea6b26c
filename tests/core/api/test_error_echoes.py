"""No refusal of the API quotes back more than the first characters of what it was sent
(core.api.errors.echo_bounded, core.api.inputs.clipped): a megabyte sent is answered in a few
hundred bytes, by the strict fields of core.api.inputs and, for any other message (a service's,
DRF's own fields elsewhere), by the error output; nothing is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ErrorDetail
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from compliance.models import PlayerIdentification
from core.api.errors import MESSAGE_MAX, api_exception_handler, echo_bounded
from core.errors import DomainError
from core.problems import CONTENT_TYPE
from core.sentence import said
from ledger.models import Account, Entry
from reports.models import ReportRun
from tests.factories import PlayerFactory
from tests.problems import DERIVED, field_errors, problem_body
from tests.tables.api.conftest import Api
from tests.tables.play import row_counts

MEGABYTE = "x" * 1_000_000
CLIPPED = "x" * 20 + "…"


# ------------------------------------------------------------------------- through the API
@pytest.mark.django_db
def test_the_cages_document_type_is_quoted_by_its_first_characters(cashier, table) -> None:
    """cage/apis.py's ``document_type`` is DRF's own ChoiceField: the error output bounds it."""
    player = PlayerFactory(casino=table.casino)
    api = Api(cashier)

    def counts() -> dict[str, int]:
        return {
            **row_counts(),
            "Account": Account.objects.count(),
            "Entry": Entry.objects.count(),
            "PlayerIdentification": PlayerIdentification.objects.count(),
        }

    before = counts()
    response = api.post("/cage/buy-in/", {"player": player.pk, "amount": 100, "document_type": MEGABYTE})
    assert response.status_code == 400
    assert problem_body(response) == {
        "code": "invalid",
        "detail": f'document_type: "{CLIPPED}" is not a valid choice.',
        "document_type": [f'"{CLIPPED}" is not a valid choice.'],
    }
    assert len(response.content) < 1_000
    assert counts() == before


@pytest.mark.django_db
def test_a_report_kind_is_quoted_by_its_first_characters(accountant) -> None:
    """reports/apis.py's ``kind`` is DRF's own ChoiceField too."""
    body = {"kind": MEGABYTE, "format": "csv", "start": "2026-12-01", "end": "2026-12-01"}
    api = Api(accountant)
    before = ReportRun.objects.count()
    response = api.post("/reports/runs/", body)
    assert response.status_code == 400
    assert field_errors(problem_body(response)) == {"kind": [f'"{CLIPPED}" is not a valid choice.']}
    assert len(response.content) < 1_000
    assert ReportRun.objects.count() == before


# ------------------------------------------------------------------- the handler, by itself
def parsed(data: Any) -> Request:
    """A request to the API whose JSON body ``data`` was read, as a view reads it."""
    request = Request(APIRequestFactory().post("/api/v1/x/", data, format="json"), parsers=[JSONParser()])
    assert request.data == data
    return request


def answered(exc: Exception, request: Request) -> tuple[int, dict[str, Any]]:
    """The handler's answer: its status and its problem document without the derived members."""
    response = api_exception_handler(exc, {"request": request})
    assert response is not None and response["Content-Type"] == CONTENT_TYPE
    body = json.loads(response.content)
    return response.status_code, {key: value for key, value in body.items() if key not in DERIVED}


def test_a_services_message_quotes_a_field_it_was_sent_by_its_first_characters() -> None:
    refused = DjangoValidationError({"name": f"No player is called {MEGABYTE}."})
    assert answered(refused, parsed({"name": MEGABYTE})) == (
        400,
        {
            "code": "invalid",
            "detail": f"name: No player is called {CLIPPED}.",
            "name": [f"No player is called {CLIPPED}."],
        },
    )


def test_a_message_about_no_field_quotes_the_values_sent_by_their_first_characters() -> None:
    refused = DomainError(f"Nothing matches {MEGABYTE} here.")
    assert answered(refused, parsed({"search": MEGABYTE, "page": 1})) == (
        400,
        {"code": "domain_error", "detail": f"Nothing matches {CLIPPED} here."},
    )


def test_a_message_quoting_what_it_was_not_sent_is_cut_at_the_most_a_message_says() -> None:
    long = "y" * 2_000
    status, body = answered(DjangoValidationError({"name": f"bad name {long!r}"}), parsed({"name": "short"}))
    message = f"bad name {long!r}"[:MESSAGE_MAX] + "…"
    assert (status, body) == (400, {"code": "invalid", "detail": f"name: {message}", "name": [message]})


def test_messages_follow_the_data_into_lists_and_objects() -> None:
    given = {"cards": ["9H", "z" * 30], "callers": [{"seat": 2}, {"seat": "w" * 25}]}
    errors = {
        "cards": {1: [ErrorDetail(f"bad card {'z' * 30}", code="invalid")]},
        "callers": [{}, {"seat": [f"{'w' * 25} is no seat"]}],
    }
    assert echo_bounded(errors, given) == {
        "cards": {1: [f"bad card {'z' * 20}…"]},
        "callers": [{}, {"seat": [f"{'w' * 20}… is no seat"]}],
    }


def test_short_values_and_their_messages_are_left_as_they_were() -> None:
    sentence = said("{name} is already seated at this table.", name="M. Dupont")
    detail = ErrorDetail("Ensure this field has no more than 8 characters.", code="max_length")
    # twenty characters are quoted whole; a message is left as it was, its type and code with it
    twenty = "v" * 20
    errors = {"name": [sentence], "card": [detail], "kind": [f'"{twenty}" is not a valid choice.']}
    bounded = echo_bounded(errors, {"name": "M. Dupont", "card": "x" * 9, "kind": twenty})
    assert bounded == errors
    assert bounded["name"][0] is sentence and bounded["card"][0] is detail


@pytest.mark.django_db
def test_a_body_never_read_is_not_read_by_the_error_output(table) -> None:
    """Refused before the view read the body (no token: 401), the answer reads it no more: read
    there, a body that is not JSON would be refused again (415) inside the error output."""
    response = Api().client.post(
        f"/api/v1/tables/{table.pk}/seats/", "player=1", content_type="text/plain", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 401
    assert problem_body(response) == {
        "code": "not_authenticated",
        "detail": "Authentication credentials were not provided.",
    }
