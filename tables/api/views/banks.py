"""The bank: the first banker, the offer round, passing, auction, a new bank from the minimum,
and the club's bank shares (a spectator's part of a bank put in and taken out)."""

from __future__ import annotations

from typing import Any

from rest_framework import status as http

from core.types import Staff
from tables import services
from tables.api import inputs
from tables.api.views.base import TableAction, open_session, seat_at, spectator_at
from tables.models import Table


class BankFirstView(TableAction):
    """The session's first banker, chosen by lot or auction (``amount``: the winning bid)."""

    input = inputs.BankFirstIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.bank_first_assign(
            actor=actor, session=session, seat=seat_at(session, data["seat"]), amount=data["amount"]
        )


class BankOfferView(TableAction):
    """The answer of the seat the bank is offered to now (accept or refuse)."""

    input = inputs.BankOfferIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.bank_offer_answer(
            actor=actor, session=session, seat=seat_at(session, data["seat"]), accept=data["accept"]
        )


class BankPassView(TableAction):
    """The banker gives up the bank between coups."""

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.bank_pass(actor=actor, session=open_session(table))


class BankAuctionView(TableAction):
    """A passed bank awarded by auction to whoever puts up at least the same amount."""

    input = inputs.BankAuctionIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.bank_auction_award(
            actor=actor, session=session, seat=seat_at(session, data["seat"]), amount=data["amount"]
        )


class BankNewView(TableAction):
    """Nobody took the bank at the required amount: the first neighbour opens one from the minimum."""

    input = inputs.SeatIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.bank_new_from_minimum(
            actor=actor, session=session, seat=seat_at(session, data["seat"])
        )


class BankShareView(TableAction):
    """Club: a spectator puts up part of a new bank, with the banker's consent (before its first coup)."""

    input = inputs.BankShareIn
    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.bank_share_contribute(
            actor=actor,
            session=session,
            spectator=spectator_at(session, data["spectator"]),
            amount=data["amount"],
        )


class BankShareOutView(TableAction):
    """Club: before a deal, the spectator takes his proportional share out of the bank."""

    input = inputs.BankShareOutIn

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return services.bank_share_withdraw(
            actor=actor, session=session, spectator=spectator_at(session, data["spectator"])
        )
