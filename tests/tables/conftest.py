"""Fixtures for the game-floor tests: tables of each profile the croupier persona works at."""

from __future__ import annotations

import pytest

from tests.factories import CroupierAssignmentFactory, TableFactory, builtin_profile


def _table_for(croupier, table, slug: str):
    other = TableFactory(casino=table.casino, profile=builtin_profile(slug))
    CroupierAssignmentFactory(user=croupier, table=other)
    return other


@pytest.fixture
def club_table(croupier, table):
    return _table_for(croupier, table, "club")


@pytest.fixture
def home_table(croupier, table):
    return _table_for(croupier, table, "home")


@pytest.fixture
def classic_table(croupier, table):
    return _table_for(croupier, table, "classic")
