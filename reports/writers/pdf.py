"""PDF through ReportLab's Platypus: the title, the header block, the notes, then the lines as a
table that splits across pages, its column headings repeated at the top of every page; subtotal
and total lines in bold; page numbers in the footer.

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
from pathlib import Path
from typing import Any, BinaryIO
from xml.sax.saxutils import escape

import reportlab
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import LongTable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from reports.model import ColumnType, LineKind, Report
from reports.writers import CHUNK_ROWS, Progress

#: data lines drawn at most (subtotals and totals are always drawn)
MAX_DATA_ROWS = 5_000

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
    total_weight = sum(c.width for c in columns)
    widths = [doc.width * c.width / total_weight for c in columns]
    rows: list[list[str]] = [[c.label for c in columns]]
    style: list[tuple[Any, ...]] = [
        ("FONT", (0, 0), (-1, -1), regular, 7.5),
        ("FONT", (0, 0), (-1, 0), bold, 7.5),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e4e4e4")),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]
    for i, column in enumerate(columns):
        if column.type in (ColumnType.INT, ColumnType.ID):
            style.append(("ALIGN", (i, 0), (i, -1), "RIGHT"))
    drawn = omitted = 0
    for line in report.lines:
        if line.kind == LineKind.DATA:
            if drawn >= MAX_DATA_ROWS:
                omitted += 1
                continue
            drawn += 1
            if drawn % CHUNK_ROWS == 0:
                progress(drawn, None)
        rows.append(
            [
                _truncated(_text(v, c.type), w, regular)
                for v, w, c in zip(line.values, widths, columns, strict=True)
            ]
        )
        if line.kind != LineKind.DATA:
            n = len(rows) - 1
            style += [("FONT", (0, n), (-1, n), bold, 7.5), ("LINEABOVE", (0, n), (-1, n), 0.4, colors.grey)]
            if line.kind == LineKind.TOTAL:
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


def _truncated(text: str, width: float, font: str, size: float = 7.5) -> str:
    """``text`` cut with an ellipsis to fit its column (a name longer than its cell)."""
    room = width - 4  # the cell's padding
    if stringWidth(text, font, size) <= room:
        return text
    while text and stringWidth(text + "…", font, size) > room:
        text = text[:-1]
    return text + "…"
