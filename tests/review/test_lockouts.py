"""The pit boss lifts a login lockout from the review pages (review.views lockouts_page and
lockout_lift_view, review.services.lockout_lift): the lockouts in force listed with when each
lapses, "Lift" (POST) clearing that username's or that address's counters, audited with him as the
actor in one transaction; refused to everyone else with nothing changed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client
from django.urls import reverse
from django.utils.formats import date_format

from audit.models import AuditEvent
from review.services import lockout_lift

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
LIMIT = settings.AXES_FAILURE_LIMIT


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def login(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password})


def _lock_croupier() -> Client:
    tablet = Client(REMOTE_ADDR="10.1.1.1")
    for i in range(LIMIT):
        login(tablet, "croupier", f"guess-{i}")
    assert login(Client(REMOTE_ADDR="10.1.1.1"), "croupier", PASSWORD).status_code == 429
    return tablet


def _as(user: Any) -> Client:
    client = Client(REMOTE_ADDR="10.9.9.9")
    client.force_login(user)
    return client


def test_the_pit_boss_sees_the_lockouts_and_lifts_one(croupier, pit_boss) -> None:
    _lock_croupier()
    spray = Client(REMOTE_ADDR="10.6.6.6")
    for i in range(LIMIT):
        login(spray, f"nobody-{i}", "x")
    boss = _as(pit_boss)
    page = boss.get(reverse("review:lockouts"))
    html = page.content.decode()
    assert page.status_code == 200
    croupier_row = html[html.index('data-testid="lockout-user-croupier"') :]
    assert "username <strong>croupier</strong>" in croupier_row[:400]
    [attempt] = AccessAttempt.objects.filter(username="croupier")
    until = attempt.attempt_time + settings.AXES_COOLOFF_TIME
    assert f'<td class="num">{LIMIT}</td>' in croupier_row[:600]
    # in the page's language (English here) and the casinos' time zone (the test casino's: UTC)
    shown = date_format(until.astimezone(dt.UTC), "DATETIME_FORMAT")
    assert f'<td class="nowrap">{shown}</td>' in croupier_row[:700]
    assert 'data-testid="lockout-ip-10.6.6.6"' in html and "address <strong>10.6.6.6</strong>" in html
    assert 'data-testid="lockout-ip-10.1.1.1"' not in html  # one user's mistakes: no spray
    assert 'href="/review/lockouts/"' in html  # in the back office's navigation

    done = boss.post(reverse("review:lockout_lift"), {"username": "croupier"})
    assert done.status_code == 302 and done["Location"] == reverse("review:lockouts")
    assert not AccessAttempt.objects.filter(username="croupier").exists()
    assert AccessAttempt.objects.filter(ip_address="10.6.6.6").count() == LIMIT  # the other stays
    event = AuditEvent.objects.get(action="auth.lockout.reset")
    assert (event.actor, event.after) == (pit_boss, {"username": "croupier", "ip": "", "cleared": 1})
    assert "The lockout of croupier is lifted." in boss.get(done["Location"]).content.decode()
    assert login(Client(REMOTE_ADDR="10.1.1.1"), "croupier", PASSWORD).status_code == 302

    boss.post(reverse("review:lockout_lift"), {"ip": "10.6.6.6"})
    assert not AccessAttempt.objects.exists()
    assert 'data-testid="no-lockout"' in boss.get(reverse("review:lockouts")).content.decode()


@pytest.mark.parametrize("persona", ["croupier", "accountant", "cashier", "outsider"])
def test_nobody_else_sees_or_lifts_them(request, croupier, persona) -> None:
    user = request.getfixturevalue(persona)
    _lock_croupier()
    client = _as(user)
    attempts = list(AccessAttempt.objects.values_list("pk", "failures_since_start"))
    events = AuditEvent.objects.count()
    assert client.get(reverse("review:lockouts")).status_code == 403
    assert client.post(reverse("review:lockout_lift"), {"username": "croupier"}).status_code == 403
    assert list(AccessAttempt.objects.values_list("pk", "failures_since_start")) == attempts
    assert AuditEvent.objects.count() == events
    assert login(Client(REMOTE_ADDR="10.1.1.1"), "croupier", PASSWORD).status_code == 429
    with pytest.raises(PermissionDenied):
        lockout_lift(actor=user, username="croupier")


def test_lifting_names_exactly_one_username_or_address(croupier, pit_boss) -> None:
    _lock_croupier()
    boss = _as(pit_boss)
    attempts = AccessAttempt.objects.count()
    events = AuditEvent.objects.count()
    for data in ({}, {"username": "croupier", "ip": "10.1.1.1"}, {"username": "  "}):
        answer = boss.post(reverse("review:lockout_lift"), data)
        assert answer.status_code == 400
        assert "Name the username or the address whose lockout is lifted." in answer.content.decode()
    assert (AccessAttempt.objects.count(), AuditEvent.objects.count()) == (attempts, events)
    with pytest.raises(ValidationError):
        lockout_lift(actor=pit_boss)


def test_a_lapsed_lockout_is_no_longer_listed(croupier, pit_boss) -> None:
    _lock_croupier()
    lapsed = AccessAttempt.objects.get().attempt_time - settings.AXES_COOLOFF_TIME - dt.timedelta(seconds=1)
    AccessAttempt.objects.update(attempt_time=lapsed)
    html = _as(pit_boss).get(reverse("review:lockouts")).content.decode()
    assert 'data-testid="no-lockout"' in html and "croupier</strong>" not in html
