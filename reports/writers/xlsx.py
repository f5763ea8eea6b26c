"""XLSX through openpyxl's write-only mode: rows go to a temporary file as they come, so memory
does not grow with the report (only the distinct strings are kept, for the shared-strings table).

One sheet: the title, the header block (label in bold, value), the notes, an empty row, the column
headings in bold (frozen below them is left to the reader: write-only sheets cannot freeze), then
the lines. Numbers are numeric cells, chips and counts with the grouping format ``#,##0`` (the
spreadsheet shows ``9,055`` or ``9 055`` in its reader's locale; an identifier, ``ColumnType.ID``,
stays plain), gaming days date cells (``yyyy-mm-dd``), instants date-time cells in the casino's
time zone (Excel has no time zones: the header says which). Subtotal and
total lines are bold. A text cell that starts with ``=`` is stored as text, never as a formula
(openpyxl would otherwise take it for one). A sheet holds at most 1,048,576 rows: a longer report
goes on in a second sheet, headings repeated.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, BinaryIO

from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet._write_only import WriteOnlyWorksheet

from reports.builders import in_english
from reports.model import ColumnType, LineKind, Report
from reports.writers import CHUNK_ROWS, Progress

BOLD = Font(bold=True)
TITLE = Font(bold=True, size=14)
DATE_FORMAT = "yyyy-mm-dd"
DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss"
#: chips and counts: thousands grouped, in the separator of the reader's locale
INT_FORMAT = "#,##0"
#: a figure to the hundredth (an average stake, an expected levy): grouped, two decimals
DECIMAL_FORMAT = "#,##0.00"
#: Excel's last row; kept a little short of it for the headings of the next sheet
MAX_ROWS = 1_048_576


def _value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)  # already in the casino's time zone (the header says which)
    return value


def _cell(
    ws: WriteOnlyWorksheet, value: Any, *, bold: bool = False, kind: ColumnType = ColumnType.TEXT
) -> Any:
    value = _value(value)
    if kind == ColumnType.DECIMAL and isinstance(value, str):
        value = Decimal(value)  # a figure to the hundredth: a number the spreadsheet adds up
    grouped = isinstance(value, int) and not isinstance(value, bool) and kind != ColumnType.ID
    hundredths = isinstance(value, Decimal)
    needs_cell = (
        bold
        or grouped
        or hundredths
        or (isinstance(value, str) and value.startswith("="))
        or isinstance(value, dt.date)
    )
    if not needs_cell:
        return value
    c = WriteOnlyCell(ws, value=value)
    if grouped:
        c.number_format = INT_FORMAT
    elif hundredths:
        c.number_format = DECIMAL_FORMAT
    if isinstance(value, str) and value.startswith("="):
        c.data_type = "s"  # text that looks like a formula stays text
    if isinstance(value, dt.datetime):
        c.number_format = DATETIME_FORMAT
    elif isinstance(value, dt.date):
        c.number_format = DATE_FORMAT
    if bold:
        c.font = BOLD
    return c


def _sheet(wb: Workbook, report: Report, number: int) -> WriteOnlyWorksheet:
    title = report.title[:28] if number == 1 else f"{report.title[:24]} ({number})"
    ws = wb.create_sheet(title=title.replace("/", "-"))
    for i, column in enumerate(report.columns, 1):
        width = {
            ColumnType.DATETIME: 20,
            ColumnType.DATE: 12,
            ColumnType.INT: 14,
            ColumnType.DECIMAL: 14,
            ColumnType.DURATION: 12,
            ColumnType.ID: 10,
        }.get(column.type, 22)
        ws.column_dimensions[get_column_letter(i)].width = width
    return ws


@in_english  # a builder's lines are read here, as the file is written
def write(report: Report, out: BinaryIO, progress: Progress) -> int:
    wb = Workbook(write_only=True)
    ws = _sheet(wb, report, 1)
    title = WriteOnlyCell(ws, value=report.title)
    title.font = TITLE
    ws.append([title])
    for label, value in report.facts:
        ws.append([_cell(ws, label, bold=True), _cell(ws, value)])
    for note in report.notes:
        ws.append([_cell(ws, note)])
    ws.append([])

    def headings() -> None:
        ws.append([_cell(ws, c.label, bold=True) for c in report.columns])

    headings()
    used = 3 + len(report.facts) + len(report.notes)
    sheets, written = 1, 0
    for line in report.lines:
        if used >= MAX_ROWS:
            sheets += 1
            ws = _sheet(wb, report, sheets)
            headings()
            used = 1
        bold = line.kind != LineKind.DATA
        ws.append(
            [_cell(ws, v, bold=bold, kind=c.type) for v, c in zip(line.values, report.columns, strict=True)]
        )
        used += 1
        if line.kind == LineKind.DATA:
            written += 1
            if written % CHUNK_ROWS == 0:
                progress(written, None)
    wb.save(out)  # a zip written to any binary file object
    progress(written, None)
    return written
