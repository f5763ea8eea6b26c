"""The levy (percentage tax) report: per gaming day and table, the coups settled, the banker's
wins, the covered stakes and the levy; a total line per day; then the period's, the month's and
the year's totals, per table and for all tables.

- A coup counts on the gaming day it was **settled** (``Coup.settled_at``): a corrected coup on the
  day its restoration was approved, with the restored outcome.
- **banker wins**: coups whose outcome as settled is the banker's (the approved correction's
  ``restored.outcome``, else the reveal's ``verdict.outcome``), levied or not (a first coup of a
  bank may be exempt, a win of the house's own bank is not levied).
- **covered stakes**: Σ non-withdrawn bets (what the bank covered); **levy**: Σ ``BankTax.amount``,
  which is what the ledger's levy account received (tests/reports check the two agree).
- **Month to date** and **year to date** run from the first gaming day of the month and of the year
  of the period's **last** day up to that day, even when that is before the period's first day.

The figures come from the rollups (``tables.TableDay``, tables/services/rollups.py: the same
definitions, kept per gaming day and table as the audit trail says coups change), so a year's
report reads at most 366 rows a table whatever the number of coups (bench/report_bench.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Sum

from chemin_de_fer.engine.profiles import LevyMode
from ledger.models import Account, Entry
from reports.builders import Scope, in_english, report_facts
from reports.columns import COUPS, GAMING_DAY, LEVY, TABLE, TABLE_ID
from reports.model import Column, ColumnType, Line, LineKind, Report
from tables.models import Coup, GameType, Table, TableDay
from tables.services.rollups import LevySums, rollups_refresh

COLUMNS = (
    GAMING_DAY.at_width(1.2),
    TABLE_ID.at_width(0.7),
    TABLE.at_width(1.8),
    COUPS.at_width(0.8),
    Column("banker_wins", "Banker wins", ColumnType.INT, 0.9),
    Column("covered_stakes", "Covered stakes", ColumnType.INT, 1.2),
    LEVY.at_width(1.0),
)

ALL_TABLES = "all tables"

@dataclass
class Sums(LevySums):
    def add(self, other: Sums) -> None:
        self.coups += other.coups
        self.banker_wins += other.banker_wins
        self.covered += other.covered
        self.levy += other.levy

    def values(self) -> tuple[int, int, int, int]:
        return (self.coups, self.banker_wins, self.covered, self.levy)


@dataclass
class Window:
    """A running total from ``start`` to the period's end: per table and for all tables."""

    label: str
    start: dt.date
    tables: dict[int, Sums] = field(default_factory=dict)
    all: Sums = field(default_factory=Sums)

    def add(self, day: dt.date, table_id: int, sums: Sums) -> None:
        if day >= self.start:
            self.tables.setdefault(table_id, Sums()).add(sums)
            self.all.add(sums)


def month_start(day: dt.date) -> dt.date:
    return day.replace(day=1)


def year_start(day: dt.date) -> dt.date:
    return day.replace(month=1, day=1)


@in_english
def levy_report(scope: Scope) -> Report:
    casino = scope.casino
    assert casino is not None  # needs_casino
    mtd, ytd = month_start(scope.end), year_start(scope.end)
    first = min(scope.start, ytd)
    grouped = _grouped(scope, first)
    names = dict(casino.tables.values_list("pk", "name"))
    rate = casino.levy_rate_bp
    facts = report_facts(
        scope,
        ("Levy rate", f"{rate} basis points = {rate / 100:.2f} %" + _mode_note(casino.levy_mode)),
        *_other_modes(casino, scope),
        ("Month to date", f"{mtd.isoformat()} to {scope.end.isoformat()}"),
        ("Year to date", f"{ytd.isoformat()} to {scope.end.isoformat()}"),
        ("Awaiting approval", levy_awaiting_approval(casino.pk)),
    )
    notes = [
        "A coup counts on the gaming day it was settled "
        "(a corrected coup: when its correction was approved).",
        "Month and year to date count from the first gaming day of the month and of the year of the "
        "period's last day, even when that is before the period's first day.",
    ]
    return Report(
        title="Levy (percentage tax)",
        facts=facts,
        columns=COLUMNS,
        lines=_lines(scope, grouped, names, mtd=mtd, ytd=ytd),
        notes=notes,
    )


def _grouped(scope: Scope, first: dt.date) -> list[tuple[dt.date, int, int, int, int, int]]:
    """(gaming day, table, coups, banker wins, covered, levy) from ``first`` to the period's end,
    read from the rollups (``tables.TableDay``: one row per table and gaming day, so a year is at
    most 366 rows a table, whatever the number of coups), brought up to the audit trail first."""
    rollups_refresh()
    days = TableDay.objects.filter(
        casino=scope.casino, gaming_day__gte=first, gaming_day__lte=scope.end, coups__gt=0
    )
    if scope.table is not None:
        days = days.filter(table=scope.table)
    return list(
        days.order_by("gaming_day", "table_id").values_list(
            "gaming_day", "table_id", "coups", "banker_wins", "covered", "levy"
        )
    )


def levy_awaiting_approval(casino_id: int) -> str:
    """The levy already in the ledger's levy account for coups whose correction waits for a pit
    boss: posted provisionally, counted in this report once approved (what reconciles the report
    with the account, at the moment the report was written); the house-win report says it too."""
    waiting = Coup.objects.filter(state=Coup.State.AWAITING_APPROVAL, shoe__table__casino_id=casino_id)
    entries = Entry.objects.filter(
        account__kind=Account.Kind.LEVY, account__casino_id=casino_id, transaction__coup__in=waiting
    )
    chips = entries.aggregate(chips=Sum("amount"))["chips"] or 0
    count = waiting.count()
    return (
        f"{count} {'coup' if count == 1 else 'coups'}, levy {chips} posted provisionally and not counted "
        "above (at the time of writing)"
    )


def _mode_note(mode: str) -> str:
    return "" if mode == "percentage" else f" (the casino's levy mode is now {mode})"


#: a levy mode other than the percentage, as the header says why a table is not levied
MODE_WORDS = {
    "hourly_fee": "hourly fee",
    "card_money": "card money",
    "none": "no levy",
}


def not_levied_reasons(table: Table) -> list[str]:
    """Why ``table``'s coups pay no percentage levy ([] when they do), as the engine decides it
    (tables.engine_bridge.levy_terms): its effective levy mode (its own, else its casino's) and its
    profile's must both be the percentage."""
    reasons = []
    mode = table.effective_levy_mode
    if mode != Table.LevyMode.PERCENTAGE:
        words = MODE_WORDS.get(mode, mode)
        reasons.append(words if table.levy_mode else f"{words}, the casino's levy mode")
    profile_mode = table.profile.levy_mode
    if profile_mode != LevyMode.PERCENTAGE:
        reasons.append(f"profile {table.profile.name}: {MODE_WORDS.get(profile_mode, profile_mode)}")
    return reasons


def _other_modes(casino: Any, scope: Scope) -> list[tuple[str, str]]:
    """The chemin de fer tables charged otherwise than by the percentage, each with why: its own
    levy mode or its casino's (an hourly fee, or none), or its profile's (card money, none: the
    classic and home profiles levy nothing). Their coups are counted, with no levy; hourly fees and
    card money are the fees report's."""
    tables = (
        casino.tables.filter(game=GameType.CHEMIN_DE_FER)
        .select_related("profile", "casino")
        .order_by("name", "pk")
    )
    if scope.table is not None:
        tables = tables.filter(pk=scope.table.pk)
    other = []
    for table in tables:
        reasons = not_levied_reasons(table)
        if reasons:
            other.append(f"{table.name} ({'; '.join(reasons)})")
    if not other:
        return []
    note = ": their coups count here without a levy; hourly fees and card money are in the fees report"
    return [("Not levied", ", ".join(other) + note)]


def _lines(
    scope: Scope,
    grouped: list[tuple[dt.date, int, int, int, int, int]],
    names: dict[int, str],
    *,
    mtd: dt.date,
    ytd: dt.date,
) -> Iterator[Line]:
    windows = [
        Window("period", scope.start),
        Window("month to date", mtd),
        Window("year to date", ytd),
    ]
    by_day: dict[dt.date, list[tuple[int, Sums]]] = {}
    for day, table_id, coups, wins, covered, levy in grouped:
        sums = Sums(int(coups), int(wins), int(covered), int(levy))
        for window in windows:
            window.add(day, table_id, sums)
        if day >= scope.start:
            by_day.setdefault(day, []).append((table_id, sums))
    for day in sorted(by_day):
        total = Sums()
        for table_id, sums in sorted(by_day[day], key=lambda r: (names.get(r[0], ""), r[0])):
            total.add(sums)
            yield Line((day, table_id, names.get(table_id, ""), *sums.values()))
        yield Line((day, None, ALL_TABLES, *total.values()), LineKind.SUBTOTAL)
    for window in windows:
        if len(window.tables) > 1:
            for table_id, sums in sorted(window.tables.items(), key=lambda r: (names.get(r[0], ""), r[0])):
                yield Line(
                    (window.label, table_id, names.get(table_id, ""), *sums.values()), LineKind.SUBTOTAL
                )
        yield Line((window.label, None, ALL_TABLES, *window.all.values()), LineKind.TOTAL)
