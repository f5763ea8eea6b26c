"""The format-neutral report: what a builder produces (reports/builders/) and a writer lays out
(reports/writers/) as CSV, XLSX, PDF or JSON Lines.

A ``Report`` is a header (title, facts such as the casino, period and rate), typed columns and an
iterator of lines, data lines and total lines interleaved in the order they are to be shown: the
builder computes totals while it streams, so nothing holds the whole report in memory. A
``RecordReport`` is a stream of JSON objects (the audit trail and the coup records), optionally
ending with a trailer object.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class ColumnType(StrEnum):
    TEXT = "text"
    INT = "int"  # chips and counts: whole numbers, written as numbers, thousands grouped where read
    ID = "id"  # an identifier (a table's, a transaction's): a whole number, never grouped
    DATE = "date"  # a gaming day
    DATETIME = "datetime"  # an instant, shown in the casino's time zone
    DECIMAL = "decimal"  # a figure to the hundredth ("6.76"): a number with two decimals, never cut
    DURATION = "duration"  # a time seated, h:mm:ss ("2:24:12"): never cut


class LineKind(StrEnum):
    DATA = "data"  # one row of the report's subject
    SUBTOTAL = "subtotal"  # a day's or a session's total
    TOTAL = "total"  # the period's, the month's or the year's total


@dataclass(frozen=True, slots=True)
class Column:
    key: str  # the CSV heading: stable, machine-readable
    label: str  # the heading a person reads (XLSX, PDF)
    type: ColumnType = ColumnType.TEXT
    width: float = 1.0  # relative width in the PDF
    #: a text column that gives up its room in a PDF too narrow for every column (a name, cut with
    #: an ellipsis); a short word of a fixed few ("gaming day", "total") does not
    shrinks: bool = True

    def at_width(self, width: float) -> Column:
        """The same column laid out at another width (a report with wider or narrower neighbours)."""
        return replace(self, width=width)


@dataclass(frozen=True, slots=True)
class Line:
    values: tuple[Any, ...]  # one per column: str, int, dt.date, dt.datetime or None
    kind: LineKind = LineKind.DATA


@dataclass
class Report:
    title: str
    facts: list[tuple[str, str]]  # the header block, in order: (label, value)
    columns: tuple[Column, ...]
    lines: Iterator[Line]
    chain_head: str | None = None  # the audit chain head's hash, when the file carries it
    landscape: bool = False  # the PDF's orientation (many columns)
    notes: list[str] = field(default_factory=list)  # said under the header (how days and totals work)


@dataclass
class RecordReport:
    records: Iterator[dict[str, Any]]
    # written last, one line each (the audit chains' signed heads: one per chain the file vouches for)
    trailers: tuple[dict[str, Any], ...] = ()
    chain_head: str | None = None
    sort_keys: bool = False  # the audit trail's lines are written with sorted keys


def as_local(at: dt.datetime | None, tz: dt.tzinfo) -> dt.datetime | None:
    """An instant in the casino's time zone, to the second (how every report shows instants)."""
    return at.astimezone(tz).replace(microsecond=0) if at is not None else None
