"""Reads for the cage and for whoever shows a player's chips: balances (one query for many
players), the cage's player list, a player's chip history with the balance after each entry."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import F, Q, QuerySet, Sum, Window

from ledger.models import Account, Entry
from ledger.selectors import chips_by_player
from tables.games import wings
from tables.models import Casino, Player
from tables.permissions import casino_scope

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class RunningBalance(TypedDict):
    balance_after: int  # the account's balance once this entry was posted


@dataclass(frozen=True, slots=True)
class PlayerChips:
    """A player's chips as the cage sees them."""

    player: Player
    balance: int  # his player account: chips in front of him (negative: he played on credit)
    reserve: int = 0  # his personal reserve (chips above a bank he holds), not cashable at the cage

    @property
    def chips(self) -> int:
        return max(self.balance, 0)

    @property
    def marker(self) -> int:
        """The chips he owes the house (a negative balance), 0 when he owes nothing."""
        return max(-self.balance, 0)


def chips_at_stake(*, player: Player) -> dict[str, int]:
    """What ``player`` could still lose in the coups being played at his casino, every game's, by
    the name of their table (nothing at stake: left out): the chips the cage does not pay out
    until those coups end. Each game is asked through the games' seam (tables.games), so the cage
    names no game."""
    found: dict[str, int] = {}
    for wing in wings():
        for table, chips in wing.chips_at_stake(player=player).items():
            if chips > 0:
                found[table] = found.get(table, 0) + chips
    return dict(sorted(found.items()))


def cage_casinos(*, user: Any) -> QuerySet[Casino]:
    """The casinos whose cage ``user`` reads (tables.permissions.casino_scope)."""
    return casino_scope(user).narrow(Casino.objects.order_by("name", "pk"), "pk")


def cage_players(*, casino: Casino, search: str = "") -> QuerySet[Player]:
    """The casino's players, by name; ``search`` matches a name or a membership number."""
    players = Player.objects.filter(casino=casino, house=False)  # the house banks with the cage itself
    search = search.strip()
    if search:
        players = players.filter(Q(display_name__icontains=search) | Q(membership_number__iexact=search))
    return players.order_by("display_name", "pk")


def players_chips(*, players: Iterable[Player]) -> list[PlayerChips]:
    """``players`` with their balances, in the order given (one query)."""
    players = list(players)
    balances = chips_by_player(players=players)
    return [PlayerChips(p, balances[p.pk]) for p in players]


def player_chips(*, player: Player) -> PlayerChips:
    """One player's chips: his player account and his reserve (one query)."""
    found = dict(
        Account.objects.filter(
            player=player, kind__in=[Account.Kind.PLAYER, Account.Kind.RESERVE]
        ).values_list("kind", "balance")
    )
    return PlayerChips(player, found.get(Account.Kind.PLAYER, 0), found.get(Account.Kind.RESERVE, 0))


def player_history(*, player: Player) -> QuerySet[WithAnnotations[Entry, RunningBalance]]:
    """The entries on the player's chip account, newest first, each with its transaction and
    ``balance_after`` (the running sum of the account's entries up to and including it)."""
    return (
        Entry.objects.filter(account__kind=Account.Kind.PLAYER, account__player=player)
        .select_related("transaction")
        .annotate(balance_after=Window(Sum("amount"), order_by=[F("transaction_id").asc(), F("id").asc()]))
        .order_by("-transaction_id", "-id")
    )
