"""Builders: what each report kind contains, as a format-neutral ``reports.model.Report`` (or
``RecordReport``), one module per kind. Reads only.

Every day in a report is a gaming day of its casino (tables/gaming_day.py): the SQL groups an
instant ``at`` into its gaming day as ``((at AT TIME ZONE tz) - cutoff)::date``, which is
``GamingCalendar.day_of`` in the database (before the cut-off, local time, it is still the
previous day's play); on SQLite (``make run``) as ``gaming_day(at, tz, cutoff)``, the calendar's
own code. The statements are portable otherwise: instants go in as the ORM would bind them
(``instant_param``) and come out aware (``instant_read``), days come out as dates (``sql_date``).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from django.db import connection
from django.utils import translation

from reports.model import Column, Line, Report
from tables.gaming_day import GamingCalendar, Period, casino_calendar
from tables.gaming_day import gaming_day_sql as calendar_day_sql
from tables.models import Casino, Table

#: rows fetched from a server-side cursor at a time
FETCH_ROWS = 2000

_P = ParamSpec("_P")
_R = TypeVar("_R")


def in_english(build: Callable[_P, _R]) -> Callable[_P, _R]:
    """A builder run in English whoever asks (docs/i18n.md: the exports are English): a choice's
    label (``get_preset_display()``), a lazy label said in the language of the request that
    generates the report when no broker runs it, would make the file's bytes depend on who asked
    ("US Title 31 (США)"). The writers say their lines in English too (a builder's lines are a
    generator, read while the file is written)."""

    @functools.wraps(build)
    def built(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with translation.override("en"):
            return build(*args, **kwargs)

    return built


class ReportRequestError(ValueError):
    """A request that cannot be produced (unknown kind or format, table not in the casino, …)."""


@dataclass(frozen=True)
class Scope:
    """What one report covers: gaming days ``start`` to ``end`` of a casino (or of every casino,
    midnight to midnight UTC), optionally one of its tables. ``by_table``: whether the kind may be
    asked for one table (``KindInfo.by_table``); a kind that may not has no "Table" in its header."""

    start: dt.date
    end: dt.date
    casino: Casino | None = None
    table: Table | None = None
    by_table: bool = True

    @property
    def calendar(self) -> GamingCalendar:
        return casino_calendar(self.casino)

    @property
    def period(self) -> Period:
        return Period(start=self.start, end=self.end, calendar=self.calendar)

    def bounds(self, start: dt.date | None = None) -> tuple[dt.datetime, dt.datetime]:
        """[start of gaming day ``start`` (default: the period's), start of the day after the end)."""
        return self.calendar.bounds(start or self.start, self.end)

    @property
    def day_sql_params(self) -> dict[str, Any]:
        """The parameters of the ``gaming_day`` SQL expression below."""
        cal = self.calendar
        return {"tz": cal.tz.key, "cutoff": cal.cutoff.isoformat()}

    def sql_params(self) -> dict[str, Any]:
        """The parameters of a per-casino report's query: the gaming-day expression's, the
        period's bounds (``lo``, ``hi``), the casino, and the table (None: every table)."""
        casino = self.casino
        assert casino is not None  # per-casino kinds only (KindInfo.needs_casino)
        lo, hi = self.bounds()
        return {
            **self.day_sql_params,
            "lo": instant_param(lo),
            "hi": instant_param(hi),
            "casino": casino.pk,
            "table": self.table.pk if self.table is not None else None,
        }

    @property
    def tz(self) -> dt.tzinfo:
        return self.calendar.tz

    def facts(self) -> list[tuple[str, str]]:
        cal = self.calendar
        facts = []
        if self.casino is not None:
            facts.append(("Casino", self.casino.name))
        facts.append(("Gaming days", f"{self.start.isoformat()} to {self.end.isoformat()} inclusive"))
        facts.append(
            (
                "Gaming day",
                f"from {cal.cutoff:%H:%M} to {cal.cutoff:%H:%M} the next morning, {cal.time_zone} time"
                if self.casino is not None
                else "midnight to midnight, UTC",
            )
        )
        if self.casino is not None:
            facts.append(("Amounts", f"{self.casino.currency_label}; smallest chip {self.casino.chip_unit}"))
        if self.by_table:  # a kind with no table filter (the cash log, the ratings) says nothing of it
            facts.append(("Table", self.table.name if self.table is not None else "all tables"))
        return facts


def gaming_day_sql(column: str) -> str:
    """The gaming day of the instant in ``column`` (with the %(tz)s and %(cutoff)s parameters), in
    this database's SQL."""
    return calendar_day_sql(column, tz="%(tz)s", cutoff="%(cutoff)s", vendor=connection.vendor)


def instant_param(at: dt.datetime) -> Any:
    """An instant bound as the ORM binds a DateTimeField's value on this database (SQLite: UTC
    text, which compares with the stored text in time order)."""
    return connection.ops.adapt_datetimefield_value(at)


def instant_read(value: dt.datetime | str | None) -> dt.datetime | None:
    """An instant read from a raw statement, aware: PostgreSQL gives it so; SQLite gives UTC text,
    or a naive datetime where the column's declared type says so."""
    if value is None:
        return None
    at = dt.datetime.fromisoformat(value) if isinstance(value, str) else value
    return at if at.tzinfo is not None else at.replace(tzinfo=dt.UTC)



def rows_streamed(sql: str, params: dict[str, Any] | Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """The rows of a query through a server-side cursor, FETCH_ROWS at a time (constant memory)."""
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(FETCH_ROWS):
            yield from rows


def rows_all(sql: str, params: dict[str, Any] | Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def generated_fact() -> tuple[str, str]:
    from django.utils import timezone

    return ("Generated", timezone.now().astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"))


def report_facts(scope: Scope, *own: tuple[str, str]) -> list[tuple[str, str]]:
    """A report's header: what it covers (``Scope.facts``), then the kind's own facts, then when it
    was written, last (the one fact two writes of the same report do not share)."""
    return [*scope.facts(), *own, generated_fact()]


def timed_report(
    scope: Scope,
    *,
    title: str,
    facts: Sequence[tuple[str, str]],
    columns: tuple[Column, ...],
    lines: Iterator[Line],
    notes: list[str],
) -> Report:
    """A report whose lines carry instants (an hour billed, a croupier's shift), shown in the
    casino's local time (``reports.model.as_local``): its header says which time that is, after the
    kind's own ``facts``, and its two date-time columns are wide enough to want a landscape page."""
    return Report(
        title=title,
        facts=report_facts(scope, *facts, ("Times", f"local time, {scope.calendar.time_zone}")),
        columns=columns,
        lines=lines,
        landscape=True,
        notes=notes,
    )
