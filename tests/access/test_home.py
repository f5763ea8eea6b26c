"""The home page: login required, who you are, your roles and your shift's tables."""

from __future__ import annotations

import pytest
from django.templatetags.static import static
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_home_needs_login(client) -> None:
    response = client.get("/")
    assert (response.status_code, response["Location"]) == (302, "/accounts/login/?next=/")


def test_home_says_who_you_are_and_your_shift(client, croupier, table) -> None:
    client.force_login(croupier)
    html = client.get("/").content.decode()
    assert '<strong data-testid="username">croupier</strong>' in html
    assert '<span class="badge">Croupier</span>' in html
    assert str(table) in html


@pytest.mark.parametrize(
    "persona,badge",
    [
        ("pit_boss", '<span class="badge">Pit boss</span>'),
        ("accountant", '<span class="badge">Accountant</span>'),
        ("outsider", '<span class="badge badge-muted">no role</span>'),
    ],
)
def test_home_shows_each_role(client, request, persona, badge) -> None:
    client.force_login(request.getfixturevalue(persona))
    assert badge in client.get("/").content.decode()


def test_other_croupier_sees_only_his_own_table(client, other_croupier, table, other_table) -> None:
    client.force_login(other_croupier)
    html = client.get("/").content.decode()
    assert str(other_table) in html and str(table) not in html


def test_the_site_has_an_icon(client) -> None:
    """Every page names the icon; /favicon.ico (asked for by browsers before any page) leads to it."""
    icon = static("img/favicon.svg")
    login = client.get(reverse("login")).content.decode()
    assert f'<link rel="icon" href="{icon}" type="image/svg+xml">' in login
    answer = client.get("/favicon.ico")
    assert (answer.status_code, answer["Location"]) == (301, icon)
    served = client.get(icon)
    assert served.status_code == 200 and served["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(served.streaming_content)


def test_compliance_finds_its_page_from_home_and_the_others_do_not(
    client, compliance_officer, pit_boss
) -> None:
    client.force_login(compliance_officer)
    html = client.get("/").content.decode()
    assert '<span class="badge">Compliance</span>' in html
    link = f'<a class="button" href="{reverse("review:compliance")}" data-testid="go-compliance">'
    assert link in html
    client.force_login(pit_boss)
    assert 'data-testid="go-compliance"' not in client.get("/").content.decode()
