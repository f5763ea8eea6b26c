"""How the exports write their numbers (reports/writers: English, as every export): the PDF groups
chips and counts with the English comma, an identifier stays plain; the XLSX cells carry the
grouping format "#,##0" (shown in the reader's locale), an identifier's cell none."""

from __future__ import annotations

from openpyxl import Workbook

from reports.model import ColumnType
from reports.writers import pdf, xlsx


def test_the_pdf_writes_chips_in_english_and_ids_plain() -> None:
    assert pdf._text(9055, ColumnType.INT) == "9,055"
    assert pdf._text(1234567, ColumnType.INT) == "1,234,567"
    assert pdf._text(-1700, ColumnType.INT) == "-1,700"
    assert pdf._text(700, ColumnType.INT) == "700"
    assert pdf._text(12345, ColumnType.ID) == "12345"
    assert pdf._text(None, ColumnType.INT) == ""


def test_the_xlsx_groups_chip_cells_and_leaves_ids_plain() -> None:
    ws = Workbook(write_only=True).create_sheet()
    chips = xlsx._cell(ws, 9055, kind=ColumnType.INT)
    assert (chips.value, chips.number_format) == (9055, "#,##0")
    bold = xlsx._cell(ws, 44850, bold=True, kind=ColumnType.INT)
    assert (bold.value, bold.number_format, bold.font.bold) == (44850, "#,##0", True)
    assert xlsx._cell(ws, 12345, kind=ColumnType.ID) == 12345  # a plain value: General format
    assert xlsx._cell(ws, "A") == "A"
