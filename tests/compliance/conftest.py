"""Compliance test helpers: the cage's personas and players (tests/cage/conftest.py), a player's
winnings at the tables (chips that are not cash in), and the rows a refusal must leave alone."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from audit.models import AuditEvent
from compliance.models import CashLogEntry, CashReport, PlayerIdentification
from ledger import services as ledger
from ledger.models import Account, Transaction
from tables.models import Casino, Player
from tests.cage.conftest import casino, counts, dupont, key, logged_in, new_player, superuser

__all__ = ["casino", "dupont", "key", "logged_in", "new_player", "superuser"]


def won(casino: Casino, player: Player, amount: int) -> None:
    """``amount`` chips into the player's account from the tables (not bought at the cage: the
    day's cash in does not count them), so that he has chips to cash out: another player's,
    who plays on credit."""
    loser = new_player(casino=casino, display_name="Comte Orlov")
    with transaction.atomic():
        specs = [
            ledger.account_spec(Account.Kind.PLAYER, player),
            ledger.account_spec(Account.Kind.PLAYER, loser),
        ]
        accounts = ledger.accounts_lock(
            casino=casino, specs=specs, actor=None, players={player.pk: player, loser.pk: loser}
        )
        ledger.transaction_post(
            casino=casino,
            kind=Transaction.Kind.HOURLY_FEE,  # any kind the cage does not post will do
            entries=[(accounts[specs[0]], amount), (accounts[specs[1]], -amount)],
            idempotency_key=f"test-won:{player.pk}:{key()}",
            actor=None,
            allow_overdraft=True,
        )


def everything() -> dict[str, Any]:
    """The rows a refused move must leave alone: the cage's and compliance's, and the trail."""
    return {
        **counts(),
        "CashLogEntry": CashLogEntry.objects.count(),
        "CashReport": CashReport.objects.count(),
        "PlayerIdentification": PlayerIdentification.objects.count(),
        "AuditEvent": AuditEvent.objects.count(),
    }
