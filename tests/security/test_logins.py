# ruff: noqa: RUF001  (French and Russian words: typographic apostrophes and Cyrillic letters)
"""Logins (issue 10, item 4): lockout after repeated failures (django-axes), its reset by an
administrator, a flood of failures that never takes the audit chain's lock, throttles on the API,
and the client's address taken only from a trusted proxy's header."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator
from typing import Any
from unittest import mock

import psycopg
import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from access.tasks import summarise_login_failures
from audit import services as audit_services
from audit.models import AuditEvent
from casino.settings.base import _proxy_networks
from core.client_ip import client_ip
from core.models import ApiToken, LoginFailure
from tests.factories import UserFactory
from tests.problems import problem_body

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
LOGIN = "/accounts/login/"
TOKEN = "/api/v1/auth/token/"
LIMIT = settings.AXES_FAILURE_LIMIT
LOOSE_THROTTLES = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"token": "100000/minute", "anon": "100000/minute", "user": "100000/minute"},
}


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()  # the throttles count in the cache
    yield
    cache.clear()


@contextlib.contextmanager
def at(moment: dt.datetime) -> Iterator[None]:
    """The clock of Django and of django-axes (its attempt times) stopped at ``moment``."""
    with (
        mock.patch("django.utils.timezone.now", return_value=moment),
        mock.patch("axes.handlers.proxy.now", return_value=moment),
    ):
        yield


def login(client: Client, username: str, password: str, **extra: Any) -> Any:
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


def test_fifty_wrong_passwords_then_the_right_one_is_refused(croupier) -> None:
    client = Client()
    answers = [login(client, "croupier", f"guess-{i}").status_code for i in range(50)]
    # the form says "wrong" until the limit, then the lockout answers (429), password unchecked
    assert answers == [200] * (LIMIT - 1) + [429] * (50 - LIMIT + 1)
    with mock.patch.object(ModelBackend, "authenticate", autospec=True) as checked:
        right = login(client, "croupier", PASSWORD)
    assert right.status_code == 429 and not checked.called
    # Retry-After: the seconds until the lock lapses, 30 minutes after the last counted failure
    [attempt] = AccessAttempt.objects.filter(username="croupier")
    left = (attempt.attempt_time + settings.AXES_COOLOFF_TIME - timezone.now()).total_seconds()
    assert "Locked out" in right.content.decode()
    assert int(right["Retry-After"]) <= 30 * 60 and abs(int(right["Retry-After"]) - left) < 2
    assert "_auth_user_id" not in client.session
    assert not AuditEvent.objects.filter(action="auth.login").exists()
    assert LoginFailure.objects.count() == 51
    assert LoginFailure.objects.filter(locked_out=False).count() == LIMIT - 1
    # the username is locked from anywhere, not only from this address
    assert login(Client(REMOTE_ADDR="10.0.0.9"), "croupier", PASSWORD).status_code == 429


@override_settings(REST_FRAMEWORK=LOOSE_THROTTLES)
def test_the_token_endpoint_locks_out_too_and_answers_problem_json(cashier) -> None:
    client = APIClient()
    for _ in range(LIMIT - 1):
        assert client.post(TOKEN, {"username": "cashier", "password": "no"}, format="json").status_code == 400
    locked = client.post(TOKEN, {"username": "cashier", "password": "no"}, format="json")
    assert locked.status_code == 429
    assert problem_body(locked, path=TOKEN) == {
        "code": "locked_out",
        "detail": "Too many failed logins: this account or this device is locked out for a while. "
        "A manager can lift the lock.",
    }
    right = client.post(TOKEN, {"username": "cashier", "password": PASSWORD}, format="json")
    assert right.status_code == 429 and not ApiToken.objects.exists()


def test_one_address_trying_many_usernames_is_locked_out(croupier, cashier) -> None:
    flood = Client(REMOTE_ADDR="10.6.6.6")
    for i in range(LIMIT):
        login(flood, f"nobody-{i}", "x")
    assert login(flood, "cashier", PASSWORD).status_code == 429  # the address is locked
    assert login(Client(REMOTE_ADDR="10.0.0.2"), "cashier", PASSWORD).status_code == 302  # others are not


def test_one_users_wrong_passwords_lock_his_username_not_the_shared_tablet(croupier, cashier) -> None:
    """The pit's podium tablet is one address for every croupier: one of them mistyping his own
    password ten times locks his username only."""
    podium = Client(REMOTE_ADDR="10.1.1.1")
    for i in range(LIMIT):
        login(podium, "croupier", f"guess-{i}")
    assert login(podium, "croupier", PASSWORD).status_code == 429
    assert login(Client(REMOTE_ADDR="10.1.1.1"), "cashier", PASSWORD).status_code == 302


def test_a_few_colleagues_mistyping_at_one_tablet_do_not_lock_it(croupier, cashier) -> None:
    podium = Client(REMOTE_ADDR="10.1.1.2")
    spray = settings.LOGIN_SPRAY_USERNAMES
    assert spray == 5
    for n in range(spray - 1):  # four usernames, three wrong passwords each: 12 failures, no spray
        for _ in range(3):
            login(podium, f"colleague-{n}", "oops")
    assert login(Client(REMOTE_ADDR="10.1.1.2"), "cashier", PASSWORD).status_code == 302
    # a fifth username failing from it makes it a spray: the address is locked now
    login(podium, "colleague-4", "oops")
    assert login(Client(REMOTE_ADDR="10.1.1.2"), "croupier", PASSWORD).status_code == 429
    assert login(Client(REMOTE_ADDR="10.1.1.3"), "croupier", PASSWORD).status_code == 302


@pytest.mark.parametrize(
    ("lang", "until"),
    [
        ("en", "Locked until <strong>March 2, 2026, 9:40 p.m.</strong> (UTC)."),
        ("fr", "Verrouillé jusqu’au <strong>2 mars 2026 21:40</strong> (UTC)."),
        ("ru", "Заблокировано до <strong>2 марта 2026 г. 21:40</strong> (UTC)."),
    ],
)
def test_the_locked_out_page_says_until_when_in_the_users_language(croupier, lang, until) -> None:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    last = dt.datetime(2026, 3, 2, 21, 10, 5, tzinfo=dt.UTC)
    with at(last):
        for _ in range(LIMIT):
            login(client, "croupier", "wrong")
    with at(last + dt.timedelta(minutes=5)):
        page = login(client, "croupier", PASSWORD)
    assert page.status_code == 429
    assert int(page["Retry-After"]) == 25 * 60  # 21:40:05 less 21:15:05
    assert f'<p data-testid="locked-until">{until}</p>' in page.content.decode()


def test_the_lockout_lapses_after_the_cool_off(croupier) -> None:
    client = Client()
    for _ in range(LIMIT):
        login(client, "croupier", "wrong")
    assert login(client, "croupier", PASSWORD).status_code == 429
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - dt.timedelta(seconds=1)
    )
    assert login(client, "croupier", PASSWORD).status_code == 302


def test_an_administrator_lifts_a_lockout_and_it_is_audited(croupier, admin_client, admin_user) -> None:
    client = Client()
    for _ in range(LIMIT):
        login(client, "croupier", "wrong")
    assert login(client, "croupier", PASSWORD).status_code == 429
    changelist = reverse("admin:axes_accessattempt_changelist")
    page = admin_client.get(changelist)
    assert page.status_code == 200 and "croupier" in page.content.decode()
    attempts = list(AccessAttempt.objects.values_list("pk", flat=True))
    response = admin_client.post(
        changelist, {"action": "lockout_reset_action", "_selected_action": attempts}, follow=True
    )
    assert response.status_code == 200
    assert not AccessAttempt.objects.exists()
    event = AuditEvent.objects.get(action="auth.lockout.reset")
    assert (event.actor, event.after) == (
        admin_user,
        {"username": "croupier", "ip": "127.0.0.1", "cleared": 1},
    )
    assert login(client, "croupier", PASSWORD).status_code == 302


def test_a_pit_boss_cannot_lift_a_lockout_in_the_admin(croupier, pit_boss) -> None:
    """Not staff: the admin is not his. He lifts one from the review pages (tests/review/test_lockouts.py)."""
    for _ in range(LIMIT):
        login(Client(), "croupier", "wrong")
    boss = Client()
    boss.force_login(pit_boss)
    attempts = list(AccessAttempt.objects.values_list("pk", flat=True))
    response = boss.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "lockout_reset_action", "_selected_action": attempts},
    )
    assert response.status_code in (302, 403)  # not staff: sent to the admin's login page
    assert list(AccessAttempt.objects.values_list("pk", flat=True)) == attempts
    assert not AuditEvent.objects.filter(action="auth.lockout.reset").exists()


# ------------------------------------------------------------------ the flood and the audit lock
def test_a_flood_of_failures_never_appends_to_the_chain(croupier) -> None:
    clients = [Client(REMOTE_ADDR=f"10.66.0.{n}") for n in range(6)]
    with mock.patch.object(audit_services, "_append", wraps=audit_services._append) as appends:
        for i in range(40):
            for n, client in enumerate(clients):
                login(client, f"croupier{n}" if i % 2 else "croupier", f"guess-{i}")
    assert appends.call_count == 0 and not AuditEvent.objects.exists()
    assert LoginFailure.objects.count() == 240
    # one summary event for all of them, and the next run has nothing to say
    with mock.patch.object(audit_services, "_append", wraps=audit_services._append) as appends:
        assert summarise_login_failures() == 240
        assert summarise_login_failures() == 0
    assert appends.call_count == 1
    event = AuditEvent.objects.get()
    assert event.action == "auth.login_failures" and event.after is not None
    assert event.after["count"] == 240 and event.after["usernames"]["croupier"] == 120
    assert event.after["ips"] == {f"10.66.0.{n}": 40 for n in range(6)}
    assert event.after["locked_out"] == LoginFailure.objects.filter(locked_out=True).count()
    assert not LoginFailure.objects.filter(summarised=False).exists()


@pytest.mark.postgres
def test_failed_logins_go_through_while_the_chain_lock_is_held(croupier) -> None:
    """Another connection holds the audit chain's lock (as a long append would): failed logins
    neither wait for it nor fail, where each one used to queue behind it."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    held, release = threading.Event(), threading.Event()

    def hold_the_chain_lock() -> None:
        with psycopg.connect(**params, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(%s)", [audit_services._CHAIN_LOCK_KEY])
            held.set()
            release.wait(30)
            other.execute("SELECT pg_advisory_unlock(%s)", [audit_services._CHAIN_LOCK_KEY])

    holder = threading.Thread(target=hold_the_chain_lock)
    holder.start()
    try:
        assert held.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '1s'")  # waiting for the lock would now fail
        client = Client(REMOTE_ADDR="10.66.1.1")
        for i in range(30):
            assert login(client, "croupier", f"guess-{i}").status_code in (200, 429)
        assert LoginFailure.objects.count() == 30
    finally:
        release.set()
        holder.join(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = 0")


# --------------------------------------------------------------------------------- throttles
@override_settings(
    REST_FRAMEWORK={
        **LOOSE_THROTTLES,
        "DEFAULT_THROTTLE_RATES": {"token": "9/minute", "anon": "3/minute", "user": "4/minute"},
    }
)
def test_api_calls_are_throttled_per_user(croupier) -> None:
    user = APIClient()
    user.force_authenticate(croupier)
    answers = [user.get("/api/v1/me/").status_code for _ in range(5)]
    assert answers == [200, 200, 200, 200, 429]
    other = UserFactory(username="other", roles=["accountant"])
    fresh = APIClient()
    fresh.force_authenticate(other)
    assert fresh.get("/api/v1/me/").status_code == 200  # counted per user


# ------------------------------------------------------------------------------ client address
PROXY = ("10.0.0.1",)


@pytest.mark.parametrize(
    ("proxies", "remote", "forwarded", "expected"),
    [
        ((), "192.0.2.1", "", "192.0.2.1"),
        ((), "192.0.2.1", "203.0.113.5", "192.0.2.1"),  # nobody trusted: the header is not believed
        (PROXY, "10.0.0.1", "203.0.113.5", "203.0.113.5"),
        (PROXY, "192.0.2.1", "203.0.113.5", "192.0.2.1"),  # a direct client: its header is not believed
        (PROXY, "10.0.0.1", "6.6.6.6, 203.0.113.5", "203.0.113.5"),  # the client's own hops are not
        (("10.0.0.0/24",), "10.0.0.1", "6.6.6.6, 203.0.113.5, 10.0.0.2", "203.0.113.5"),  # two proxies
        (PROXY, "10.0.0.1", "", "10.0.0.1"),  # through the proxy without the header: the proxy
        (PROXY, "10.0.0.1", "not-an-address", "10.0.0.1"),
        (PROXY, "10.0.0.1", "6.6.6.6, not-an-address, 203.0.113.5", "203.0.113.5"),
        (("::1",), "::1", "2001:db8::5", "2001:db8::5"),
        (("::1",), "10.0.0.1", "2001:db8::5", "10.0.0.1"),  # another family: not a listed proxy
    ],
)
def test_the_client_address_comes_from_trusted_proxies_only(proxies, remote, forwarded, expected) -> None:
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    with override_settings(TRUSTED_PROXIES=proxies):
        assert client_ip(request) == expected


@pytest.mark.parametrize(
    ("listed", "networks"),
    [([], ()), (["10.0.0.1", " ::1 ", ""], ("10.0.0.1/32", "::1/128")), (["10.0.0.7/24"], ("10.0.0.0/24",))],
)
def test_the_trusted_proxies_are_addresses_or_networks(listed, networks) -> None:
    assert _proxy_networks(listed) == networks


@pytest.mark.parametrize("listed", [["1"], ["2"], ["proxy.local"], ["10.0.0.1", "10.0.0.300"]])
def test_a_count_or_a_name_for_the_trusted_proxies_stops_the_start(listed) -> None:
    with pytest.raises(ImproperlyConfigured, match="TRUSTED_PROXIES"):
        _proxy_networks(listed)


def test_behind_one_proxy_the_lockout_and_the_log_use_the_forwarded_address(croupier) -> None:
    proxy = Client(REMOTE_ADDR="10.0.0.1")  # every request comes through the proxy
    with override_settings(TRUSTED_PROXIES=PROXY):
        for _ in range(LIMIT):
            login(proxy, f"nobody{_}", "x", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7")
        assert set(LoginFailure.objects.values_list("ip", flat=True)) == {"203.0.113.7"}
        # the attacker's address is locked, not the proxy's: another client through it logs in
        other = Client(REMOTE_ADDR="10.0.0.1")
        assert login(other, "croupier", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.8").status_code == 302
        assert login(proxy, "croupier", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 429
