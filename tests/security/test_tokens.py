"""API tokens (issue 10, item 4): shown once, only a hash in the database, their creation
audited, and no administrator can read one or mint one for somebody else."""

from __future__ import annotations

import hashlib

import pytest
from django.contrib import admin
from django.core.cache import cache
from django.db import connection
from django.urls import NoReverseMatch, reverse
from rest_framework.test import APIClient

from access.services.tokens import api_token_create
from audit.models import AuditEvent
from core.models import ApiToken

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"
TOKEN = "/api/v1/auth/token/"


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def issue(username: str = "cashier") -> str:
    response = APIClient().post(TOKEN, {"username": username, "password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    token: str = response.json()["token"]
    return token


def me(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return int(client.get("/api/v1/me/").status_code)


def test_the_database_holds_only_the_tokens_hash(cashier) -> None:
    token = issue()
    assert len(token) == 43 and me(token) == 200
    row = ApiToken.objects.get()
    assert row.digest == hashlib.sha256(token.encode()).hexdigest() and row.prefix == token[:8]
    # nowhere in the row, nor in its audit event, is the token itself
    assert token not in str(list(ApiToken.objects.values()))
    assert token not in str(list(AuditEvent.objects.values("before", "after")))
    # a token cannot be looked up by what is stored: the digest is not a token
    assert me(row.digest) == 401


def test_a_token_is_shown_once_each_issue_gives_a_new_one(cashier) -> None:
    first, second = issue(), issue()
    assert first != second and me(first) == me(second) == 200
    events = AuditEvent.objects.filter(action="auth.token.issue").order_by("seq")
    assert [e.after["token"] for e in events if e.after] == list(
        ApiToken.objects.order_by("pk").values_list("pk", flat=True)
    )
    assert all(e.actor == cashier for e in events)


def test_past_the_limit_the_oldest_tokens_are_revoked(cashier, settings) -> None:
    settings.API_TOKEN_MAX_PER_USER = 2
    tokens = [issue() for _ in range(3)]
    assert [me(t) for t in tokens] == [401, 200, 200]
    last = AuditEvent.objects.filter(action="auth.token.issue").order_by("-seq").first()
    assert last is not None and last.after is not None and len(last.after["revoked"]) == 1


def test_an_inactive_users_token_stops_working(cashier) -> None:
    token = issue()
    cashier.is_active = False
    cashier.save()
    assert me(token) == 401


def test_the_clear_tokens_table_is_gone() -> None:
    assert "authtoken_token" not in connection.introspection.table_names()
    with pytest.raises(NoReverseMatch):
        reverse("admin:authtoken_tokenproxy_changelist")


def test_the_admin_shows_no_token_and_mints_none(cashier, admin_client) -> None:
    token = issue()
    row = ApiToken.objects.get()
    changelist = admin_client.get(reverse("admin:core_apitoken_changelist"))
    change = admin_client.get(reverse("admin:core_apitoken_change", args=[row.pk]))
    assert changelist.status_code == change.status_code == 200
    for page in (changelist, change):
        html = page.content.decode()
        assert token not in html and row.digest not in html
    assert row.prefix in changelist.content.decode()
    # no add page, and posting one anyway creates nothing
    assert admin_client.get(reverse("admin:core_apitoken_add")).status_code == 403
    before = ApiToken.objects.count()
    admin_client.post(
        reverse("admin:core_apitoken_add"), {"user": cashier.pk, "prefix": "x", "digest": "0" * 64}
    )
    assert ApiToken.objects.count() == before
    # a change posted through the change page does not move the token to another user
    assert not admin.site._registry[ApiToken].has_change_permission(change.wsgi_request, row)
    # the user's own admin page has no token on it either
    user_page = admin_client.get(reverse("admin:auth_user_change", args=[cashier.pk])).content.decode()
    assert token not in user_page and row.digest not in user_page


def test_the_admin_revokes_a_token_and_it_is_audited(cashier, admin_client, admin_user) -> None:
    token = issue()
    row = ApiToken.objects.get()
    response = admin_client.post(reverse("admin:core_apitoken_delete", args=[row.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not ApiToken.objects.exists() and me(token) == 401
    event = AuditEvent.objects.get(action="auth.token.revoke")
    assert (event.actor, event.object_id, event.after) == (
        admin_user,
        str(cashier.pk),
        {"token": row.pk, "prefix": row.prefix},
    )


def test_a_token_made_by_the_service_is_audited_as_its_users(cashier) -> None:
    token = api_token_create(user=cashier)
    event = AuditEvent.objects.get(action="auth.token.issue")
    assert (event.actor, event.actor_label) == (cashier, "cashier")
    assert me(token) == 200
