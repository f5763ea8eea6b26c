"""The login budget (issue 20, item 3; access/services/login_budget.py, core.middleware): a password
check passes through three counters (username, client address, the whole site) before the hash;
a refused attempt is a 429 with Retry-After that checked nothing and wrote nothing; signed-in
requests never pass there; X-Forwarded-For is believed from the listed proxies only; counted once
for every worker (Redis), and still counted when the shared cache is out of reach."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from django.test import Client, override_settings
from rest_framework.test import APIClient

from access.services import login_budget
from access.services.login_budget import LoginBudgetRefusal, login_budget_take
from core.models import LoginFailure
from tests.conftest import redis_url

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
LOGIN = "/accounts/login/"
TOKEN = "/api/v1/auth/token/"
#: a moment 30.5 s into a minute and 0.5 s into a second: Retry-After is 30 for the minute's
#: counters, 1 for the site's
NOW = 1_800_000_030.5
BUSY = "Too many sign-in attempts at the moment: nothing was checked. Try again in a few seconds."


@pytest.fixture(autouse=True)
def fresh_counters() -> Iterator[None]:
    cache.clear()  # the API's throttles
    caches["login_budget"].clear()
    login_budget._fallback.clear()
    with mock.patch.object(login_budget, "_clock", return_value=NOW):
        yield
    caches["login_budget"].clear()
    login_budget._fallback.clear()
    cache.clear()


def budget(username: int = 0, address: int = 0, second: int = 0, burst: int = 0) -> Any:
    return override_settings(
        LOGIN_BUDGET_PER_USERNAME=username,
        LOGIN_BUDGET_PER_ADDRESS=address,
        LOGIN_BUDGET_PER_SECOND=second,
        LOGIN_BUDGET_BURST=burst,
    )


def login(username: str, password: str = "wrong", ip: str = "192.0.2.1", **extra: Any) -> Any:
    return Client(REMOTE_ADDR=ip).post(LOGIN, {"username": username, "password": password}, **extra)


def written() -> tuple[int, int]:
    return LoginFailure.objects.count(), AccessAttempt.objects.count()


# ---------------------------------------------------------------------------------- the counters
def test_a_username_has_its_minute_whatever_the_case_or_the_address(croupier) -> None:
    with budget(username=3):
        answers = [
            login(name, ip=f"192.0.2.{n}").status_code
            for n, name in enumerate(["croupier", "CROUPIER", "Croupier"])
        ]
        assert answers == [200, 200, 200]  # the form says "wrong"
        before = written()
        with mock.patch.object(ModelBackend, "authenticate", autospec=True) as checked:
            refused = login("croupier", PASSWORD, ip="192.0.2.77")
        assert refused.status_code == 429 and not checked.called
        assert refused["Retry-After"] == "30"
        html = refused.content.decode()
        assert 'data-testid="login-busy"' in html and BUSY in html
        assert "The next attempt may come in 30 seconds." in html
        assert written() == before  # nothing checked, nothing logged
        # another name is counted apart: its right password signs in
        assert login("someone-else", ip="192.0.2.77").status_code == 200


def test_an_address_has_its_minute_whatever_the_username() -> None:
    with budget(address=2):
        assert [login(f"name-{n}").status_code for n in range(2)] == [200, 200]
        before = written()
        refused = login("name-3")
        assert (refused.status_code, refused["Retry-After"]) == (429, "30")
        assert written() == before
        assert login("name-3", ip="192.0.2.2").status_code == 200  # another address


def test_the_site_has_its_second_whoever_asks() -> None:
    with budget(second=2):
        assert [login(f"name-{n}", ip=f"192.0.2.{n}").status_code for n in range(2)] == [200, 200]
        refused = login("name-9", ip="192.0.2.9")
        assert (refused.status_code, refused["Retry-After"]) == (429, "1")
    # the next second has its own
    with budget(second=2), mock.patch.object(login_budget, "_clock", return_value=NOW + 1):
        assert login("name-9", ip="192.0.2.9").status_code == 200


def test_a_calm_second_lets_a_shift_change_through_and_the_burst_is_paid_back() -> None:
    with budget(second=1, burst=4):
        # nothing the second before: four tablets sign in together, the fifth waits
        assert [login(f"tablet-{n}", ip=f"192.0.2.{n}").status_code for n in range(5)] == [200] * 4 + [429]
    # the four were the window's four (4 in any 4 seconds): the next seconds hold none to spare
    for later in (1, 2, 3):
        with budget(second=1, burst=4), mock.patch.object(login_budget, "_clock", return_value=NOW + later):
            assert login(f"late-{later}", ip="192.0.2.50").status_code == 429
    # four seconds on, the burst is earned again
    with budget(second=1, burst=4), mock.patch.object(login_budget, "_clock", return_value=NOW + 4):
        assert [login(f"next-{n}", ip=f"192.0.2.{n}").status_code for n in range(4)] == [200] * 4


def test_a_shift_change_across_two_seconds_is_let_through() -> None:
    """Four staff signing in within a moment that straddles a second (the README's night): two
    in one second, two in the next, all checked."""
    with budget(second=1, burst=5):
        assert [login(f"early-{n}", ip=f"192.0.2.{n}").status_code for n in range(2)] == [200, 200]
    with budget(second=1, burst=5), mock.patch.object(login_budget, "_clock", return_value=NOW + 1):
        assert [login(f"late-{n}", ip=f"192.0.2.{n}").status_code for n in range(2)] == [200, 200]


def test_under_a_flood_the_site_checks_its_sustained_rate_and_no_more() -> None:
    """Every second busy (more attempts than the burst): one check a second, the rest refused
    before any hash, whatever the burst."""
    checked = []
    for second in range(12):
        with budget(second=1, burst=4), mock.patch.object(
            login_budget, "_clock", return_value=NOW + second
        ), mock.patch.object(ModelBackend, "authenticate", autospec=True, return_value=None) as hashed:
            answers = [login(f"flood-{second}-{n}", ip=f"198.18.0.{n}").status_code for n in range(8)]
            checked.append(hashed.call_count)
            assert answers.count(429) == 8 - hashed.call_count
    # the flood's first second takes the burst; then the window is paid back, then one a second
    assert checked[0] == 4 and sum(checked) <= 4 + 1 * 11
    assert all(n <= 1 for n in checked[1:])
    assert sum(checked[4:]) == 8


def test_a_name_refused_does_not_eat_the_sites_budget() -> None:
    with budget(username=1, second=4):
        assert login("target").status_code == 200
        assert [login("target", ip=f"192.0.2.{n}").status_code for n in range(10, 15)] == [429] * 5
        # the site's other three are still there: the refused five did not count
        others = [login(f"other-{n}", ip=f"192.0.2.{n}").status_code for n in range(4)]
        assert others == [200, 200, 200, 429]


def test_the_token_endpoint_answers_problem_json(croupier) -> None:
    with budget(username=1):
        client = APIClient(REMOTE_ADDR="192.0.2.1")
        first = client.post(TOKEN, {"username": "croupier", "password": "wrong"}, format="json")
        assert first.status_code == 400
        before = written()
        refused = client.post(TOKEN, {"username": "croupier", "password": PASSWORD}, format="json")
        assert refused.status_code == 429 and refused["Retry-After"] == "30"
        assert refused["Content-Type"] == "application/problem+json"
        body = refused.json()
        assert (body["code"], body["detail"], body["status"]) == ("login_budget", BUSY, 429)
        assert written() == before
        # a form-encoded body is the view's 415, checked by nobody and not counted
        for _ in range(3):
            assert client.post(TOKEN, {"username": "someone", "password": PASSWORD}).status_code == 415
        assert login_budget_take(username="someone", ip="192.0.2.1") is None


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1, 2]",
        b'{"username": 7, "password": "x"}',
        b'{"password": "x"}',
        b"[" * 5000 + b"]" * 5000,  # was a RecursionError in the middleware: a 500, to anyone
    ],
    ids=["not-json", "a-list", "a-number", "no-username", "5000-deep"],
)
def test_a_body_without_a_username_is_left_to_the_view(body) -> None:
    with budget(username=1, address=1, second=1):
        for _ in range(3):  # none counted: the view refuses each without a password check
            answer = APIClient(REMOTE_ADDR="192.0.2.1").post(TOKEN, body, content_type="application/json")
            assert answer.status_code == 400
    assert login_budget_take(username="x", ip="192.0.2.1") is None


def test_a_body_nested_too_deep_is_the_parsers_400_not_a_500() -> None:
    before = written()
    answer = APIClient(REMOTE_ADDR="192.0.2.1").post(
        TOKEN, b"[" * 5000 + b"]" * 5000, content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "nesting_too_deep"
    assert written() == before


def test_signed_in_requests_never_pass_the_budget(croupier, table) -> None:
    with budget(second=1):
        assert login("name-1").status_code == 200
        assert login("name-2").status_code == 429  # the site's budget is spent for this second
        api = APIClient()
        api.force_authenticate(croupier)
        assert api.get("/api/v1/me/").status_code == 200
        screen = Client()
        screen.force_login(croupier)
        assert screen.get(f"/table/{table.pk}/").status_code == 200


def test_a_login_form_without_its_csrf_token_is_refused_first_for_nothing() -> None:
    with budget(username=1):
        strict = Client(enforce_csrf_checks=True, REMOTE_ADDR="192.0.2.1")
        for _ in range(3):
            assert strict.post(LOGIN, {"username": "croupier", "password": "x"}).status_code == 403
        assert login("croupier").status_code == 200  # none of the three was counted


def test_a_direct_client_forging_x_forwarded_for_keeps_its_own_address() -> None:
    with budget(address=2), override_settings(TRUSTED_PROXIES=("10.0.0.1",)):
        forged = [
            login(f"n{n}", ip="192.0.2.50", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
            for n in range(3)
        ]
        assert forged == [200, 200, 429]
        # through the listed proxy the forwarded address is the client's
        proxied = [
            login(f"p{n}", ip="10.0.0.1", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(3)
        ]
        assert proxied == [200, 200, 200]


def test_the_page_is_said_in_french_and_russian() -> None:
    with budget(second=1):
        login("warm-up")
        said = {}
        for language in ("fr", "ru"):
            client = Client(REMOTE_ADDR="192.0.2.1")
            client.cookies["django_language"] = language
            said[language] = client.post(LOGIN, {"username": "x", "password": "y"}).content.decode()
        french, russian = said["fr"], said["ru"]
    assert "Réessayez dans un instant" in french and "Réessayez dans un instant" not in russian
    assert "Повторите попытку чуть позже" in russian
    assert BUSY not in french and BUSY not in russian


# ------------------------------------------------------------------------------- the store
def test_a_cache_out_of_reach_counts_in_the_process() -> None:
    broken = mock.patch.object(login_budget, "_shared_store", side_effect=ConnectionError("down"))
    with budget(username=2), broken:
        assert login_budget_take(username="u", ip="") is None
        assert login_budget_take(username="u", ip="") is None
        assert login_budget_take(username="u", ip="") == LoginBudgetRefusal(scope="username", retry_after=30)


@pytest.mark.redis
def test_two_workers_count_together_in_redis() -> None:
    """Two processes' caches on one Redis (as production's workers): one budget, not two."""
    url = redis_url().rsplit("/", 1)[0] + "/14"
    options = {"KEY_PREFIX": "chemin-test", "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}
    first, second = RedisCache(url, options), RedisCache(url, options)
    first.clear()
    try:
        with budget(address=3):
            takes = []
            for store in (first, second, first, second):
                with mock.patch.object(login_budget, "_shared_store", return_value=store):
                    takes.append(login_budget_take(username="", ip="192.0.2.1"))
        assert takes == [None, None, None, LoginBudgetRefusal(scope="address", retry_after=30)]
    finally:
        first.clear()
