"""Reads for the dashboard (docs/review.md): open tables, flagged coups, shoe alarms, croupier error
rates, the real hold beside the levy the odds engine expects. No writes here."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Prefetch, Q, QuerySet, Sum

from audit.models import GLOBAL_CHAIN
from audit.selectors import ChainState, audit_chain_state
from ledger.models import BooksVerification
from review.selectors.queue import review_queue_count
from tables.gaming_day import Period
from tables.models import (
    Coup,
    CoupStep,
    CroupierDay,
    Player,
    Shoe,
    ShoeAlarm,
    Table,
    TableDay,
    TableSession,
)
from tables.permissions import in_casinos
from tables.selectors import TableNow, tables_now

#: rows per page of the dashboard's lists
DASHBOARD_PAGE_SIZE = 10


@dataclass(frozen=True)
class OpenTable:
    """A row of the open tables: the dashboard's view of ``tables.selectors.TableNow``."""

    now: TableNow

    @property
    def table(self) -> Table:
        return self.now.table

    @property
    def session(self) -> TableSession | None:
        return self.now.session

    @property
    def shoe(self) -> Shoe | None:
        return self.now.shoe

    @property
    def cards_dealt(self) -> int:
        return self.now.cards_dealt

    @property
    def cards_left(self) -> int:
        return self.now.cards_left

    @property
    def banker(self) -> Player | None:
        return self.now.bank.player if self.now.bank else None

    @property
    def bank(self) -> int | None:
        """The bank of the latest coup of this bank turn."""
        return self.now.bank_coup.bank if self.now.bank_coup else None

    @property
    def required_minimum(self) -> int | None:
        return self.now.bank.required_minimum if self.now.bank else None

    @property
    def coup_in_play(self) -> Coup | None:
        return self.now.coup

    @property
    def awaiting_approval(self) -> list[Coup]:
        return self.now.awaiting_approval


def open_tables(*, table: Table | None = None, casinos: frozenset[int] | None = None) -> list[OpenTable]:
    """Tables with an open session: the shoe in play (cards dealt, left, stop card), who holds
    the bank and what it is, the coup in play and the restored ones awaiting approval."""
    tables = Table.objects.filter(
        pk__in=TableSession.objects.filter(closed_at__isnull=True).values("table")
    ).select_related("casino", "profile")
    tables = in_casinos(tables, casinos, "casino")
    if table is not None:
        tables = tables.filter(pk=table.pk)
    return [OpenTable(now) for now in tables_now(tables=tables.order_by("casino__name", "name", "pk"))]


def flagged_coups(
    *, period: Period, table: Table | None = None, casinos: frozenset[int] | None = None
) -> QuerySet[Coup]:
    """Coups played wrongly in the period, newest first, their wrong steps as ``wrong_steps``."""
    start, end = period.bounds
    coups = Coup.objects.filter(flagged=True, created_at__gte=start, created_at__lt=end)
    coups = in_casinos(coups, casinos, "shoe__table__casino")
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


def shoe_alarms(
    *, period: Period, table: Table | None = None, casinos: frozenset[int] | None = None
) -> QuerySet[ShoeAlarm]:
    """Impossible cards and early reshuffles raised in the period, newest first."""
    start, end = period.bounds
    alarms = ShoeAlarm.objects.filter(raised_at__gte=start, raised_at__lt=end)
    alarms = in_casinos(alarms, casinos, "shoe__table__casino")
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
        """Wrong steps per coup recorded (a screen shows it as a percentage: core.numbers)."""
        return Fraction(self.wrong_steps, self.coups) if self.coups else None


def _days_of(period: Period) -> Q:
    """The rollups' rows of a period: its days are gaming days of each table's casino."""
    return Q(gaming_day__gte=period.start, gaming_day__lte=period.end)


def croupier_error_rates(
    *, period: Period, table: Table | None = None, casinos: frozenset[int] | None = None
) -> list[CroupierRate]:
    """Per person who recorded steps of the game in the period's gaming days (the correction
    workflow's own steps are not counted): coups, steps, steps confirmed against the rules. Read
    from the rollups (``CroupierDay``: a coup counts on the gaming day it began). Imported
    histories are left out: no croupier recorded them live."""
    days = in_casinos(CroupierDay.objects.filter(_days_of(period)), casinos, "casino")
    if table is not None:
        days = days.filter(table=table)
    rows = (
        days.values("user_id", "user__username")
        .annotate(coups=Sum("coups"), steps=Sum("steps"), wrong=Sum("wrong_steps"))
        .order_by("user__username")
    )
    return [CroupierRate(r["user_id"], r["user__username"], r["coups"], r["steps"], r["wrong"]) for r in rows]


class LevyHold:
    """The hold of some settled coups (a table's, a gaming day's): the levy collected per unit of
    covered stake, beside the odds engine's expected levy per unit on the same stakes. A mixin of
    the dataclasses below, which hold the figures."""

    covered: int
    levy: int
    expected_levy: Fraction  # Σ covered * the engine's expected levy per unit, per (profile, decks, rate)

    @property
    def hold(self) -> Fraction | None:
        """Levy collected per unit of covered stake."""
        return Fraction(self.levy, self.covered) if self.covered else None

    @property
    def expected(self) -> Fraction | None:
        """Expected levy per unit of covered stake (weighted by the stakes of each shoe size)."""
        return self.expected_levy / self.covered if self.covered else None


@dataclass(frozen=True)
class HoldRow(LevyHold):
    table: Table
    coups: int
    covered: int
    levy: int
    expected_levy: Fraction

    @property
    def difference(self) -> Fraction | None:
        """Hold minus expected (a screen shows it in percentage points); None when either is."""
        if self.hold is None or self.expected is None:
            return None
        return self.hold - self.expected


def hold_vs_expected(
    *, period: Period, table: Table | None = None, casinos: frozenset[int] | None = None
) -> list[HoldRow]:
    """Per table, the coups settled in the period's gaming days: the levy collected over the
    covered stakes, beside the odds engine's expected levy per unit covered (read from the
    rollups, ``TableDay``; the expected levy is kept there to a millionth of a chip)."""
    days = in_casinos(TableDay.objects.filter(_days_of(period), coups__gt=0), casinos, "casino")
    if table is not None:
        days = days.filter(table=table)
    totals = (
        days.values("table_id")
        .annotate(
            coups=Sum("coups"), covered=Sum("covered"), levy=Sum("levy"), expected=Sum("expected_levy_micro")
        )
        .order_by()
    )
    tables = Table.objects.in_bulk([t["table_id"] for t in totals])
    rows = [
        HoldRow(
            table=tables[t["table_id"]],
            coups=t["coups"],
            covered=t["covered"],
            levy=t["levy"],
            expected_levy=Fraction(t["expected"], 1_000_000),
        )
        for t in totals
    ]
    return sorted(rows, key=lambda r: (r.table.casino_id, r.table.name))


# ------------------------------------------------------------------------------ the page
def _page(items: QuerySet[Any], number: Any) -> Page[Any]:
    return Paginator(items, DASHBOARD_PAGE_SIZE).get_page(number)


@dataclass(frozen=True)
class Dashboard:
    period: Period
    table: Table | None
    open_tables: list[OpenTable]
    queue_count: int
    flagged: Page[Any]  # of Coup
    alarms: Page[Any]  # of ShoeAlarm
    rates: list[CroupierRate]
    hold: list[HoldRow]
    chain: ChainState
    books: BooksState


@dataclass(frozen=True)
class BooksState:
    """What the dashboard shows of ``verify_books``: the last finished run, and one running now."""

    last: BooksVerification | None
    running: BooksVerification | None
    #: the verification checks every casino's books, and a difference names its rows (a coup, an
    #: account, a posting): listed only to a reader of every casino; the others see the count
    differences_listed: bool = True

    @property
    def shown_differences(self) -> list[dict[str, str]]:
        """The first differences of the last run (the command and the stored row have them all)."""
        if self.last is None or not self.differences_listed:
            return []
        return list(self.last.differences[:BOOKS_DIFFERENCES_SHOWN])


#: how many differences of the last books verification the dashboard lists
BOOKS_DIFFERENCES_SHOWN = 10


def books_state(*, casinos: frozenset[int] | None = None) -> BooksState:
    """The last and the running verification; ``casinos``: the reader's (None: every casino, to
    whom its differences are listed)."""
    runs = BooksVerification.objects.select_related("requested_by")
    return BooksState(
        last=runs.exclude(status=BooksVerification.Status.RUNNING).first(),
        running=runs.filter(status=BooksVerification.Status.RUNNING).first(),
        differences_listed=casinos is None,
    )


def audit_chains_of(casinos: frozenset[int] | None) -> frozenset[int] | None:
    """The audit chains of the staff of ``casinos`` (None: every casino, every chain): their
    casinos' chains and the global chain, which records what belongs to no casino and is every
    casino's (docs/audit.md, "Chains"; its break is every pit boss's alert, docs/review.md)."""
    return None if casinos is None else frozenset({GLOBAL_CHAIN, *casinos})


def dashboard(
    *,
    period: Period,
    table: Table | None = None,
    casinos: frozenset[int] | None = None,
    flagged_page: Any = 1,
    alarms_page: Any = 1,
) -> Dashboard:
    """Everything the dashboard shows for a period and (optionally) one table, of ``casinos``
    (the reader's: ``CasinoScope.casino_ids``; None: every casino)."""
    return Dashboard(
        period=period,
        table=table,
        open_tables=open_tables(table=table, casinos=casinos),
        queue_count=review_queue_count(casinos=casinos),
        flagged=_page(flagged_coups(period=period, table=table, casinos=casinos), flagged_page),
        alarms=_page(shoe_alarms(period=period, table=table, casinos=casinos), alarms_page),
        rates=croupier_error_rates(period=period, table=table, casinos=casinos),
        hold=hold_vs_expected(period=period, table=table, casinos=casinos),
        chain=audit_chain_state(chains=audit_chains_of(casinos)),
        books=books_state(casinos=casinos),
    )
