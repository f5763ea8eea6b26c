"""Reads for the pit boss's and accounting's pages (docs/review.md). No writes here.

The corrections queue and a coup's review (recorded steps, the coup as played and as the engine
restores it, both settlements), and the dashboard's figures: open tables, flagged coups, shoe
alarms, croupier error rates and the real hold beside the levy the odds engine expects.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum
from django.db.models.fields.json import KT
from django.utils import timezone

from audit.selectors import ChainState, audit_chain_state
from tables.engine_bridge import coup_levy, coup_record, coup_replay, coup_restore, coup_verdict
from tables.models import (
    CORRECTION_KINDS,
    BankTax,
    BankTurn,
    Bet,
    Coup,
    CoupStep,
    Player,
    Shoe,
    ShoeAlarm,
    Table,
    TableSession,
)
from tables.permissions import can_approve
from tables.rules.coup import Action, Code, NeedsCards, Restored, Settlement
from tables.rules.judge import coup_settlement
from tables.rules.machine import CoupProgress
from tables.rules.odds import profile_odds
from tables.rules.profiles import LevyMode, Profile, profile_from_dict

#: what each violation code means, in the pit boss's words
VIOLATION_TEXT: dict[str, str] = {
    Code.BETS_EXCEED_BANK: "The bets add up to more than the bank.",
    Code.WRONG_ACTIVE_PUNTER: "The wrong punter played the hand.",
    Code.NATURAL_NOT_SHOWN: "A natural (8 or 9 on two cards) was not shown at once.",
    Code.CARD_AFTER_NATURAL: "A third card was dealt although a natural decided the coup.",
    Code.PLAYER_SHOULD_DRAW: "The player had to draw.",
    Code.PLAYER_SHOULD_STAND: "The player had to stand.",
    Code.BANKER_SHOULD_DRAW: "The banker had to draw.",
    Code.BANKER_SHOULD_STAND: "The banker had to stand.",
}

#: rows per page of the queue and of the dashboard's lists
QUEUE_PAGE_SIZE = 20
DASHBOARD_PAGE_SIZE = 10

SELF_REVIEW_REFUSAL = "You submitted this correction: another pit boss must approve or reject it."


# ------------------------------------------------------------------------------------- periods
@dataclass(frozen=True, slots=True)
class Period:
    """Whole local days, ``start`` to ``end`` inclusive (settings.TIME_ZONE)."""

    start: dt.date
    end: dt.date

    @property
    def bounds(self) -> tuple[dt.datetime, dt.datetime]:
        """[start 00:00, the day after end 00:00) as aware datetimes."""
        tz = timezone.get_current_timezone()
        return (
            dt.datetime.combine(self.start, dt.time.min, tzinfo=tz),
            dt.datetime.combine(self.end + dt.timedelta(days=1), dt.time.min, tzinfo=tz),
        )

    @property
    def label(self) -> str:
        return f"{self.start:%Y-%m-%d}_{self.end:%Y-%m-%d}"

    @classmethod
    def last_days(cls, days: int = 7, *, today: dt.date | None = None) -> Period:
        today = today or timezone.localdate()
        return cls(start=today - dt.timedelta(days=days - 1), end=today)


def percent(value: Fraction | None, digits: int = 2) -> str:
    """A share as a percentage for the screen ("4.56 %"); "—" when undefined."""
    return "—" if value is None else f"{float(value) * 100:.{digits}f} %"


def violation_items(codes: list[str]) -> list[tuple[str, str]]:
    return [(code, VIOLATION_TEXT.get(code, code)) for code in codes]


# ------------------------------------------------------------------------------ the queue
def _latest_correction(field: Any) -> Subquery:
    """A subquery for one value of the coup's latest correction step (a field or a JSON key)."""
    steps = CoupStep.objects.filter(coup=OuterRef("pk"), kind=CoupStep.Kind.CORRECTION).order_by("-index")
    return Subquery(steps.values(field)[:1] if isinstance(field, str) else steps.values(value=field)[:1])


def _for_queue(coups: QuerySet[Coup]) -> QuerySet[Coup]:
    return (
        coups.select_related("shoe", "shoe__table", "banker")
        .annotate(
            submitted_by_id=_latest_correction("actor_id"),
            submitted_by_name=_latest_correction("actor__username"),
            submitted_at=_latest_correction("created_at"),
            played_outcome=Subquery(
                CoupStep.objects.filter(coup=OuterRef("pk"), kind=CoupStep.Kind.REVEAL).values(
                    outcome=KT("payload__verdict__outcome")
                )[:1]
            ),
            restored_outcome=_latest_correction(KT("payload__restored__outcome")),
        )
        .prefetch_related(
            Prefetch(
                "steps",
                queryset=CoupStep.objects.exclude(violations=[]).order_by("index"),
                to_attr="wrong_steps",
            )
        )
    )


def review_queue(*, table: Table | None = None) -> QuerySet[Coup]:
    """Coups whose restored settlement waits for a pit boss, oldest coup first, each annotated
    with who submitted the correction and when (``submitted_by_id``, ``submitted_by_name``,
    ``submitted_at``), the outcome as played and as restored, its wrong steps prefetched as
    ``wrong_steps``."""
    coups = Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL)
    if table is not None:
        coups = coups.filter(shoe__table=table)
    return _for_queue(coups).order_by("created_at", "pk")


def review_queue_count() -> int:
    return Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL).count()


def review_refusal(*, user: Any, submitted_by_id: int | None) -> str:
    """Why ``user`` may not approve or reject this correction ("" when he may): the services
    check the same (tables.services.corrections)."""
    if not can_approve(user):
        return "Only a pit boss may approve or reject a correction."
    if submitted_by_id == user.pk:
        return SELF_REVIEW_REFUSAL
    return ""


# ------------------------------------------------------------------------------ one coup
@dataclass(frozen=True)
class StepLine:
    step: CoupStep
    label: str
    detail: str
    violations: list[tuple[str, str]]


@dataclass(frozen=True)
class Hands:
    """Two hands, their totals and the outcome (the coup as played, or as restored)."""

    player_cards: tuple[str, ...]
    banker_cards: tuple[str, ...]
    player_total: int
    banker_total: int
    outcome: str
    player_action: str
    banker_action: str
    void_cards: tuple[str, ...] = ()
    extra_cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class SettlementLine:
    who: str
    amount: int


@dataclass(frozen=True)
class SettlementView:
    covered: int
    uncovered: int
    tax: int
    banker_net: int
    punters: list[SettlementLine]
    next_bank_min: int | None


@dataclass(frozen=True)
class CoupReview:
    coup: Coup
    steps: list[StepLine]
    violations: list[tuple[str, str]]
    played: Hands | None
    restored: Hands | None
    needs_cards: int | None  # the restoration needs this many more cards (no correction yet)
    settlement_played: SettlementView | None
    settlement_restored: SettlementView | None
    correction: CoupStep | None  # the latest correction submitted
    decision: CoupStep | None  # its approval or rejection, if any
    refusal: str  # why the viewer may not approve/reject ("" when he may)

    @property
    def awaiting_approval(self) -> bool:
        return self.coup.state == Coup.State.AWAITING_APPROVAL


def _names(coup: Coup) -> dict[str, str]:
    """Engine punter keys (``seat-4``, ``spectator-17``) to ``seat 4 · Name`` for the screen."""
    names: dict[str, str] = {}
    for bet in Bet.objects.filter(coup=coup).select_related("seat__player", "spectator__player"):
        if bet.seat_id is not None:
            names[f"seat-{bet.seat.number}"] = f"seat {bet.seat.number} · {bet.seat.player.display_name}"
        else:
            names[f"spectator-{bet.spectator_id}"] = f"spectator · {bet.spectator.player.display_name}"
    if coup.bank_turn_id is not None:
        seat = coup.bank_turn.seat
        names[f"seat-{seat.number}"] = f"seat {seat.number} · {coup.banker.display_name} (banker)"
    return names


def _step_detail(step: CoupStep, names: dict[str, str]) -> str:
    p = step.payload or {}
    kind = step.kind
    if kind == CoupStep.Kind.BANK_DECLARED:
        return f"bank {p.get('amount')} by {names.get(p.get('banker', ''), p.get('banker', ''))}"
    if kind == CoupStep.Kind.BET:
        return f"{names.get(p.get('punter', ''), p.get('punter', ''))} bets {p.get('amount')}"
    if kind == CoupStep.Kind.BANCO:
        callers = ", ".join(names.get(c["punter"], c["punter"]) for c in p.get("callers", []))
        return f"banco by {callers}; plays: {names.get(p.get('winner', ''), p.get('winner', ''))}"
    if kind in (CoupStep.Kind.CARD_TO_PLAYER, CoupStep.Kind.CARD_TO_BANKER):
        return p.get("card", "")
    if kind == CoupStep.Kind.REVEAL:
        v = p.get("verdict") or {}
        return f"player {v.get('player_total')}, banker {v.get('banker_total')}: {v.get('outcome')}"
    if kind == CoupStep.Kind.CORRECTION:
        cards = ", ".join(p.get("cards", [])) or "none"
        restored = p.get("restored") or {}
        return f"cards from the shoe: {cards}; restored outcome: {restored.get('outcome', '?')}"
    if kind == CoupStep.Kind.CORRECTION_REJECTED:
        return f"reason: {p.get('reason', '')}"
    if kind == CoupStep.Kind.CORRECTION_APPROVED:
        return "restored settlement is final"
    return ""


def _hands_played(coup: Coup, state: CoupProgress) -> Hands:
    verdict = coup_verdict(coup, state)  # its totals and outcome are the coup as played
    return Hands(
        player_cards=state.player_cards,
        banker_cards=state.banker_cards,
        player_total=verdict.player_total,
        banker_total=verdict.banker_total,
        outcome=verdict.outcome.value,
        player_action=(state.player_action or Action.NONE).value,
        banker_action=(state.banker_action or Action.NONE).value,
    )


def _hands_restored(restored: Restored) -> Hands:
    return Hands(
        player_cards=restored.player_cards,
        banker_cards=restored.banker_cards,
        player_total=restored.player_total,
        banker_total=restored.banker_total,
        outcome=restored.outcome.value,
        player_action=restored.player_action.value,
        banker_action=restored.banker_action.value,
        void_cards=restored.void_cards,
        extra_cards=restored.extra_cards,
    )


def _settlement_view(s: Settlement, names: dict[str, str]) -> SettlementView:
    return SettlementView(
        covered=s.covered,
        uncovered=s.uncovered,
        tax=s.tax,
        banker_net=s.banker_net,
        punters=[SettlementLine(names.get(k, k), v) for k, v in s.punters.items()],
        next_bank_min=s.next_bank_min,
    )


def settlement_as_played(coup: Coup, state: CoupProgress) -> Settlement | None:
    """What the table would have paid had the coup stood as played: the engine's settlement of
    the outcome as played (the verdict's own settlement is the restored one)."""
    if state.bank is None or state.covered > state.bank:
        return None
    record = coup_record(coup, state)
    outcome = coup_verdict(coup, state).outcome
    return coup_settlement(
        record, state.rules, outcome=outcome, player_action=record.player.action, levy=coup_levy(coup)
    )


def coup_review(*, coup: Coup, user: Any) -> CoupReview:
    """A coup as recorded, step by step, beside the engine's restoration of it."""
    coup = Coup.objects.select_related(
        "shoe", "shoe__table", "shoe__table__casino", "banker", "bank_turn", "bank_turn__seat"
    ).get(pk=coup.pk)
    rows = list(coup.steps.select_related("actor").order_by("index"))
    names = _names(coup)
    steps = [
        StepLine(
            step=r,
            label=r.get_kind_display(),
            detail=_step_detail(r, names),
            violations=violation_items(r.violations),
        )
        for r in rows
    ]
    state = coup_replay(coup, rows)
    corrections = [r for r in rows if r.kind == CoupStep.Kind.CORRECTION]
    correction = corrections[-1] if corrections else None
    decision = next(
        (
            r
            for r in rows
            if correction is not None
            and r.corrects_id == correction.pk
            and r.kind in (CoupStep.Kind.CORRECTION_APPROVED, CoupStep.Kind.CORRECTION_REJECTED)
        ),
        None,
    )
    revealed = any(r.kind == CoupStep.Kind.REVEAL for r in rows)
    played = _hands_played(coup, state) if revealed else None
    restored_hands: Hands | None = None
    needs_cards: int | None = None
    settlement_played = settlement_restored = None
    if revealed:
        sp = settlement_as_played(coup, state)
        settlement_played = _settlement_view(sp, names) if sp is not None else None
        if coup.flagged:
            # the cards of the correction under review (or approved); none after a rejection
            cards: tuple[str, ...] = ()
            if correction is not None and (
                decision is None or decision.kind == CoupStep.Kind.CORRECTION_APPROVED
            ):
                cards = tuple(correction.payload.get("cards", []))
            restored = coup_restore(coup, state, cards)
            if isinstance(restored, NeedsCards):
                needs_cards = restored.needs_cards
            else:
                restored_hands = _hands_restored(restored)
                sr = coup_verdict(coup, state, shoe_next=cards).settlement
                settlement_restored = _settlement_view(sr, names) if sr is not None else None
    refusal = ""
    if coup.state == Coup.State.AWAITING_APPROVAL and correction is not None:
        refusal = review_refusal(user=user, submitted_by_id=correction.actor_id)
    return CoupReview(
        coup=coup,
        steps=steps,
        violations=violation_items([code for r in rows for code in r.violations]),
        played=played,
        restored=restored_hands,
        needs_cards=needs_cards,
        settlement_played=settlement_played,
        settlement_restored=settlement_restored,
        correction=correction,
        decision=decision,
        refusal=refusal,
    )


# ------------------------------------------------------------------------------ dashboard
@dataclass(frozen=True)
class OpenTable:
    table: Table
    session: TableSession
    shoe: Shoe | None
    cards_dealt: int
    cards_left: int
    banker: Player | None
    bank: int | None  # the bank of the latest coup of this bank turn
    required_minimum: int | None
    coup_in_play: Coup | None


def open_tables(*, table: Table | None = None) -> list[OpenTable]:
    """Tables with an open session: the shoe in play (cards dealt, left, stop card), who holds
    the bank and what it is."""
    sessions = TableSession.objects.filter(closed_at__isnull=True).select_related(
        "table", "table__casino", "table__profile"
    )
    if table is not None:
        sessions = sessions.filter(table=table)
    result = []
    for session in sessions.order_by("table__casino__name", "table__name"):
        shoe = (
            Shoe.objects.filter(session=session, state=Shoe.State.OPEN).annotate(dealt=Count("cards")).first()
        )
        turn = (
            BankTurn.objects.filter(session=session, ended_at__isnull=True).select_related("player").first()
        )
        last = Coup.objects.filter(bank_turn=turn).order_by("-created_at", "-pk").first() if turn else None
        in_play = (
            Coup.objects.filter(shoe__session=session)
            .exclude(state__in=[Coup.State.SETTLED, Coup.State.VOID])
            .order_by("-created_at", "-pk")
            .first()
        )
        result.append(
            OpenTable(
                table=session.table,
                session=session,
                shoe=shoe,
                cards_dealt=shoe.dealt if shoe else 0,
                cards_left=52 * shoe.decks - shoe.dealt if shoe else 0,
                banker=turn.player if turn else None,
                bank=last.bank if last else None,
                required_minimum=turn.required_minimum if turn else None,
                coup_in_play=in_play,
            )
        )
    return result


def flagged_coups(*, period: Period, table: Table | None = None) -> QuerySet[Coup]:
    """Coups played wrongly in the period, newest first, their wrong steps as ``wrong_steps``."""
    start, end = period.bounds
    coups = Coup.objects.filter(flagged=True, created_at__gte=start, created_at__lt=end)
    if table is not None:
        coups = coups.filter(shoe__table=table)
    return (
        coups.select_related("shoe", "shoe__table", "banker")
        .prefetch_related(
            Prefetch(
                "steps",
                queryset=CoupStep.objects.exclude(violations=[]).select_related("actor").order_by("index"),
                to_attr="wrong_steps",
            )
        )
        .order_by("-created_at", "-pk")
    )


def shoe_alarms(*, period: Period, table: Table | None = None) -> QuerySet[ShoeAlarm]:
    """Impossible cards and early reshuffles raised in the period, newest first."""
    start, end = period.bounds
    alarms = ShoeAlarm.objects.filter(raised_at__gte=start, raised_at__lt=end)
    if table is not None:
        alarms = alarms.filter(shoe__table=table)
    return alarms.select_related("shoe", "shoe__table", "coup").order_by("-raised_at", "-pk")


@dataclass(frozen=True)
class CroupierRate:
    user_id: int
    username: str
    coups: int  # coups in which he recorded at least one step of the game
    steps: int  # steps of the game he recorded
    wrong_steps: int  # of which confirmed against the rules (recorded with a violation)

    @property
    def rate(self) -> Fraction | None:
        """Wrong steps per coup recorded (shown as a percentage)."""
        return Fraction(self.wrong_steps, self.coups) if self.coups else None

    @property
    def rate_display(self) -> str:
        return percent(self.rate, 1)


def croupier_error_rates(*, period: Period, table: Table | None = None) -> list[CroupierRate]:
    """Per person who recorded steps of the game in the period (the correction workflow's own
    steps are not counted): coups, steps, steps confirmed against the rules. Imported
    histories are left out: no croupier recorded them live."""
    start, end = period.bounds
    steps = CoupStep.objects.filter(
        created_at__gte=start, created_at__lt=end, coup__shoe__imported=False
    ).exclude(kind__in=[k.value for k in CORRECTION_KINDS])
    if table is not None:
        steps = steps.filter(coup__shoe__table=table)
    rows = (
        steps.values("actor_id", "actor__username")
        .annotate(
            coups=Count("coup", distinct=True),
            steps=Count("id"),
            wrong=Count("id", filter=~Q(violations=[])),
        )
        .order_by("actor__username")
    )
    return [
        CroupierRate(r["actor_id"], r["actor__username"], r["coups"], r["steps"], r["wrong"]) for r in rows
    ]


@functools.lru_cache(maxsize=64)
def expected_levy_per_unit(profile: Profile, decks: int, rate_bp: int) -> Fraction:
    """The odds engine's expected levy per unit of covered stake for a fresh shoe of ``decks``
    decks, at the levy rate the casino actually charged (memoised: ~20 ms each)."""
    if rate_bp == 0:
        return Fraction(0)
    charged = replace(profile, levy_mode=LevyMode.PERCENTAGE, tax_rate_bp=rate_bp)
    return profile_odds(charged, decks=decks).expected_levy_per_unit


@dataclass(frozen=True)
class HoldRow:
    table: Table
    coups: int
    covered: int
    levy: int
    expected_levy: Fraction  # sum of covered * expected levy per unit, over the shoes' deck counts

    @property
    def hold(self) -> Fraction | None:
        """Levy collected per unit of covered stake."""
        return Fraction(self.levy, self.covered) if self.covered else None

    @property
    def expected(self) -> Fraction | None:
        """Expected levy per unit of covered stake (weighted by the stakes of each shoe size)."""
        return self.expected_levy / self.covered if self.covered else None

    @property
    def hold_display(self) -> str:
        return percent(self.hold, 3)

    @property
    def expected_display(self) -> str:
        return percent(self.expected, 3)

    @property
    def difference_display(self) -> str:
        """Hold minus expected, in percentage points."""
        if self.hold is None or self.expected is None:
            return "—"
        return f"{float(self.hold - self.expected) * 100:+.3f} pt"


def _settled_in(period: Period) -> Q:
    start, end = period.bounds
    return Q(state=Coup.State.SETTLED, settled_at__gte=start, settled_at__lt=end)


def hold_vs_expected(*, period: Period, table: Table | None = None) -> list[HoldRow]:
    """Per table, the coups settled in the period: the levy collected (BankTax) over the covered
    stakes, beside the odds engine's expected levy per unit covered."""
    coups = Coup.objects.filter(_settled_in(period))
    if table is not None:
        coups = coups.filter(shoe__table=table)
    groups = (
        Bet.objects.filter(coup__in=coups, withdrawn=False)
        .values("coup__shoe__table_id", "coup__shoe__decks", "coup__rules")
        .annotate(covered=Sum("amount"), coups=Count("coup", distinct=True))
        .order_by()
    )
    levies = dict(
        BankTax.objects.filter(coup__in=coups)
        .values("coup__shoe__table_id")
        .annotate(levy=Sum("amount"))
        .order_by()
        .values_list("coup__shoe__table_id", "levy")
    )
    totals: dict[int, dict[str, Any]] = {}
    for g in groups:
        rules = g["coup__rules"]
        rate = rules["levy"]["rate_bp"]
        per_unit = expected_levy_per_unit(profile_from_dict(rules["profile"]), g["coup__shoe__decks"], rate)
        t = totals.setdefault(g["coup__shoe__table_id"], {"coups": 0, "covered": 0, "expected": Fraction(0)})
        t["coups"] += g["coups"]
        t["covered"] += g["covered"]
        t["expected"] += per_unit * g["covered"]
    tables = Table.objects.in_bulk(list(totals))
    rows = [
        HoldRow(
            table=tables[table_id],
            coups=t["coups"],
            covered=t["covered"],
            levy=levies.get(table_id, 0),
            expected_levy=t["expected"],
        )
        for table_id, t in totals.items()
    ]
    return sorted(rows, key=lambda r: (r.table.casino_id, r.table.name))


# ------------------------------------------------------------------------------ exports' reads
@dataclass(frozen=True, slots=True)
class SettledCoupFacts:
    coup_id: int
    table_id: int
    table_name: str
    settled_at: dt.datetime
    outcome: str  # as settled: the approved restoration's outcome for a corrected coup
    covered: int
    levy: int


def settled_coup_facts(*, period: Period, table: Table | None = None) -> Iterator[SettledCoupFacts]:
    """Every coup settled in the period, oldest first, streamed from the database."""
    coups = Coup.objects.filter(_settled_in(period))
    if table is not None:
        coups = coups.filter(shoe__table=table)
    covered = (
        Bet.objects.filter(coup=OuterRef("pk"), withdrawn=False)
        .order_by()
        .values("coup")
        .annotate(s=Sum("amount"))
        .values("s")
    )
    revealed = CoupStep.objects.filter(coup=OuterRef("pk"), kind=CoupStep.Kind.REVEAL).values(
        o=KT("payload__verdict__outcome")
    )[:1]
    approved = (
        CoupStep.objects.filter(coup=OuterRef("pk"), kind=CoupStep.Kind.CORRECTION)
        .order_by("-index")
        .values(o=KT("payload__restored__outcome"))[:1]
    )
    rows = (
        coups.annotate(
            covered_sum=Subquery(covered, output_field=IntegerField()),
            played=Subquery(revealed),
            restored=Subquery(approved),
        )
        .order_by("settled_at", "pk")
        .values_list(
            "pk",
            "shoe__table_id",
            "shoe__table__name",
            "settled_at",
            "played",
            "restored",
            "covered_sum",
            "tax__amount",
        )
    )
    for pk, table_id, name, settled_at, played, restored, covered_sum, levy in rows.iterator(chunk_size=2000):
        yield SettledCoupFacts(
            coup_id=pk,
            table_id=table_id,
            table_name=name,
            settled_at=settled_at,
            outcome=restored or played or "",
            covered=covered_sum or 0,
            levy=levy or 0,
        )


# ------------------------------------------------------------------------------ page models
@dataclass(frozen=True)
class QueueRow:
    coup: Coup  # annotated by review_queue
    violations: list[tuple[str, str]]
    refusal: str
    decided: CoupStep | None = None  # set when the row is re-rendered after a decision


def queue_rows(coups: Iterable[Coup], *, user: Any) -> list[QueueRow]:
    return [
        QueueRow(
            coup=c,
            violations=violation_items([code for s in c.wrong_steps for code in s.violations]),
            refusal=review_refusal(user=user, submitted_by_id=c.submitted_by_id),
        )
        for c in coups
    ]


def queue_row_after_decision(*, coup: Coup, user: Any) -> QueueRow:
    """A queue row re-rendered after the pit boss decided (the coup has left the queue)."""
    coup = _for_queue(Coup.objects.filter(pk=coup.pk)).get()
    decided = (
        coup.steps.filter(kind__in=[CoupStep.Kind.CORRECTION_APPROVED, CoupStep.Kind.CORRECTION_REJECTED])
        .select_related("actor")
        .order_by("-index")
        .first()
    )
    row = queue_rows([coup], user=user)[0]
    return replace(row, decided=decided)


def _page(items: QuerySet, number: Any) -> Page:
    return Paginator(items, DASHBOARD_PAGE_SIZE).get_page(number)


@dataclass(frozen=True)
class Dashboard:
    period: Period
    table: Table | None
    open_tables: list[OpenTable]
    queue_count: int
    flagged: Page
    alarms: Page
    rates: list[CroupierRate]
    hold: list[HoldRow]
    chain: ChainState


def dashboard(
    *, period: Period, table: Table | None = None, flagged_page: Any = 1, alarms_page: Any = 1
) -> Dashboard:
    """Everything the dashboard shows for a period and (optionally) one table."""
    return Dashboard(
        period=period,
        table=table,
        open_tables=open_tables(table=table),
        queue_count=review_queue_count(),
        flagged=_page(flagged_coups(period=period, table=table), flagged_page),
        alarms=_page(shoe_alarms(period=period, table=table), alarms_page),
        rates=croupier_error_rates(period=period, table=table),
        hold=hold_vs_expected(period=period, table=table),
        chain=audit_chain_state(),
    )
