"""Reads for the pit boss's pages of the older games (Macao, Landsknecht, old baccarat;
docs/review.md, "The older games"): a table's coups, page by page, and one coup's review — its
steps with who entered them and when, the hands, the outcome, the ledger's postings, the record
and the offline judge's verdict on it. What a coup shows of itself is the croupier's own view
(older_games.selectors.game_coup_view); this adds what only the back office reads."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from core.sentence import Card, Listing, Sentence, Word
from ledger.models import Entry, Transaction
from older_games.engine import game_play
from older_games.engine.game_play import StepRefused
from older_games.selectors import GameCoupView, game_coup_record_id, game_coup_view, game_coups
from review.models import AlertKind, AlertSettings
from review.selectors.alerts import AlertCandidate
from review.selectors.live import coups_last_hour, last_step_times
from review.wording import ALERT_GAME_UNFINISHED
from tables.games import LiveCoup
from tables.models import OLDER_GAMES, GameCoup, GameStep, Table
from tables.wording import HAND_LABELS, account_name

#: coups per page of a table's list
GAME_COUPS_PAGE_SIZE = 25


@dataclass(frozen=True)
class PostingLine:
    account: str
    amount: int


@dataclass(frozen=True)
class Posting:
    transaction: Transaction
    lines: list[PostingLine]


@dataclass(frozen=True)
class StepLine:
    index: int
    kind: str
    #: the step's other fields for reading (a player by name, a card, an amount, a decision)
    detail: str
    actor: str
    at: Any
    #: taken back by a later ``undo`` (or an undo itself): struck through, not in the replay
    undone: bool = False


@dataclass(frozen=True)
class GameCoupReview:
    view: GameCoupView
    record_id: str
    steps: list[StepLine]
    #: party name -> cards, for the screen
    hands: list[tuple[str, list[str]]]
    #: each party's net by name, once settled
    net: list[tuple[str, int]]
    postings: list[Posting]
    record_json: str
    #: the offline judge's verdict on the coup's record under its house settings (None while open
    #: or void), and what it says when it cannot read the record
    verdict: dict[str, Any] | None
    verdict_json: str
    verdict_error: str

    @property
    def coup(self) -> GameCoup:
        return self.view.coup

    @property
    def judge_agrees(self) -> bool | None:
        """Whether the judge's settlement is the one posted (None: nothing to compare)."""
        if self.verdict is None:
            return None
        settlement = self.verdict.get("settlement") or {}
        judged = {k: v for k, v in (settlement.get("net") or {}).items() if v}
        return not self.verdict.get("violations") and judged == {k: v for k, v in self.view.net.items() if v}


def _step_detail(payload: dict[str, Any], view: GameCoupView) -> str:
    """The step's fields in a line (English; a page says it in its language, its card as a symbol:
    tables.wording.say)."""
    if payload.get("kind") == game_play.UNDO:  # what it took back, and why
        of = payload.get("of")
        taken: dict[str, Any] = of if isinstance(of, dict) else {}
        kind = Word(str(taken.get("kind", "")), "game step")
        inner = Listing((p for p in (kind, _step_detail(taken, view)) if p), sep=" · ")
        return Listing((p for p in (inner, str(payload.get("reason", ""))) if p), sep=" · ")
    parts: list[str] = []
    if "player" in payload:
        parts.append(view.name(str(payload["player"])))
    if "card" in payload:
        parts.append(Card(str(payload["card"])))
    if "amount" in payload:
        parts.append(str(payload["amount"]))
    if "decision" in payload:
        parts.append(Word(str(payload["decision"]), "game choice"))
    return Listing(parts, sep=" · ")


def _hand_name(view: GameCoupView, key: str) -> str:
    """Whose hand: a player's name, or what a hand that is nobody's is called (Landsknecht's
    punters' card, the cards between), a label the page says in its language."""
    return Sentence(HAND_LABELS[key], {}) if key in HAND_LABELS else view.name(key)


def game_coup_review(coup: GameCoup) -> GameCoupReview:
    view = game_coup_view(coup)
    steps = [
        StepLine(
            s["index"],
            str(s["payload"].get("kind", "")),
            _step_detail(s["payload"], view),
            s["actor"],
            s["at"],
            bool(s.get("undone")),
        )
        for s in view.steps
    ]
    entries: dict[int, list[PostingLine]] = {}
    for txn_id, name, amount in (
        Entry.objects.filter(transaction__game_coup=coup)
        .order_by("transaction_id", "account__name", "pk")
        .values_list("transaction_id", "account__name", "amount")
    ):
        entries.setdefault(txn_id, []).append(PostingLine(account_name(name), amount))
    postings = [
        Posting(t, entries.get(t.pk, [])) for t in Transaction.objects.filter(game_coup=coup).order_by("pk")
    ]
    verdict: dict[str, Any] | None = None
    error = ""
    if coup.state == GameCoup.State.SETTLED and coup.record is not None:
        play = game_play.play_for(coup.game)
        try:
            verdict = play.verdict(
                play.settings(coup.house_settings), {"id": game_coup_record_id(coup), **coup.record}
            )
        except StepRefused as exc:
            error = str(exc)
    return GameCoupReview(
        view=view,
        record_id=game_coup_record_id(coup),
        steps=steps,
        hands=[(_hand_name(view, k), cards) for k, cards in view.hands.items()],
        net=[(view.name(k), v) for k, v in view.net.items()],
        postings=postings,
        record_json=json.dumps(coup.record, indent=1, sort_keys=False) if coup.record else "",
        verdict=verdict,
        verdict_json=json.dumps(verdict, indent=1) if verdict is not None else "",
        verdict_error=error,
    )


def game_tables() -> QuerySet[Table]:
    """The tables that deal an older game, for the pit boss's links."""
    return Table.objects.filter(game__in=[g.value for g in OLDER_GAMES]).order_by("name", "pk")


def table_game_coups(table: Table) -> QuerySet[GameCoup]:
    """A table's game coups, newest first (older_games.selectors.game_coups), for a paginated list."""
    return game_coups(table=table).order_by("-number")


def live_coups(tables: list[Any], now: dt.datetime) -> tuple[dict[int, LiveCoup], dict[int, int]]:
    """For the live pit (review.selectors.live, ``tables``: its open tables of these games): the
    open coup of each table (one per table at most) with its last step, and each table's coups of
    the last hour; three queries for all the tables."""
    if not tables:
        return {}, {}
    sessions = [t.session.pk for t in tables if t.session is not None]
    last_hour = coups_last_hour(
        coups=GameCoup.objects.filter(session__in=sessions), table="table_id", now=now
    )
    coups = {
        c.pk: c
        for c in GameCoup.objects.filter(table__in=[t.table.pk for t in tables], state=GameCoup.State.OPEN)
        .select_related("banker")
        .order_by()
    }
    last = last_step_times(steps=GameStep.objects.filter(coup__in=list(coups)))
    out = {}
    for pk, coup in coups.items():
        at = last.get(pk) or coup.created_at
        out[coup.table_id] = LiveCoup(
            coup=coup,
            steps=coup.step_count,
            last_step_at=at,
            minutes_since_last_step=max(0, int((now - at).total_seconds() // 60)),
        )
    return out, last_hour


def alert_candidates(*, now: dt.datetime, thresholds: dict[int, AlertSettings]) -> list[AlertCandidate]:
    """The alerts' scan (review.selectors.alerts): the older games' coups in play (one per table at
    most) past their casino's ``unfinished_minutes``; the alert names the table (its ``coup`` is
    chemin de fer's): the key says which game coup."""
    shortest = min((s.unfinished_minutes for s in thresholds.values()), default=15)
    found: list[AlertCandidate] = []
    games = GameCoup.objects.filter(
        state=GameCoup.State.OPEN, created_at__lt=now - dt.timedelta(minutes=shortest)
    ).select_related("table")
    for g in games.order_by("pk"):
        minutes = int((now - g.created_at).total_seconds() // 60)
        if minutes < thresholds[g.table.casino_id].unfinished_minutes:
            continue
        found.append(
            AlertCandidate(
                kind=AlertKind.UNFINISHED_COUP,
                subject_key=f"gamecoup:{g.pk}",
                summary=ALERT_GAME_UNFINISHED.format(
                    table=g.table.name,
                    game=g.get_game_display(),
                    number=g.number,
                    minutes=minutes,
                    steps=g.step_count,
                ),
                casino_id=g.table.casino_id,
                table_id=g.table_id,
            )
        )
    return found
