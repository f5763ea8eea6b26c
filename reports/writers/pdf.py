"""PDF through ReportLab's Platypus: the title, the header block, the notes, then the lines as a
table that splits across pages, its column headings repeated at the top of every page; subtotal
and total lines in bold; page numbers in the footer.

The columns are laid out to what they hold (``column_widths``): each at least as wide as the
longest word of its heading, which wraps between its words inside its column (a heading is a
paragraph: nineteen headings printed over each other at a fixed width), and as its widest figure
where the page has room; a name too long for what is left is cut with an ellipsis.

A PDF is for reading and printing, not for a million rows: Platypus lays a table out in memory,
so at most ``MAX_DATA_ROWS`` data lines are drawn. Beyond them, data lines are counted and left
out, every subtotal and total line is still drawn (they are computed over all the rows by the
builder), and a line under the table says how many rows were left out and that the CSV and XLSX
files hold them all.

The font is DejaVu Sans where the system has it (players' names in any European script), else
Bitstream Vera, which ReportLab ships (Latin only).

Numbers are written in English, as every export is (docs/i18n.md): chips and counts with the
English thousands comma (``9,055``, as the English screens write them: core.numbers), an
identifier (``ColumnType.ID``) as its plain digits.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, BinaryIO
from xml.sax.saxutils import escape

import reportlab
from reportlab.lib import colors
from reportlab.lib.enums import TA_RIGHT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import LongTable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from reports.builders import in_english
from reports.model import Column, ColumnType, LineKind, Report
from reports.writers import CHUNK_ROWS, Progress

#: data lines drawn at most (subtotals and totals are always drawn)
MAX_DATA_ROWS = 5_000
#: the table's font size and its cells' padding left and right (points)
SIZE = 7.5
PADDING = 2.5
#: the columns written flush right, their headings too
_RIGHT = (ColumnType.INT, ColumnType.ID, ColumnType.DECIMAL, ColumnType.DURATION)

_DEJAVU = Path("/usr/share/fonts/truetype/dejavu")
_VERA = Path(reportlab.__file__).parent / "fonts"


def _fonts() -> tuple[str, str]:
    """(regular, bold) font names, registered once."""
    if "ReportSans" not in pdfmetrics.getRegisteredFontNames():
        regular, bold = _DEJAVU / "DejaVuSans.ttf", _DEJAVU / "DejaVuSans-Bold.ttf"
        if not (regular.exists() and bold.exists()):
            regular, bold = _VERA / "Vera.ttf", _VERA / "VeraBd.ttf"
        pdfmetrics.registerFont(TTFont("ReportSans", str(regular)))
        pdfmetrics.registerFont(TTFont("ReportSans-Bold", str(bold)))
    return "ReportSans", "ReportSans-Bold"


def _text(value: Any, kind: ColumnType = ColumnType.TEXT) -> str:
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if kind == ColumnType.ID else f"{value:,}"  # English: 9,055
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


@in_english  # a builder's lines are read here, as the file is written
def write(report: Report, out: BinaryIO, progress: Progress) -> int:
    regular, bold = _fonts()
    pagesize = landscape(A4) if report.landscape else A4
    margin = 12 * mm
    doc = SimpleDocTemplate(
        out,
        pagesize=pagesize,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=margin,
        bottomMargin=15 * mm,
        title=report.title,
    )
    body = ParagraphStyle("body", fontName=regular, fontSize=8.5, leading=11)
    heading = ParagraphStyle("title", fontName=bold, fontSize=14, leading=18, spaceAfter=4)
    story: list[Any] = [Paragraph(escape(report.title), heading)]
    facts = [[Paragraph(f"<b>{escape(k)}</b>", body), Paragraph(escape(v), body)] for k, v in report.facts]
    if facts:
        story.append(Table(facts, colWidths=[45 * mm, doc.width - 45 * mm], hAlign="LEFT"))
    story += [Paragraph(escape(note), body) for note in report.notes]
    story.append(Spacer(1, 4 * mm))

    columns = report.columns
    # the lines first, as text (a PDF holds its table in memory anyway): the columns are laid out
    # to what they hold, then the text of a line too long for its column is cut
    texts: list[list[str]] = []
    kinds: list[LineKind] = []
    drawn = omitted = 0
    for line in report.lines:
        if line.kind == LineKind.DATA:
            if drawn >= MAX_DATA_ROWS:
                omitted += 1
                continue
            drawn += 1
            if drawn % CHUNK_ROWS == 0:
                progress(drawn, None)
        texts.append([_text(v, c.type) for v, c in zip(line.values, columns, strict=True)])
        kinds.append(line.kind)
    widths = column_widths(columns, texts, kinds, doc.width, regular, bold)
    # a text column of figures (an average stake, an expectation, a time seated) is flush right too
    right = [
        c.type in _RIGHT or (c.type == ColumnType.TEXT and _figures(t[i] for t in texts))
        for i, c in enumerate(columns)
    ]
    heading_style = ParagraphStyle("heading", fontName=bold, fontSize=SIZE, leading=SIZE + 1.5)
    heading_right = ParagraphStyle("heading-right", parent=heading_style, alignment=TA_RIGHT)
    # the headings are paragraphs: a long one wraps inside its column, never over its neighbour's
    rows: list[list[Any]] = [
        [
            Paragraph(escape(c.label), heading_right if flush_right else heading_style)
            for c, flush_right in zip(columns, right, strict=True)
        ]
    ]
    style: list[tuple[Any, ...]] = [
        ("FONT", (0, 0), (-1, -1), regular, SIZE),
        ("FONT", (0, 0), (-1, 0), bold, SIZE),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e4e4e4")),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("VALIGN", (0, 0), (-1, 0), "BOTTOM"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ("LEFTPADDING", (0, 0), (-1, -1), PADDING),
        ("RIGHTPADDING", (0, 0), (-1, -1), PADDING),
    ]
    for i, flush_right in enumerate(right):
        if flush_right:
            style.append(("ALIGN", (i, 0), (i, -1), "RIGHT"))
    for values, kind in zip(texts, kinds, strict=True):
        font = regular if kind == LineKind.DATA else bold
        rows.append([_truncated(t, w, font) for t, w in zip(values, widths, strict=True)])
        if kind != LineKind.DATA:
            n = len(rows) - 1
            style += [("FONT", (0, n), (-1, n), bold, SIZE), ("LINEABOVE", (0, n), (-1, n), 0.4, colors.grey)]
            if kind == LineKind.TOTAL:
                style.append(("BACKGROUND", (0, n), (-1, n), colors.HexColor("#f2f2f2")))
    story.append(LongTable(rows, colWidths=widths, repeatRows=1, style=TableStyle(style), hAlign="LEFT"))
    if omitted:
        story.append(Spacer(1, 3 * mm))
        story.append(
            Paragraph(
                escape(
                    f"{omitted:,} more data rows are not shown: a PDF shows the first {MAX_DATA_ROWS:,}. "
                    "The totals above include them; the CSV and XLSX files hold every row."
                ),
                body,
            )
        )

    def footer(canvas: Canvas, document: Any) -> None:
        canvas.saveState()
        canvas.setFont(regular, 7)
        canvas.drawString(margin, 8 * mm, report.title)
        canvas.drawRightString(pagesize[0] - margin, 8 * mm, f"page {document.page}")
        canvas.restoreState()

    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    progress(drawn, None)
    return drawn


_FIGURE = re.compile(r"-?[\d,:.]+")


def _shrinks(column: Column) -> bool:
    """Whether a column gives up its room when the page is too narrow: a text column of names, not
    a figure (chips, a decimal, a time seated) nor a text of a fixed few short words."""
    return column.type == ColumnType.TEXT and column.shrinks


def _yields(column: Column) -> bool:
    """Whether a column gives up its room when the names alone cannot make the page wide enough:
    every column but the chips, the counts, the identifiers and the dates."""
    return column.type in (ColumnType.TEXT, ColumnType.DECIMAL, ColumnType.DURATION)


def _figures(texts: Iterable[str]) -> bool:
    """Whether a column's texts are all figures ("13.76", "0:01:59"), and there is one at least."""
    seen = False
    for text in texts:
        if text:
            if not _FIGURE.fullmatch(text):
                return False
            seen = True
    return seen


def _truncated(text: str, width: float, font: str, size: float = SIZE) -> str:
    """``text`` cut with an ellipsis to fit its column (a name longer than its cell)."""
    room = width - 2 * PADDING
    if stringWidth(text, font, size) <= room:
        return text
    while text and stringWidth(text + "…", font, size) > room:
        text = text[:-1]
    return text + "…"


def column_widths(
    columns: Sequence[Column],
    texts: Sequence[Sequence[str]],
    kinds: Sequence[LineKind],
    available: float,
    regular: str,
    bold: str,
) -> list[float]:
    """Each column's width on the page (points), together ``available``.

    A column is at least as wide as the longest word of its heading (the heading wraps between its
    words, a word never runs into the next column) and, room allowing, as its widest text (a
    figure is never cut; subtotal lines are bold). What is left is shared out by the columns'
    relative widths (``Column.width``). When the widest texts do not fit, the text columns (names)
    give up their room first, down to their heading's word, and are cut with an ellipsis."""
    room = 2 * PADDING + 0.5  # the padding, and half a point against rounding
    floor = [max(stringWidth(w, bold, SIZE) for w in (c.label.split() or [""])) + room for c in columns]
    widest = [0.0] * len(columns)
    for values, kind in zip(texts, kinds, strict=True):
        font = regular if kind == LineKind.DATA else bold
        for i, text in enumerate(values):
            if text:
                widest[i] = max(widest[i], stringWidth(text, font, SIZE))
    need = [max(f, w + room) for f, w in zip(floor, widest, strict=True)]
    total_weight = sum(c.width for c in columns) or 1.0
    if sum(need) <= available:
        # what is left over, shared by weight, each column's share on top of what it needs
        spare = available - sum(need)
        return [n + spare * c.width / total_weight for n, c in zip(need, columns, strict=True)]
    # too wide: the names shrink first, each by its share of what they can give up; then, where
    # that is not enough, the words of a fixed few, the decimals and the times seated too
    excess = sum(need) - available
    given = [0.0] * len(columns)
    for tier in (_shrinks, _yields):
        shrinkable = [
            (n - f - g) if tier(c) else 0.0 for n, f, g, c in zip(need, floor, given, columns, strict=True)
        ]
        if sum(shrinkable) >= excess:
            cut = excess / sum(shrinkable)
            return [n - g - s * cut for n, g, s in zip(need, given, shrinkable, strict=True)]
        excess -= sum(shrinkable)
        given = [g + s for g, s in zip(given, shrinkable, strict=True)]
    # still too wide (more columns than a page holds): every column at its share of the page
    least = [n - g for n, g in zip(need, given, strict=True)]
    scale = available / sum(least)
    return [w * scale for w in least]
