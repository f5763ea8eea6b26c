"""Where the game floor hands the money of coups, banks and fees over: each call reads what the
floor's rows say (the coup's bets and rules snapshot, the bank turn, the seat) and calls the money
rule of its subject (banks, bank_share, settlement, limits, fees). A home series and an import's
buy-ins call their services directly (tables/services/series.py, imports.py).

Every call runs inside the caller's transaction (the coup step or bank change that causes it) and
carries an idempotency key derived from that cause, so a retried request can never post twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from django.db.models import OuterRef, Q, Subquery, Sum

from chemin_de_fer.engine.coup import Settlement
from chemin_de_fer.engine.profiles import LevyMode
from ledger.models import Account
from ledger.selectors import account_balance, account_find
from tables.engine_bridge import bet_player, bet_punter_key, coup_bets, coup_rules
from tables.models import (
    BankShare,
    BankTurn,
    Bet,
    Casino,
    Coup,
    Player,
    Seat,
    Series,
    SeriesEntrant,
    Table,
    TableSession,
)
from tables.money import bank_share, banks, fees
from tables.money import settlement as coup_money  # its functions take a ``settlement``
from tables.money.rules import SeriesPurse, series_stake_check, share_check, stake_check


def coup_borrowing(coup: Coup) -> bool:
    """Whether the players may borrow in ``coup``: the rules it is played under (its snapshot),
    the one source of truth for it. Where they may, no posting of the coup is refused for lack
    of chips (the shortfall is the player's marker); where they may not, a bet, a banco or a bank
    the player cannot pay is refused when it is made."""
    return coup_rules(coup).profile.borrowing_allowed


def coup_punters(coup: Coup) -> dict[str, Player]:
    """The engine's punter keys of a coup's bets (``seat-4``, ``spectator-17``), to players."""
    return {bet_punter_key(bet): bet_player(bet) for bet in coup_bets(coup)}


def bank_fund(*, coup: Coup, actor: Any, series: Series | None = None) -> None:
    """The banker's declared bank moves into the table's bank (only what it does not hold yet);
    on a new bank, the club spectators who put up part of it pay their part. For a coup that its
    start has just written (tables.services.coups.coup_start). ``series``: the series running at
    the table, as the start read it (None: none runs): the bank is then at most the banker's chips
    in the series."""
    shares: list[tuple[Player, int]] = []
    # the shares move with the bank's very first declaration (a withdrawn or voided first coup
    # already moved them: its bank stayed in the bank account)
    # asked last, and only of a bank's first coup under rules where spectators share the bank: the
    # one read of the three, which every other coup's start then does without
    if (
        coup.first_coup_of_bank
        and coup_rules(coup).profile.spectators_share_bank
        and not Coup.objects.filter(bank_turn_id=coup.bank_turn_id).exclude(pk=coup.pk).exists()
    ):
        shares = [
            (share.spectator.player, share.contributed)
            for share in BankShare.objects.filter(
                turn_id=coup.bank_turn_id, withdrawn__isnull=True
            ).select_related("spectator__player")
        ]
    banks.bank_fund(
        coup=coup,
        amount=coup.bank,
        actor=actor,
        key=f"coup:{coup.pk}:bank",
        borrowing=coup_borrowing(coup),
        shares=shares,
        series=series_purse(series=series, player=coup.banker),
        coup_new=True,  # the coup's start (tables.services.coups.coup_start), its only caller
    )


def bank_holding(*, table: Table) -> int:
    """The chips the table's bank account holds now."""
    return account_balance(casino=table.casino, kind=Account.Kind.BANK, table=table)


def bank_share_out(*, coup: Coup, player: Player, amount: int, share: BankShare, actor: Any) -> None:
    bank_share.bank_share_out(
        coup=coup, player=player, amount=amount, actor=actor, key=f"bankshare:{share.pk}:out"
    )


def bank_share_check(*, table: Table, turn: BankTurn, player: Player, amount: int) -> None:
    """A club spectator's share of the bank ``turn`` checked when he puts it up
    (rules.share_check): not more than his own chips where the table's rules forbid borrowing,
    and the shares below the house limit where the casino has one (the banker puts up the rest)."""
    borrowing = table.profile.borrowing_allowed
    balance = 0
    if not borrowing:
        account = account_find(casino=table.casino, kind=Account.Kind.PLAYER, player=player)
        balance = account.balance if account is not None else 0
    limit = table.casino.house_limit
    shared = 0
    if limit is not None:
        others = BankShare.objects.filter(turn=turn, withdrawn__isnull=True).exclude(spectator__player=player)
        shared = others.aggregate(total=Sum("contributed"))["total"] or 0
    share_check(
        player=player, balance=balance, amount=amount, borrowing=borrowing, house_limit=limit, shared=shared
    )


class _SettledUnder(TypedDict):
    uncovered_to_reserve: bool
    house_limit: int | None
    borrowing: bool


def _settled_under(coup: Coup) -> _SettledUnder:
    """What of the coup's rules its settlement is posted under, final or provisional, as
    tables.money.settlement takes it: the rules the coup was played under (its snapshot), not the
    table's current ones."""
    return {
        "uncovered_to_reserve": coup_rules(coup).profile.uncovered_to_reserve,
        "house_limit": coup.rules["house_limit"],
        "borrowing": coup_borrowing(coup),
    }


def coup_settle(
    *,
    coup: Coup,
    settlement: Settlement,
    actor: Any,
    key: str,
    provisional: bool = False,
    punters: Mapping[str, Player] | None = None,
) -> None:
    coup_money.coup_settle(
        coup=coup,
        settlement=settlement,
        punters=punters,  # None: the settlement reads the coup's with the coup (coup_punters's)
        **_settled_under(coup),
        actor=actor,
        key=key,
        provisional=provisional,
    )


def coup_settlement_replace(*, coup: Coup, settlement: Settlement, actor: Any, key: str) -> None:
    coup_money.coup_settlement_replace(
        coup=coup,
        settlement=settlement,
        punters=coup_punters(coup),
        **_settled_under(coup),
        actor=actor,
        key=key,
    )


def coup_provisional_reverse(*, coup: Coup, actor: Any, key: str, voiding: bool = False) -> None:
    """A restored coup's provisional settlement reversed: rejected (the coup's rules decide whether
    a player short of the chips it takes back may owe them), or ``voiding``: a pit boss's void is
    never refused for lack of chips, what a player can no longer give back is his marker."""
    coup_money.coup_provisional_reverse(
        coup=coup, actor=actor, key=key, borrowing=voiding or coup_borrowing(coup)
    )


def bank_return(*, turn: BankTurn, actor: Any) -> None:
    """A bank ended: what the table's bank holds, and the banker's reserve, go back to him."""
    banks.bank_close(
        table=turn.session.table, banker=turn.player, actor=actor, key=f"bankturn:{turn.pk}:close"
    )


def bet_check_affordable(
    *, coup: Coup, player: Player, amount: int, borrowing: bool, banco: bool = False
) -> None:
    """Where the coup's rules forbid borrowing (``borrowing``: the rules the step service holds,
    ``CoupProgress.rules.profile.borrowing_allowed``, the coup's own snapshot), a bet must be
    covered by the player's own chips, counting what he already has at stake in every coup being
    played (he may sit at two tables). A banco replaces the player's earlier bets in this coup, so
    those do not count.

    At a table whose profile plays series, while a series runs there, a bet must also be covered
    by the chips he holds in the series (rules.series_stake_check; a player who is not one of its
    entrants bets nothing), counting what he already staked in this coup. Asked in the statement
    that reads his player account: the series costs no statement of its own."""
    session_id = coup.shoe.session_id
    series_table = coup.shoe.table.profile.series_coups is not None
    if borrowing and not series_table:
        return
    staked = Bet.objects.filter(coup__state=Coup.State.OPEN, withdrawn=False).filter(
        Q(seat__player=player) | Q(spectator__player=player)
    )
    if banco:
        staked = staked.exclude(coup=coup)
    if not series_table:
        stake_check_affordable(
            casino=coup.shoe.table.casino,
            player=player,
            amount=amount,
            already_staked=staked.aggregate(total=Sum("amount"))["total"] or 0,
        )
        return
    totals = staked.aggregate(
        total=Sum("amount"), here=Sum("amount", filter=Q(coup__shoe__session_id=session_id))
    )
    wallet, reserve, purse = _player_series_purse(
        casino_id=coup.shoe.table.casino_id, session_id=session_id, player=player
    )
    if not borrowing:
        stake_check(player=player, balance=wallet, amount=amount, already_staked=totals["total"] or 0)
    if purse is not None:
        series_stake_check(
            player=player,
            purse=purse,
            holds=wallet + reserve,
            amount=amount,
            already_staked=totals["here"] or 0,
        )


def _player_series_purse(
    *, casino_id: int, session_id: int, player: Player
) -> tuple[int, int, SeriesPurse | None]:
    """The balances of the player's account and reserve, and what the series running at the
    session lets him stake (None: none runs), in one statement."""
    accounts = Account.objects.filter(casino_id=casino_id, player_id=OuterRef("pk"))
    running = Series.objects.filter(session_id=session_id, ended_at__isnull=True)
    wallet, reserve, series_id, chips_before = (
        Player.objects.filter(pk=player.pk)
        .annotate(
            wallet=Subquery(accounts.filter(kind=Account.Kind.PLAYER).values("balance")[:1]),
            reserve=Subquery(accounts.filter(kind=Account.Kind.RESERVE).values("balance")[:1]),
            series_id=Subquery(running.values("pk")[:1]),
            chips_before=Subquery(
                SeriesEntrant.objects.filter(
                    series__in=running.values("pk"), player_id=OuterRef("pk")
                ).values("chips_before")[:1]
            ),
        )
        .values_list("wallet", "reserve", "series_id", "chips_before")
        .get()
    )
    purse = SeriesPurse(chips_before=chips_before) if series_id is not None else None
    return wallet or 0, reserve or 0, purse


def series_purse(*, series: Series | None, player: Player) -> SeriesPurse | None:
    """What the running ``series`` (None: none runs; the caller read it) lets ``player`` stake:
    one statement, only while a series runs."""
    if series is None or player.house:
        return None
    chips_before = (
        SeriesEntrant.objects.filter(series=series, player=player)
        .values_list("chips_before", flat=True)
        .first()
    )
    return SeriesPurse(chips_before=chips_before)


def card_money_on_seat(*, seat: Seat, actor: Any) -> None:
    """Club: card money is charged once per seated player per session (idempotent by key)."""
    table = seat.session.table
    if table.profile.levy_mode == LevyMode.CARD_MONEY:
        fees.card_money_charge(session=seat.session, player=seat.player, actor=actor)


def hourly_fees_on_close(*, session: TableSession) -> None:
    """A closing session's last (partial) hour is billable at once: enqueue its billing, and any
    hour not billed yet, after the commit."""
    if session.table.effective_levy_mode == Casino.LevyMode.HOURLY_FEE:
        fees.hourly_fees_enqueue_due(session=session)


def stake_check_affordable(*, casino: Casino, player: Player, amount: int, already_staked: int) -> None:
    """Refuse a bet the player cannot cover from his player account (with what he already staked
    in the coups being played). Asked only where the coup's rules forbid borrowing (the caller
    decides: bet_check_affordable); reads only, the bet itself moves no chips."""
    account = account_find(casino=casino, kind=Account.Kind.PLAYER, player=player)
    balance = account.balance if account is not None else 0
    stake_check(player=player, balance=balance, amount=amount, already_staked=already_staked)
