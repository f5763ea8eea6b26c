"""Fixtures for the croupier screens: a table in play and clients logged in as each persona."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.tables.play import Floor, open_floor


@pytest.fixture
def floor(croupier, table) -> Floor:
    """Four seated players (seat 1 banks, by lot), a 6-deck shoe with three burnt cards."""
    return open_floor(croupier, table)


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def as_croupier(croupier) -> Client:
    return _client(croupier)


@pytest.fixture
def as_other_croupier(other_croupier) -> Client:
    return _client(other_croupier)


@pytest.fixture
def as_pit_boss(pit_boss) -> Client:
    return _client(pit_boss)


@pytest.fixture
def as_accountant(accountant) -> Client:
    return _client(accountant)


HTMX: dict[str, Any] = {"HTTP_HX_REQUEST": "true"}  # extra WSGI environ for the test client
