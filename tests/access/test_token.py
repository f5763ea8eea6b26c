"""POST /api/v1/auth/token/: username and password → a new token, shown once and stored hashed;
a token handed out is audited, a refusal goes to the security log (tests/security has the
lockout, the flood and the admin); throttled per client (429), and never a 500 whatever the body."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

from access.services.tokens import token_digest
from audit.models import AuditEvent
from core.models import ApiToken, LoginFailure
from tests.factories import UserFactory
from tests.problems import problem_body

pytestmark = pytest.mark.django_db

URL = "/api/v1/auth/token/"
PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


@pytest.fixture(autouse=True)
def fresh_throttle():
    # the throttle counts requests in the cache (per process): each test starts from zero
    cache.clear()
    yield
    cache.clear()


def post(body, client: APIClient | None = None, **extra):
    return (client or APIClient()).post(URL, body, format="json", **extra)


def test_the_right_password_gets_a_new_token_and_it_works(cashier) -> None:
    response = post({"username": "cashier", "password": PASSWORD})
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    token = response.json()["token"]
    assert ApiToken.objects.get(user=cashier).digest == token_digest(token)
    second = post({"username": "cashier", "password": PASSWORD}).json()["token"]  # another device
    assert second != token and ApiToken.objects.filter(user=cashier).count() == 2
    for each in (token, second):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {each}")
        assert client.get("/api/v1/me/").json()["roles"] == ["cashier"]


def test_a_token_handed_out_is_audited_without_the_token(cashier) -> None:
    token = post({"username": "cashier", "password": PASSWORD}, REMOTE_ADDR="10.0.0.7").json()["token"]
    event = AuditEvent.objects.get(action="auth.token.issue")
    row = ApiToken.objects.get()
    assert (event.actor, event.object_id) == (cashier, str(cashier.pk))
    assert event.after == {
        "token": row.pk,
        "prefix": token[:8],
        "revoked": [],
        "ip": "10.0.0.7",
        "user_agent": "",
    }
    assert token not in str(event.after) and PASSWORD not in str(event.after)


@pytest.mark.parametrize("username", ["cashier", "nobody"])
def test_a_wrong_password_or_user_is_refused_and_logged_off_the_chain(cashier, username) -> None:
    response = post({"username": username, "password": "wrong"})
    assert response.status_code == 400
    assert problem_body(response) == {
        "code": "invalid",
        "detail": "Unable to log in with the username and password given.",
    }
    assert not ApiToken.objects.exists()
    failure = LoginFailure.objects.get()
    assert (failure.username, failure.ip, failure.path, failure.locked_out) == (
        username,
        "127.0.0.1",
        URL,
        False,
    )
    assert not AuditEvent.objects.exists()  # summarised later by core.summarise_login_failures


def test_an_inactive_user_gets_no_token(cashier) -> None:
    cashier.is_active = False
    cashier.save()
    assert post({"username": "cashier", "password": PASSWORD}).status_code == 400
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"username": "cashier"},
        {"password": PASSWORD},
        {"username": ["cashier"], "password": PASSWORD},
        {"username": {"a": 1}, "password": PASSWORD},
        {"username": None, "password": None},
        {"username": "cashier", "password": PASSWORD, "extra": 1},
        {"username": "x" * 151, "password": PASSWORD},
        {"username": "cashier", "password": "p" * 5000},
        {"username": "cash\x00ier", "password": PASSWORD},
        [],
        "cashier",
        12,
    ],
)
def test_bad_input_is_a_400_never_a_500(cashier, body) -> None:
    response = post(body)
    assert response.status_code == 400, response.content
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("field", ["username", "password"])
def test_a_username_or_password_that_is_no_json_string_is_refused_not_converted(cashier, field) -> None:
    """``{"username": 5}`` was read as the name "5" (DRF's CharField turns numbers into text)."""
    body = {"username": "cashier", "password": PASSWORD, field: 5}
    response = post(body)
    assert response.status_code == 400
    assert problem_body(response)[field] == ["A string is required."]
    assert not ApiToken.objects.exists() and not LoginFailure.objects.exists()


def test_a_body_that_is_not_json_is_a_400(cashier) -> None:
    client = APIClient()
    assert client.post(URL, "{not json", content_type="application/json").status_code == 400
    assert client.post(URL, "username=cashier", content_type="text/plain").status_code == 415
    assert client.get(URL).status_code == 405


def test_too_many_attempts_from_one_client_get_429(cashier) -> None:
    # the throttle counts every request, right or wrong (the lockout, which counts failures, is
    # tests/security/test_logins.py): the right password each time keeps it apart from the lockout
    rates: Any = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    allowed = int(rates["token"].split("/")[0])
    client = APIClient()
    for _ in range(allowed):
        assert post({"username": "cashier", "password": PASSWORD}, client).status_code == 200
    before = (AuditEvent.objects.count(), ApiToken.objects.count(), LoginFailure.objects.count())
    throttled = post({"username": "cashier", "password": PASSWORD}, client)
    assert throttled.status_code == 429
    assert "detail" in throttled.json() and int(throttled["Retry-After"]) > 0
    assert (AuditEvent.objects.count(), ApiToken.objects.count(), LoginFailure.objects.count()) == before
    # another client address is counted apart; a forged X-Forwarded-For is not believed
    assert post({"username": "cashier", "password": PASSWORD}, REMOTE_ADDR="10.9.9.9").status_code == 200
    forged = post({"username": "cashier", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="10.1.2.3")
    assert forged.status_code == 429


def test_the_token_endpoint_needs_no_authentication_and_no_idempotency_key(cashier) -> None:
    other: Any = UserFactory(username="someone")
    client = APIClient()
    client.force_authenticate(other)  # ignored: the endpoint authenticates nobody
    response = post({"username": "cashier", "password": PASSWORD}, client)
    assert response.status_code == 200 and ApiToken.objects.get().user == cashier
