"""Cage test helpers: the casino of the ``table`` persona fixture, players with and without chips,
clients per persona, and row counts (the guarded floor tables plus the ledger's accounts and
entries) to prove that a refusal wrote nothing."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

from ledger import services as ledger
from ledger.models import Account, Entry, Transaction
from tables.models import Casino, Player, Seat, Spectator, TableSession
from tests.factories import PlayerFactory, SeatFactory, SpectatorFactory, TableSessionFactory, UserFactory
from tests.tables.play import row_counts


# factory_boy's calls are typed as the factory: these say what they make
def new_player(**fields: Any) -> Player:
    return PlayerFactory(**fields)


def new_session(**fields: Any) -> TableSession:
    return TableSessionFactory(**fields)


def new_seat(**fields: Any) -> Seat:
    return SeatFactory(**fields)


def new_spectator(**fields: Any) -> Spectator:
    return SpectatorFactory(**fields)


def counts() -> dict[str, int]:
    """Every row a refused cage request must leave alone."""
    return {**row_counts(), "Account": Account.objects.count(), "Entry": Entry.objects.count()}


def key() -> str:
    return uuid.uuid4().hex


def owes(casino: Casino, player: Player, amount: int) -> None:
    """Post ``amount`` chips out of the player's account into the fee account, overdrawing it (the
    ``casino`` profile lets players borrow): he then owes a marker of what went below zero."""
    with transaction.atomic():
        specs = [ledger.account_spec(Account.Kind.PLAYER, player), ledger.account_spec(Account.Kind.FEE)]
        accounts = ledger.accounts_lock(casino=casino, specs=specs, actor=None, players={player.pk: player})
        ledger.transaction_post(
            casino=casino,
            kind=Transaction.Kind.HOURLY_FEE,
            entries=[(accounts[specs[0]], -amount), (accounts[specs[1]], amount)],
            idempotency_key=f"test-owes:{player.pk}:{key()}",
            actor=None,
        )


@pytest.fixture
def casino(table) -> Casino:
    return table.casino


@pytest.fixture
def dupont(casino) -> Player:
    return new_player(casino=casino, display_name="M. Dupont", membership_number="M-1001")


@pytest.fixture
def stranger(db) -> Player:
    """A player of another casino."""
    return new_player(display_name="Elsewhere")


@pytest.fixture
def superuser(db) -> Any:
    user: Any = UserFactory(username="root")
    user.is_superuser = user.is_staff = True
    user.save()
    return user


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client
