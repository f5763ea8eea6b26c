"""Reads for the older games' coups (Macao, Landsknecht, old baccarat): one view of a coup for
the croupier's screen, the REST API and the pit boss alike, so that what each shows of a coup and
of its legal next steps is the same thing (older_games.engine.game_play says what a step is)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from core.sentence import Sentence
from ledger.models import GAME_COUP_KINDS, Account, Entry, Transaction
from older_games.engine import game_play
from older_games.engine.game_play import FUND, POOL
from older_games.services import (
    coup_newcomers,
    coup_parties,
    coup_state,
    fund_balance,
    fund_dues_unpaid,
    fund_return_planned,
    game_steps_replayable,
    key_player_id,
    player_key,
    seating_of,
    seating_proposed,
    seating_sitting_out,
    unpaid_dues_refusal,
)
from tables.models import Casino, GameCoup, GameStep, Player, Table, TableSession
from tables.rating import CoupPlayed
from tables.wording import PARTY_LABELS


def game_coup_record_id(coup: GameCoup) -> str:
    """A game coup's id in the exported records and the books' reports (chemin de fer's are
    ``T<table>-session<s>-shoe<n>-coup<n>``, tables.engine_bridge.coup_record_id)."""
    return f"T{coup.table_id}-{coup.game}-coup{coup.number}"


def game_coup_exported_record(coup: GameCoup) -> dict[str, Any]:
    """A settled coup's line in the coup-records report (docs/coup-record.md, *Other games*): its
    id, its record, and the house settings it was played under (``"settings"``), so that
    ``validate_coups`` judges it as the table did."""
    return {"id": game_coup_record_id(coup), **(coup.record or {}), "settings": coup.house_settings}


@dataclass(frozen=True)
class GameCoupView:
    coup: GameCoup
    title: str
    #: names by key: ``player-<id>`` -> display name, plus the fund and the pool
    names: dict[str, str]
    banker: str
    punters: list[str]
    #: the legal next steps (older_games.engine.game_play.Option.as_dict), each with ``player_name``
    next_steps: list[dict[str, Any]]
    hands: dict[str, list[str]]
    #: what decides for each hand, as the game counts it (keyed as ``hands``; a hand with nothing
    #: to decide is left out): older_games.engine.game_play.GamePlay.scores
    scores: dict[str, game_play.HandScore]
    cards: list[str]
    exposure: dict[str, int]
    steps: list[dict[str, Any]]
    #: once settled: each party's net (by key) and the postings' ids
    net: dict[str, int] = field(default_factory=dict)
    transactions: list[int] = field(default_factory=list)
    #: whether the last step still in effect may be taken back (older_games.services.game_step_undo)
    can_undo: bool = False
    #: whether a player seated now may still join the coup (a step offered to a newcomer)
    admits_newcomers: bool = False
    #: the players who left the table during the coup (their seats are given up when it ends)
    leaving: list[str] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.coup.state != GameCoup.State.OPEN

    def name(self, key: str | None) -> str:
        return "" if key is None else self.names.get(key, key)


def _names(keys: list[str]) -> dict[str, str]:
    ids = [i for i in (key_player_id(k) for k in keys) if i is not None]
    found = dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))
    out = {player_key(pk): name for pk, name in found.items()}
    # English (the API answers these names), said again on a screen (tables.wording.say)
    out[FUND] = Sentence(PARTY_LABELS[FUND], {})
    out[POOL] = Sentence(PARTY_LABELS[POOL], {})
    return out


def _exposure_of(coup: GameCoup) -> dict[str, int]:
    """What each party of ``coup`` has at stake, on the steps of it that replay (all of them but in
    a coup changed in the database)."""
    steps = list(coup.steps.order_by("index").values_list("payload", flat=True))
    return game_play.play_for(coup.game).exposure(coup_state(coup, game_steps_replayable(coup, steps) or []))


def game_chips_at_stake(*, player: Player) -> dict[str, int]:
    """What ``player`` could still lose in the older games' coups in play at his casino, by the
    name of their table (nothing at stake: left out): the game's exposure on the steps entered so
    far, as a punter or as the banker (what the steps' own checks ask his chips to cover). A coup
    changed in the database is counted on the longest start of its steps that replays
    (``game_steps_replayable``), one whose seating cannot be read at nothing: the cage asks this
    before every cash-out, and a tampered coup must not stop the cage. Two statements, whatever
    the number of coups."""
    key = player_key(player.pk)
    coups = list(
        GameCoup.objects.filter(state=GameCoup.State.OPEN, table__casino_id=player.casino_id)
        .select_related("table")
        .order_by("table__name", "pk")
    )
    if not coups:
        return {}
    steps: dict[int, list[Any]] = {coup.pk: [] for coup in coups}
    for coup_id, payload in (
        GameStep.objects.filter(coup__in=coups).order_by("coup_id", "index").values_list("coup_id", "payload")
    ):
        steps[coup_id].append(payload)
    out: dict[str, int] = {}
    for coup in coups:
        payloads = game_steps_replayable(coup, steps[coup.pk])
        if payloads is None:
            continue
        most = game_play.play_for(coup.game).exposure(coup_state(coup, payloads)).get(key, 0)
        if most > 0:
            out[coup.table.name] = out.get(coup.table.name, 0) + most
    return out


def game_coup_view(coup: GameCoup) -> GameCoupView:
    play = game_play.play_for(coup.game)
    seating = seating_of(coup)
    step_rows = list(coup.steps.order_by("index").select_related("actor"))
    recorded = [s.payload for s in step_rows]
    # a step changed in the database may not replay: the coup is shown as far as its steps do, with
    # no next step (every one would be refused as changed: the pit boss's void is the way on)
    payloads = game_steps_replayable(coup, recorded) or []
    playable = len(payloads) == len(recorded)
    state = coup_state(coup, payloads)
    undone = game_play.undone_indexes(payloads)
    parties = coup_parties(coup, payloads)
    options: list[dict[str, Any]] = []
    offered: list[dict[str, Any]] = []
    effective = game_play.effective_steps(payloads)
    leaving = [str(p["player"]) for p in effective if p.get("kind") == game_play.LEAVE]
    if coup.state == GameCoup.State.OPEN and playable:
        offered = [o.as_dict() for o in play.options(state)]
        # the cut is a player's at the table ("банкомёт обязан дать одному из играющих снять колоду",
        # docs/games/old_baccarat.md): one who left is not offered it while a punter still at the
        # table can cut; when every punter who staked has left, the engine's cut by one of them
        # stays the way on (the next steps are empty only when the coup is over)
        staying = [o for o in offered if not (o["kind"] == "cut" and o.get("player") in leaving)]
        if any(o["kind"] == "cut" for o in staying) or not any(o["kind"] == "cut" for o in offered):
            offered = staying
        newcomers = list(coup_newcomers(coup, parties)) if any(o.get("newcomer") for o in offered) else []
        for option in offered:
            if not option.get("newcomer"):
                options.append(option)
                continue
            # one step per seated newcomer who has no such step of his own already
            own = {(o["kind"], o.get("player")) for o in offered if not o.get("newcomer")}
            options += [{**option, "player": key} for key in newcomers if (option["kind"], key) not in own]
    names = _names([*parties, *(o["player"] for o in options if "player" in o)])
    for option in options:
        if "player" in option:
            option["player_name"] = names.get(option["player"], option["player"])
    net: dict[str, int] = {}
    if coup.state == GameCoup.State.SETTLED:
        net = game_play.settle_check(play.transfers(state))
    return GameCoupView(
        coup=coup,
        title=play.title,
        names=names,
        banker=seating.banker,
        punters=list(seating.punters),
        next_steps=options,
        hands=play.hands(state),
        scores=play.scores(state),
        cards=list(play.cards(state)),
        exposure=play.exposure(state),
        steps=[
            {
                "index": s.index,
                "payload": s.payload,
                "actor": s.actor.get_username(),
                "at": s.created_at,
                "undone": i in undone,
            }
            for i, s in enumerate(step_rows)
        ],
        can_undo=coup.state == GameCoup.State.OPEN and playable and bool(effective),
        admits_newcomers=any(o.get("newcomer") for o in offered),
        leaving=leaving,
        net=net,
        transactions=list(
            Transaction.objects.filter(game_coup=coup).order_by("pk").values_list("pk", flat=True)
        ),
    )


@dataclass(frozen=True)
class GameTableView:
    """What the croupier sees at an older game's table between coups."""

    session: TableSession
    title: str
    open_coup: GameCoup | None
    recent: list[GameCoup]
    names: dict[str, str]
    #: the seating the next coup would start with, or why none can start yet
    proposed_banker: str | None
    proposed_punters: list[str]
    blocked: str
    unpaid_dues: list[Player]
    fund: int | None
    #: seated but left out of the next coup: no chips to play with (seating_proposed)
    sitting_out: list[Player] = field(default_factory=list)


def game_table_view(session: TableSession, *, recent: int = 10) -> GameTableView:
    from django.core.exceptions import ValidationError

    table = session.table
    play = game_play.play_for(table.game)
    open_coup = GameCoup.objects.filter(table=table, state=GameCoup.State.OPEN).first()
    # this session's coups only: a session reopened with other players starts with no "last coup"
    # (what the previous one paid is its own, on the table's coups page)
    coups = list(
        GameCoup.objects.filter(session=session).select_related("banker").order_by("-number")[:recent]
    )
    banker: str | None = None
    punters: list[str] = []
    blocked = ""
    sitting_out: list[Player] = []
    try:
        seating = seating_proposed(session)
        banker, punters = seating.banker, list(seating.punters)
        sitting_out = seating_sitting_out(session, seating)
    except ValidationError as exc:
        blocked = " ".join(exc.messages)
    unpaid = fund_dues_unpaid(session)
    if unpaid and not blocked:  # the start would refuse: say so before the croupier tries
        blocked = unpaid_dues_refusal(unpaid)
    names = _names([k for k in (banker, *punters) if k])
    return GameTableView(
        session=session,
        title=play.title,
        open_coup=open_coup,
        recent=coups,
        names=names,
        proposed_banker=banker,
        proposed_punters=punters,
        blocked=blocked,
        unpaid_dues=unpaid,
        fund=fund_balance(table) if table.game == table.Game.LANDSKNECHT else None,
        sitting_out=sitting_out,
    )


def fund_return_shares(session: TableSession, *, balance: int | None = None) -> list[tuple[str, int]]:
    """What closing ``session`` gives back of its table's reserve fund, payer by payer (keys, in
    the order they paid in); empty at a table without a fund, or with nothing in it to return.
    ``balance``: the fund's, when the caller has just read it."""
    planned = fund_return_planned(session, balance=balance) or {}
    return [(r["player"], r["amount"]) for r in planned.get("returned") or []]


def game_coups(*, table: Any = None, session: TableSession | None = None) -> QuerySet[GameCoup]:
    """Game coups, newest first, of a table or a session (for lists and pagination)."""
    qs = GameCoup.objects.select_related("table", "banker").order_by("-created_at", "-id")
    if table is not None:
        qs = qs.filter(table=table)
    if session is not None:
        qs = qs.filter(session=session)
    return qs


def game_coup_records(
    *, start: Any, end: Any, table: Table | None = None, casino: Casino | None = None
) -> Iterator[tuple[tuple[Any, int, int], dict[str, Any]]]:
    """The older games' settled coups created in [start, end) (a void or open one has no record),
    oldest first, each keyed ``(created_at, 1, pk)`` for the coup-records report's merge."""
    coups = GameCoup.objects.filter(state=GameCoup.State.SETTLED, created_at__gte=start, created_at__lt=end)
    if table is not None:
        coups = coups.filter(table=table)
    if casino is not None:
        coups = coups.filter(table__casino=casino)
    for coup in coups.order_by("created_at", "pk").iterator(chunk_size=500):
        yield (coup.created_at, 1, coup.pk), game_coup_exported_record(coup)


def game_rating_coups(*, player: Player, start: dt.datetime, end: dt.datetime) -> list[CoupPlayed]:
    """His settled coups of the older games ended in [start, end), for his rating slip
    (tables.rating): as banker, a bank held (no stake); as a punter, his stake is what he put at
    risk on the coup (the game's ``exposure``: Landsknecht's cover, old baccarat's stake, Macao's
    most a banker's 9 collects); his net is what the coup's postings moved on his account. The
    older games charge no levy."""
    key = player_key(player)
    coups = [
        c
        for c in GameCoup.objects.filter(
            table__casino_id=player.casino_id,
            state=GameCoup.State.SETTLED,
            ended_at__gte=start,
            ended_at__lt=end,
        ).order_by("ended_at", "pk")
        if c.banker_id == player.pk or key in c.seating.get("punters", ())
    ]
    nets: dict[int, int] = {}
    for coup_id, amount in Entry.objects.filter(
        account__kind=Account.Kind.PLAYER,
        account__player=player,
        transaction__kind__in=GAME_COUP_KINDS,
        transaction__game_coup_id__in=[c.pk for c in coups],
    ).values_list("transaction__game_coup_id", "amount"):
        nets[coup_id] = nets.get(coup_id, 0) + amount
    rows = []
    for coup in coups:
        banked = coup.banker_id == player.pk
        stake = 0 if banked else _exposure_of(coup).get(key, 0)
        if not (banked or stake or nets.get(coup.pk)):
            continue  # seated at the coup but not in it (a Landsknecht punter who covered nothing)
        assert coup.ended_at is not None  # settled coups only
        rows.append(
            CoupPlayed(
                session_id=coup.session_id,
                at=coup.ended_at,
                stake=stake,
                banked=banked,
                net=nets.get(coup.pk, 0),
            )
        )
    return rows
