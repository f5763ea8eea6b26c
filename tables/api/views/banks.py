"""The bank: the first banker, the offer round, passing, auction, a new bank from the minimum, the
house bank, and the club's bank shares (a spectator's part of a bank put in and taken out)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework import status as http

from core.types import Staff
from tables import services
from tables.api import inputs
from tables.api.views.base import TableAction, open_session, seat_at, spectator_at
from tables.models import Table


class SeatAwardView(TableAction):
    """A seat takes the bank for the sum it bids (``seat``, ``amount``): ``award`` is the service
    that says when it may, the same request whether by lot, by auction at the session's start or
    by auction after a pass."""

    status_code = http.HTTP_201_CREATED
    award: Callable[..., Any]

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        return self.award(
            actor=actor, session=session, seat=seat_at(session, data["seat"]), amount=data["amount"]
        )


class BankFirstView(SeatAwardView):
    """The session's first banker, chosen by lot or auction (``amount``: the winning bid)."""

    input = inputs.BankFirstIn
    award = staticmethod(services.bank_first_assign)


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


class BankHouseView(TableAction):
    """The house banks the table (the table's house-bank setting): the croupier plays the bank
    hand for the house, with the cage's money."""

    status_code = http.HTTP_201_CREATED

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        return services.bank_house_take(actor=actor, session=open_session(table))


class BankAuctionView(SeatAwardView):
    """A passed bank awarded by informal auction, where the table holds them, to whoever puts up
    a bank equal to the one just played (``bank_rotation.auction_bank``)."""

    input = inputs.BankAuctionIn
    award = staticmethod(services.bank_auction_award)


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
