"""The home page: login required, who you are, your roles and your shift's tables."""

from __future__ import annotations

import pytest

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
