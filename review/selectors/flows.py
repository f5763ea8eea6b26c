"""Reads for money passed between players (docs/flows.md): the facts the pure ``tables.flows``
weighs, gathered from the settled chemin de fer coups of a casino's gaming days, and the evidence
a money-flow alert shows. No writes here.

A duel is one punter's settlement against the bank in one settled coup: what the coup's
settlement postings (a provisional one and its reversal included, which cancel) moved on the
punter's chips account. The banker's own chips account is not a punter's: the bank's side is the
banker's. A coup counts on the gaming day it was settled in.

An option point is priced as the croupier's screen priced it live: the coup is replayed from its
steps, the cards out of the shoe before it (earlier coups', burnt; an amended card as amended) and
the coup's own cards the chooser sees, never the opponent's face-down cards
(``chemin_de_fer.engine.choices``).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from django.db.models import F, Min, QuerySet, Sum

from chemin_de_fer.engine.choices import OptionPoint, option_points
from chemin_de_fer.engine.machine import replay
from chemin_de_fer.engine.settlement import active_punter
from ledger.models import Account, Entry, TransactionKind
from review.models import Alert, AlertKind, AlertSettings
from tables.engine_bridge import bet_player, bet_punter_key, coup_bets, coup_levy, coup_new_state, game_steps
from tables.flows import (
    Choice,
    Discrimination,
    Duel,
    Finding,
    Limits,
    Spread,
    collusion_findings,
    flow_matrix,
    one_way,
    pair_evidence,
    pair_flows,
    pair_nets,
)
from tables.gaming_day import casino_calendar
from tables.models import Casino, Coup, Player, ShoeCard

#: the settlement postings of a coup (a provisional settlement and its reversal cancel out)
SETTLEMENT_KINDS = (
    TransactionKind.COUP_SETTLEMENT,
    TransactionKind.COUP_PROVISIONAL,
    TransactionKind.COUP_REVERSAL,
)


def flow_limits(settings: AlertSettings) -> Limits:
    return Limits(flow=settings.flow_threshold, z=Fraction(settings.flow_z))


def flow_period(*, casino: Casino, days: int, now: dt.datetime) -> tuple[dt.date, dt.date]:
    """The ``days`` gaming days of ``casino`` that end with today's."""
    last = casino_calendar(casino).today(now)
    return last - dt.timedelta(days=days - 1), last


def _settlement_entries(*, casino: Casino, first: dt.date, last: dt.date) -> QuerySet[Entry]:
    """The punters' settlement entries of the casino's coups settled those gaming days (the bank's
    side moved to the banker's own chips is his, not a punter's: left out)."""
    begin, end = casino_calendar(casino).bounds(first, last)
    return Entry.objects.filter(
        transaction__kind__in=SETTLEMENT_KINDS,
        transaction__coup__state=Coup.State.SETTLED,
        transaction__coup__settled_at__gte=begin,
        transaction__coup__settled_at__lt=end,
        transaction__coup__shoe__table__casino=casino,
        account__kind=Account.Kind.PLAYER,
        account__player__isnull=False,
    ).exclude(account__player_id=F("transaction__coup__banker_id"))


def flow_pair_totals(*, casino: Casino, first: dt.date, last: dt.date) -> dict[tuple[int, int], int]:
    """``tables.flows.pair_flows`` of those days' duels, summed by the database (one grouped
    query, a row per banker and punter): what the scan reads every minute before anything else."""
    grouped = (
        _settlement_entries(casino=casino, first=first, last=last)
        .values("transaction__coup__banker_id", "account__player_id")
        .annotate(net=Sum("amount"))
        .order_by()
        .values_list("transaction__coup__banker_id", "account__player_id", "net")
    )
    return one_way(pair_nets(grouped))


def flow_duels(*, casino: Casino, first: dt.date, last: dt.date) -> list[Duel]:
    """Every punter's settlement against the bank in the casino's coups settled those gaming days."""
    calendar = casino_calendar(casino)
    entries = _settlement_entries(casino=casino, first=first, last=last).values_list(
        "transaction__coup_id",
        "transaction__coup__banker_id",
        "transaction__coup__settled_at",
        "account__player_id",
        "amount",
    )
    nets: dict[tuple[int, int, int], int] = defaultdict(int)
    settled: dict[int, dt.datetime] = {}
    for coup_id, banker_id, at, player_id, amount in entries:
        if at is None:
            continue  # settled coups only (filtered on)
        nets[(coup_id, banker_id, player_id)] += amount
        settled[coup_id] = at
    return [
        Duel(coup_id=c, day=calendar.day_of(settled[c]), banker=b, punter=p, punter_net=n)
        for (c, b, p), n in sorted(nets.items())
        if n
    ]


def _seen_before(coup: Coup) -> list[str]:
    """The cards out of the coup's shoe before its own (burnt and earlier coups'), as amended."""
    first = ShoeCard.objects.filter(coup=coup).aggregate(first=Min("position"))["first"]
    cards = ShoeCard.objects.filter(shoe_id=coup.shoe_id, replaced_by__isnull=True)
    if first is not None:
        cards = cards.filter(position__lt=first)
    return list(cards.order_by("position").values_list("card", flat=True))


@dataclass(frozen=True)
class CoupChoices:
    """A coup's option points, who chose at each, and the chips each punter had at stake."""

    coup: Coup
    hand: int | None  # the player who played the punters' hand
    stakes: dict[int, int]
    points: tuple[OptionPoint, ...]

    def choices(self) -> list[Choice]:
        """As ``tables.flows`` weighs them: one per point and opponent faced."""
        found = []
        for p in self.points:
            if p.side == "player" and self.hand is not None:
                stake = self.stakes.get(self.hand, 0)
                found.append(
                    Choice(
                        self.coup.pk, self.hand, self.coup.banker_id, "player", stake, p.margin, p.given_up
                    )
                )
            elif p.side == "banker":
                for punter, stake in sorted(self.stakes.items()):
                    found.append(
                        Choice(
                            self.coup.pk, self.coup.banker_id, punter, "banker", stake, p.margin, p.given_up
                        )
                    )
        return found


def coup_choices(coup: Coup) -> CoupChoices:
    rows = list(coup.steps.order_by("index"))
    start, steps = coup_new_state(coup, rows), game_steps(rows)
    levy = coup_levy(coup)
    exempt = coup.first_coup_of_bank and levy.first_coup_exempt
    points = option_points(
        start,
        steps,
        seen_before=_seen_before(coup),
        decks=coup.shoe.decks,
        levy_bp=0 if exempt else levy.rate_bp,
    )
    players = {bet_punter_key(bet): bet_player(bet).pk for bet in coup_bets(coup)}
    state = replay(start, steps)
    stakes: dict[int, int] = defaultdict(int)
    for stake in state.bets:
        stakes[players[stake.punter]] += stake.amount
    hand = players.get(active_punter(state.bets)) if state.bets else None
    return CoupChoices(coup=coup, hand=hand, stakes=dict(stakes), points=points)


def flow_choices(coup_ids: Iterable[int]) -> list[CoupChoices]:
    coups = Coup.objects.filter(pk__in=set(coup_ids)).select_related("shoe__table").order_by("pk")
    return [coup_choices(c) for c in coups]


def flow_findings(
    *, casino: Casino, settings: AlertSettings, now: dt.datetime
) -> tuple[dt.date, dt.date, list[Finding]]:
    """The pairs of the casino flagged over its flow period ending today (``tables.flows``): the
    pairs' totals first (one grouped query); only when one is over the threshold the duels of the
    period, and the option points only in the coups of an over-threshold pair's losing side."""
    first, last = flow_period(casino=casino, days=settings.flow_days, now=now)
    totals = flow_pair_totals(casino=casino, first=first, last=last)
    if all(chips <= settings.flow_threshold for chips in totals.values()):
        return first, last, []  # the usual minute: one grouped query, nothing over the threshold
    duels = flow_duels(casino=casino, first=first, last=last)
    losers = {loser for (_, loser), chips in pair_flows(duels).items() if chips > settings.flow_threshold}
    if not losers:
        return first, last, []
    coups = {d.coup_id for d in duels if d.banker in losers or d.punter in losers}
    choices = [c for cc in flow_choices(coups) for c in cc.choices()]
    return first, last, collusion_findings(duels, choices, flow_limits(settings))


# ------------------------------------------------------------------------------ the evidence
@dataclass(frozen=True)
class EvidenceCoup:
    coup: Coup
    loser_net: int  # chips the coup moved from the loser to the winner (negative: the other way)
    points: list[Choice]  # the loser's option points facing the winner in it


@dataclass(frozen=True)
class FlowEvidence:
    casino_id: int
    winner: Player
    loser: Player
    first: dt.date
    last: dt.date
    flow: int
    coups: list[EvidenceCoup]
    spread: Spread
    discrimination: Discrimination
    #: per gaming day, everyone either of the two played against: (him, what the winner won from
    #: him, what the loser won from him), None for himself
    days: list[tuple[dt.date, list[tuple[Player, int | None, int | None]]]]


def flow_subject(*, casino_id: int, winner: int, loser: int, first: dt.date, last: dt.date) -> str:
    """A money-flow alert's subject: the pair and the period (one alert a pair and gaming day)."""
    return f"flow:{casino_id}:{loser}>{winner}:{first.isoformat()}:{last.isoformat()}"


def flow_subject_read(subject: str) -> tuple[int, int, int, dt.date, dt.date] | None:
    """``(casino_id, winner, loser, first, last)`` of a money-flow alert's subject."""
    try:
        prefix, casino, pair, first, last = subject.split(":")
        loser, winner = pair.split(">")
        if prefix != "flow":
            return None
        return int(casino), int(winner), int(loser), dt.date.fromisoformat(first), dt.date.fromisoformat(last)
    except ValueError:
        return None


def flow_evidence(*, subject: str) -> FlowEvidence | None:
    """What a money-flow alert shows: the period's flows of the pair, each coup they met in with
    the loser's option points facing the winner, his expectation given up beside the honest spread,
    and each day's flows of the two with everyone they played against."""
    read = flow_subject_read(subject)
    if read is None:
        return None
    casino_id, winner_id, loser_id, first, last = read
    casino = Casino.objects.get(pk=casino_id)
    duels = flow_duels(casino=casino, first=first, last=last)
    met, _, _ = pair_evidence(duels, (), winner=winner_id, loser=loser_id)
    banked = {d.coup_id for d in duels if d.banker == loser_id}
    by_coup = {cc.coup.pk: cc for cc in flow_choices(set(met) | banked)}
    choices = [c for cc in by_coup.values() for c in cc.choices()]
    _, spread, discrimination = pair_evidence(duels, choices, winner=winner_id, loser=loser_id)
    players = Player.objects.in_bulk(
        {winner_id, loser_id} | {d.banker for d in duels} | {d.punter for d in duels}
    )
    nets: dict[int, int] = defaultdict(int)
    for d in duels:
        if {d.banker, d.punter} == {winner_id, loser_id}:
            nets[d.coup_id] += d.punter_net if d.banker == loser_id else -d.punter_net
    coups = [
        EvidenceCoup(
            coup=by_coup[pk].coup,
            loser_net=nets[pk],
            points=[c for c in by_coup[pk].choices() if c.chooser == loser_id and c.opponent == winner_id],
        )
        for pk in met
    ]
    days = []
    two = (winner_id, loser_id)
    for day, won in flow_matrix(duels).items():
        others = sorted({b for (a, b) in won if a in two})
        rows = [
            (
                players[o],
                None if o == winner_id else won.get((winner_id, o), 0),
                None if o == loser_id else won.get((loser_id, o), 0),
            )
            for o in others
        ]
        if rows:
            days.append((day, rows))
    return FlowEvidence(
        casino_id=casino_id,
        winner=players[winner_id],
        loser=players[loser_id],
        first=first,
        last=last,
        flow=sum(nets.values()),
        coups=coups,
        spread=spread,
        discrimination=discrimination,
        days=days,
    )


#: how many money-flow alerts compliance's page lists, the latest first
FLOW_ALERTS_LISTED = 50


def flow_alerts_recent(*, casinos: frozenset[int] | None) -> list[Alert]:
    """The latest money-flow alerts of the casinos the reader sees, open or acknowledged."""
    alerts = Alert.objects.filter(kind=AlertKind.MONEY_FLOW).select_related("casino", "acknowledged_by")
    if casinos is not None:
        alerts = alerts.filter(casino_id__in=casinos)
    return list(alerts.order_by("-raised_at", "-pk")[:FLOW_ALERTS_LISTED])
