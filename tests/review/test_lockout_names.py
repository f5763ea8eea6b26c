"""Lifting a lockout names a username a login can have tried or a real IP address
(access.services.logins.login_lockout_reset): ``999.1.1.1`` was a 500 on PostgreSQL (``inet``)
and, on SQLite, the audited reset of a lockout that cannot exist; a username of 10,000 characters
was audited the same way though no login can try it. Each is a 400 with its sentence on the page,
nothing cleared, nothing audited."""

from __future__ import annotations

from typing import Any

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from access.services.logins import login_lockout_reset, username_max_length
from audit.models import AuditEvent
from review.services import lockout_lift
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

NOT_AN_ADDRESS = (
    "That is not an IP address (such as 192.0.2.7 or 2001:db8::7): nobody is locked out under it."
)
TOO_LONG = (
    "No login can try this username (at most 150 characters, no NUL): nobody is locked out under it."
)


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _as(user: Any) -> Client:
    client = Client(REMOTE_ADDR="10.9.9.9")
    client.force_login(user)
    return client


def _locked(ip: str = "10.6.6.6") -> None:
    spray = Client(REMOTE_ADDR=ip)
    for i in range(8):
        spray.post("/accounts/login/", {"username": f"nobody-{i}", "password": "x"})


@pytest.mark.parametrize(
    "ip", ["999.1.1.1", "1.2.3", "10.6.6.6.6", "abc", "01.2.3.4", "fe80::1%eth0", "1.2.3.4/32", "::g"]
)
def test_an_address_that_is_no_ip_address_is_refused(pit_boss, ip) -> None:
    _locked()
    boss = _as(pit_boss)
    attempts, events = AccessAttempt.objects.count(), AuditEvent.objects.count()
    answer = boss.post(reverse("review:lockout_lift"), {"ip": ip})
    assert answer.status_code == 400
    assert NOT_AN_ADDRESS in answer.content.decode()
    assert (AccessAttempt.objects.count(), AuditEvent.objects.count()) == (attempts, events)


def test_a_nul_in_the_address_is_refused_before_the_view(pit_boss) -> None:
    _locked()
    boss = _as(pit_boss)
    attempts, events = AccessAttempt.objects.count(), AuditEvent.objects.count()
    form = "application/x-www-form-urlencoded"
    answer = boss.post(reverse("review:lockout_lift"), "ip=1.2.3.4%00", content_type=form)
    assert answer.status_code == 400
    assert (AccessAttempt.objects.count(), AuditEvent.objects.count()) == (attempts, events)


@pytest.mark.parametrize("length", [151, 10_000])
def test_a_username_no_login_can_try_is_refused(pit_boss, length) -> None:
    _locked()
    boss = _as(pit_boss)
    attempts, events = AccessAttempt.objects.count(), AuditEvent.objects.count()
    answer = boss.post(reverse("review:lockout_lift"), {"username": "u" * length})
    assert answer.status_code == 400
    assert TOO_LONG in answer.content.decode()
    assert (AccessAttempt.objects.count(), AuditEvent.objects.count()) == (attempts, events)


def test_the_service_refuses_them_whoever_calls_it(pit_boss) -> None:
    events = AuditEvent.objects.count()
    for named in ({"ip": "999.1.1.1"}, {"ip": "1.2.3.4\x00"}, {"username": "u" * 151}, {"username": "b\x00"}):
        with pytest.raises(ValidationError):
            lockout_lift(actor=pit_boss, **named)
        with pytest.raises(ValidationError):
            login_lockout_reset(actor=pit_boss, **named)
    assert AuditEvent.objects.count() == events


def test_real_addresses_and_the_longest_username_are_lifted(pit_boss, table) -> None:
    _locked("10.6.6.6")
    assert username_max_length() == 150
    # a pit boss lifts the lockouts of his casino's staff only (tests/review/test_lockout_scope.py):
    # the longest username is a croupier of his casino's, not a name no account has
    UserFactory(username="u" * 150, roles=["croupier"], casinos=[table.casino])
    boss = _as(pit_boss)
    real = ({"ip": "10.6.6.6"}, {"ip": "2001:db8::7"}, {"ip": "::ffff:10.6.6.6"}, {"username": "u" * 150})
    for named in real:
        answer = boss.post(reverse("review:lockout_lift"), named)
        assert answer.status_code == 302, (named, answer.content.decode()[:300])
    assert not AccessAttempt.objects.filter(ip_address="10.6.6.6").exists()
    assert AuditEvent.objects.filter(action="auth.lockout.reset").count() == 4
