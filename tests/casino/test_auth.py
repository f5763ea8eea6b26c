"""Login page, logout, and the audit of every authentication event (the home page: tests/core)."""

from __future__ import annotations

import pytest
from django.test import Client

from access.tasks import summarise_login_failures
from audit.models import AuditEvent
from core.models import LoginFailure

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


def test_login_page_renders_tablet_friendly(client) -> None:
    response = client.get("/accounts/login/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<form method="post" action="/accounts/login/"' in html
    assert 'autocomplete="current-password"' in html
    assert "/static/css/app.css" in html and "/static/vendor/htmx.min.js" in html


def test_static_assets_are_served(client) -> None:
    css = client.get("/static/css/app.css")
    assert css.status_code == 200
    assert b"--touch: 44px" in b"".join(css.streaming_content)
    assert client.get("/static/vendor/htmx.min.js").status_code == 200


def test_successful_login_is_audited(client, croupier) -> None:
    response = client.post("/accounts/login/", {"username": "croupier", "password": PASSWORD})
    assert (response.status_code, response["Location"]) == (302, "/")
    event = AuditEvent.objects.get(action="auth.login")
    assert (event.actor, event.actor_label, event.object_type, event.object_id) == (
        croupier,
        "croupier",
        "auth.user",
        str(croupier.pk),
    )
    assert event.after is not None
    assert event.after["ip"] == "127.0.0.1"


def test_failed_login_is_logged_without_the_password_and_summarised_on_the_chain(client, croupier) -> None:
    response = client.post("/accounts/login/", {"username": "croupier", "password": "wrong-password"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # not one audit event per failure (the chain's lock: access/services/logins.py), a log row
    assert not AuditEvent.objects.exists()
    failure = LoginFailure.objects.get()
    assert (failure.username, failure.ip, failure.user_agent, failure.path, failure.locked_out) == (
        "croupier",
        "127.0.0.1",
        "",
        "/accounts/login/",
        False,
    )
    assert "wrong-password" not in str(vars(failure))
    # and the periodic summary puts it on the chain
    assert summarise_login_failures() == 1
    event = AuditEvent.objects.get()
    assert (event.action, event.actor, event.actor_label) == ("auth.login_failures", None, "system")
    assert event.after is not None
    assert (event.after["count"], event.after["usernames"], event.after["ips"]) == (
        1,
        {"croupier": 1},
        {"127.0.0.1": 1},
    )
    assert "wrong-password" not in str(event.after)


def test_logout_is_audited(client, croupier) -> None:
    client.post("/accounts/login/", {"username": "croupier", "password": PASSWORD})
    response = client.post("/accounts/logout/")
    assert (response.status_code, response["Location"]) == (302, "/accounts/login/")
    assert list(AuditEvent.objects.values_list("action", "actor_label")) == [
        ("auth.login", "croupier"),
        ("auth.logout", "croupier"),
    ]


def test_logout_needs_post(client, croupier) -> None:
    client.force_login(croupier)
    assert client.get("/accounts/logout/").status_code == 405
    assert client.get("/").status_code == 200  # still logged in


@pytest.mark.parametrize(
    ("data", "status"),
    [
        ({}, 200),
        ({"username": "x" * 5000, "password": "y"}, 200),
        # no form takes a NUL (core.middleware: the 400 page, before any view)
        ({"username": "\x00", "password": "\x00"}, 400),
        ({"username": ["a", "b"], "password": ""}, 200),
    ],
)
def test_bad_login_input_never_gives_a_500(client, data, status) -> None:
    response = client.post("/accounts/login/", data)
    assert response.status_code == status
    assert "_auth_user_id" not in client.session


def test_csrf_failure_shows_our_403_page(croupier) -> None:
    client = Client(enforce_csrf_checks=True)
    response = client.post("/accounts/login/", {"username": "croupier", "password": PASSWORD})
    assert response.status_code == 403
    assert "Form expired" in response.content.decode()
    assert not AuditEvent.objects.exists()


def test_logged_in_user_visiting_login_goes_home(client, pit_boss) -> None:
    client.force_login(pit_boss)
    response = client.get("/accounts/login/")
    assert (response.status_code, response["Location"]) == (302, "/")
