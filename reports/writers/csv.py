"""CSV: UTF-8, comma-separated, CRLF line ends (RFC 4180), no byte-order mark.

Layout: the header block (one ``label,value`` row per fact, then the notes), an empty row, the
column headings (the columns' keys, with ``line`` first), then one row per line of the report,
``line`` saying ``data``, ``subtotal`` or ``total``. A program reads from the row after the first
empty one; a person opening the file in a spreadsheet sees the casino, period and rate first.

Formula injection: a spreadsheet runs a text cell that starts with ``=``, ``+``, ``-`` or ``@``
(or a tab or carriage return, which some strip first) as a formula. Every *text* cell that starts
with one of them — a player's display name, a table's or a casino's name — is written with a
leading ``'``, which spreadsheets show as a text marker (OWASP's advice). Numbers are written as
numbers (a negative amount keeps its ``-``): they come from integer columns, never from text.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

from reports.builders import in_english
from reports.model import Report
from reports.writers import CHUNK_ROWS, Progress

#: the first characters a spreadsheet may read as the start of a formula
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(text: str) -> str:
    """``text`` made safe to open in a spreadsheet: prefixed with ``'`` when it could be a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def cell(value: Any) -> str | int:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    return neutralise(str(value))


class _Rows:
    """csv.writer into a buffer that is flushed to the binary file every CHUNK_ROWS rows."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\r\n")

    def row(self, values: Sequence[Any]) -> None:
        self.writer.writerow([cell(v) for v in values])

    def flush(self) -> None:
        self.out.write(self.buffer.getvalue().encode("utf-8"))
        self.buffer.seek(0)
        self.buffer.truncate()


def header_rows(report: Report) -> Iterable[tuple[str, str]]:
    yield ("report", report.title)
    yield from report.facts
    for note in report.notes:
        yield ("note", note)


@in_english  # a builder's lines are read here, as the file is written
def write(report: Report, out: BinaryIO, progress: Progress) -> int:
    rows = _Rows(out)
    for label, value in header_rows(report):
        rows.row((label, value))
    rows.row(())
    rows.row(("line", *(c.key for c in report.columns)))
    written = pending = 0
    for line in report.lines:
        rows.row((line.kind.value, *line.values))
        written += line.kind == "data"
        pending += 1
        if pending >= CHUNK_ROWS:
            rows.flush()
            pending = 0
            progress(written, None)
    rows.flush()
    progress(written, None)
    return written
