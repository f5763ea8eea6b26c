"""A PDF report's column headings never print over each other (reports/writers/pdf.py): each is a
paragraph wrapped inside its column, every column at least as wide as its heading's longest word
and, room allowing, as its widest figure. The player ratings' nineteen headings printed one over
the other ("Session"/"Seconds seated", "Expected levy"/"Theoretical"/"Actual") and "Player id"
ran past the page's left edge. Checked on the words' boxes as poppler reads them
(``pdftotext -bbox``): no two words of a page meet, none leaves the page."""

from __future__ import annotations

import datetime as dt
import html as markup
import io
import itertools
import re
import subprocess
from pathlib import Path

import pytest

from reports.builders import cash_log, cash_reports, fees, house_win, levy, player_ratings
from reports.model import Column, ColumnType, Line, LineKind, Report
from reports.writers import pdf as pdf_writer
from tests.reports.helpers import run
from tests.review.test_rating import played_night, whole_night

pytestmark = pytest.mark.poppler

Box = tuple[float, float, float, float, str]


def word_boxes(body: bytes, tmp_path: Path) -> list[tuple[float, list[Box]]]:
    """Each page's width and the boxes of its words (x0, y0, x1, y1, word)."""
    path = tmp_path / "report.pdf"
    path.write_bytes(body)
    answer = subprocess.run(["pdftotext", "-bbox", str(path), "-"], check=True, capture_output=True).stdout
    pages = []
    for page in answer.decode().split("<page")[1:]:
        width = float(re.search(r'width="([\d.]+)"', page).group(1))  # type: ignore[union-attr]
        words = [
            (float(a), float(b), float(c), float(d), markup.unescape(w))
            for a, b, c, d, w in re.findall(
                r'xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">([^<]*)<', page
            )
        ]
        pages.append((width, words))
    return pages


def overlaps(body: bytes, tmp_path: Path) -> list[tuple[str, str]]:
    """The pairs of words printed over each other, and the words past a page's edge."""
    found = []
    for width, words in word_boxes(body, tmp_path):
        for a, b in itertools.combinations(words, 2):
            if min(a[2], b[2]) - max(a[0], b[0]) > 0.3 and min(a[3], b[3]) - max(a[1], b[1]) > 0.3:
                found.append((a[4], b[4]))
        found += [(w[4], "past the edge") for w in words if w[0] < 0 or w[2] > width]
    return found


def _sample(column: Column, i: int) -> object:
    """A value as wide as the column's usually are: big chips, a date, a long name."""
    if column.type == ColumnType.INT:
        return 1_234_567 if i % 2 else -48_250
    if column.type == ColumnType.ID:
        return 123456
    if column.type == ColumnType.DATE:
        return dt.date(2026, 12, 7)
    if column.type == ColumnType.DATETIME:
        return dt.datetime(2026, 12, 7, 23, 59, 59)
    if column.type == ColumnType.DECIMAL:
        return "12345.67"
    if column.type == ColumnType.DURATION:
        return "12:34:56"
    if not column.shrinks:  # a word of a fixed few
        return "gaming day"
    return "Alexandra Rimskaya-Korsakova de la Tour" if i % 2 else "gaming day"


@pytest.mark.parametrize(
    "columns",
    [
        cash_log.COLUMNS,
        cash_reports.COLUMNS,
        fees.COLUMNS,
        house_win.COLUMNS,
        levy.COLUMNS,
        player_ratings.COLUMNS,
    ],
    ids=["cash-log", "cash-reports", "fees", "house-win", "levy", "player-ratings"],
)
def test_no_heading_or_figure_of_any_kind_prints_over_another(columns, tmp_path) -> None:
    kinds = [LineKind.DATA] * 4 + [LineKind.TOTAL]
    lines = [Line(tuple(_sample(c, i) for c in columns), kind) for i, kind in enumerate(kinds)]
    report = Report(title="T", facts=[], columns=columns, lines=iter(lines), landscape=True)
    out = io.BytesIO()
    pdf_writer.write(report, out, lambda *_: None)
    assert overlaps(out.getvalue(), tmp_path) == []
    text = " ".join(w for _width, words in word_boxes(out.getvalue(), tmp_path) for *_box, w in words)
    for column in columns:  # every heading whole, wrapped at most
        assert all(word in text.split() for word in column.label.split()), column.label
    assert "1,234,567" in text  # a figure is never cut


@pytest.mark.django_db
def test_the_player_ratings_pdf_of_a_played_night(croupier, table, tmp_path) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    body, _result = run("player-ratings", "pdf", first, last, casino_id=table.casino_id)
    assert overlaps(body, tmp_path) == []
    words = [w for _width, page in word_boxes(body, tmp_path) for *_box, w in page]
    assert "gaming" in words and "day" in words and "gaming…" not in words  # the row's kind, whole
    # no figure cut: the times seated and the hundredths printed whole ("0:05:…" was)
    assert [w for w in words if w.endswith("…") and re.fullmatch(r"[-\d.,:]+…", w)] == []
    assert re.search(r"\b9:36:48\b", " ".join(words)) and "6.88" in words  # the period's total line
    headings = ("Player", "id", "Session", "Seconds", "seated", "Expected", "levy", "Theoretical", "Actual")
    assert all(heading in words for heading in headings)


def test_a_ratings_page_of_long_names_cuts_the_names_not_the_figures(tmp_path) -> None:
    """The demo's ratings PDF cut the bold totals' time seated ("0:05:…", "0:47:…") and the row's
    kind ("gamin…") to make room for long players' and tables' names: the names give way first."""
    columns = player_ratings.COLUMNS

    def line(row: str, name: str, table_name: str, kind: LineKind) -> Line:
        values = {
            "player_id": 12, "player": name, "row": row, "gaming_day": dt.date(2026, 12, 7),
            "table": table_name, "session_id": 3, "seconds_seated": 2832, "time_seated": "0:47:12",
            "coups": 14, "coups_banked": 3, "staked": 12_500, "average_stake": "195.00",
            "largest_stake": 3_000, "net": -1_250, "levy": 35, "fees": 20, "expected_levy": "6.76",
            "theoretical": "26.76", "actual": 55,
        }  # fmt: skip
        return Line(tuple(values[c.key] for c in columns), kind)

    name, table_name = "Comtesse Alexandra Rimskaya-Korsakova", "Casino table of the Grand Salon"
    lines = [
        line("session", name, table_name, LineKind.DATA),
        line("gaming day", "", "", LineKind.SUBTOTAL),
        line("player", name, "", LineKind.SUBTOTAL),
        line("total", "all players", "", LineKind.TOTAL),
    ]
    report = Report(title="T", facts=[], columns=columns, lines=iter(lines), landscape=True)
    out = io.BytesIO()
    pdf_writer.write(report, out, lambda *_: None)
    assert overlaps(out.getvalue(), tmp_path) == []
    words = [w for _width, page in word_boxes(out.getvalue(), tmp_path) for *_box, w in page]
    for whole in ("0:47:12", "195.00", "6.76", "26.76", "session", "gaming", "day", "player", "total"):
        assert whole in words, whole
    assert [w for w in words if w.endswith("…")]  # the names gave way
