"""The bank: the first banker, the offer round, passing, auction, a new bank from the minimum, the
house bank, and the club's bank shares (a spectator's part of a bank put in and taken out)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from rest_framework import status as http

from core.types import Staff
from tables import services
from tables.api import inputs
from tables.api.views.base import TableAction, open_session, seat_at, spectator_at
from tables.models import Table

#: how a bank move finds whom the request names, in the open session (refused if not there)
_PARTIES: dict[str, Callable[..., Any]] = {"seat": seat_at, "spectator": spectator_at}


class BankAction(TableAction):
    """A bank move at the open session: ``service`` gets the session, the seat or spectator the
    request names (``party``: its field of that name, found in the session), and the request's
    ``passed`` fields as they are. Every bank move is the same request to its own service; the
    service says when it may be made."""

    service: Callable[..., Any]
    party: Literal["", "seat", "spectator"] = ""
    passed: tuple[str, ...] = ()

    def act(self, *, actor: Staff, table: Table, data: dict[str, Any], key: str) -> Any:
        session = open_session(table)
        named = {self.party: _PARTIES[self.party](session, data[self.party])} if self.party else {}
        return self.service(
            actor=actor, session=session, **named, **{name: data[name] for name in self.passed}
        )


class BankFirstView(BankAction):
    """The session's first banker, chosen by lot or auction (``amount``: the winning bid)."""

    input = inputs.BankFirstIn
    status_code = http.HTTP_201_CREATED
    service = staticmethod(services.bank_first_assign)
    party = "seat"
    passed = ("amount",)


class BankOfferView(BankAction):
    """The answer of the seat the bank is offered to now (accept or refuse)."""

    input = inputs.BankOfferIn
    status_code = http.HTTP_201_CREATED
    service = staticmethod(services.bank_offer_answer)
    party = "seat"
    passed = ("accept",)


class BankPassView(BankAction):
    """The banker gives up the bank between coups."""

    service = staticmethod(services.bank_pass)


class BankHouseView(BankAction):
    """The house banks the table (the table's house-bank setting): the croupier plays the bank
    hand for the house, with the cage's money."""

    status_code = http.HTTP_201_CREATED
    service = staticmethod(services.bank_house_take)


class BankAuctionView(BankAction):
    """A passed bank awarded by informal auction, where the table holds them, to whoever puts up
    a bank equal to the one just played (``bank_rotation.auction_bank``)."""

    input = inputs.BankAuctionIn
    status_code = http.HTTP_201_CREATED
    service = staticmethod(services.bank_auction_award)
    party = "seat"
    passed = ("amount",)


class BankNewView(BankAction):
    """Nobody took the bank at the required amount: the first neighbour opens one from the minimum."""

    input = inputs.SeatIn
    status_code = http.HTTP_201_CREATED
    service = staticmethod(services.bank_new_from_minimum)
    party = "seat"


class BankShareView(BankAction):
    """Club: a spectator puts up part of a new bank, with the banker's consent (before its first coup)."""

    input = inputs.BankShareIn
    status_code = http.HTTP_201_CREATED
    service = staticmethod(services.bank_share_contribute)
    party = "spectator"
    passed = ("amount",)


class BankShareOutView(BankAction):
    """Club: before a deal, the spectator takes his proportional share out of the bank."""

    input = inputs.BankShareOutIn
    service = staticmethod(services.bank_share_withdraw)
    party = "spectator"
