"""The players' rating report (reports/builders/player_ratings.py): the played night of
tests/review/test_rating.py, its lines exact, in CSV, XLSX and PDF, and as a run through Celery."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal
from typing import Any

import pytest
from openpyxl import load_workbook

from reports.builders import player_ratings
from reports.kinds import KINDS, ReportRequest
from reports.models import ReportRun
from reports.services import report_run_request
from reports.storage import reports_storage
from review.selectors.rating import player_rating
from tables.gaming_day import casino_calendar
from tables.models import CasinoStaff, TableSession
from tests.factories import (
    CasinoFactory,
    PlayerFactory,
    SeatFactory,
    TableFactory,
    TableSessionFactory,
    UserFactory,
)
from tests.reports.helpers import csv_parts, run
from tests.review.test_rating import played_night, whole_night

pytestmark = pytest.mark.django_db

HEADINGS = [
    "line", "player_id", "player", "row", "gaming_day", "table", "session_id", "seconds_seated",
    "time_seated", "coups", "coups_banked", "staked", "average_stake", "largest_stake", "net", "levy", "fees",
    "expected_levy", "theoretical", "actual",
]  # fmt: skip
SEATED, HMS = "8652", "2:24:12"  # 2 h 41 min 17 s less a pause of 17 min 05 s


def _added_up(lines: list[list[str]]) -> list[str]:
    """The figures a subtotal of ``lines`` prints: each column's sum (the largest stake's greatest,
    the average the stakes over the bets, which the staked and coup columns do not say: taken from
    the subtotal itself by the caller)."""
    seconds = sum(int(r[7]) for r in lines)
    column = lambda i: sum(int(r[i]) for r in lines)  # noqa: E731
    hundredths = lambda i: str(sum(Decimal(r[i]) for r in lines))  # noqa: E731
    largest = max(int(r[13]) for r in lines)
    return [str(seconds), f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}",
            str(column(9)), str(column(10)), str(column(11)), "<average>", str(largest),
            str(column(14)), str(column(15)), str(column(16)), hundredths(17), hundredths(18),
            str(column(19))]  # fmt: skip


def test_the_lines_of_a_played_night(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    body, result = run("player-ratings", "csv", first, last, casino_id=table.casino_id)
    header, rows = csv_parts(body)
    assert header["Casino"] == table.casino.name
    assert "Table" not in header  # every table: the report has no table to choose
    assert rows[0] == HEADINGS
    lines = rows[1:]
    sid, name = str(floor.session.pk), table.name
    figures = {
        # seconds, h:mm:ss, coups, banked, staked, average, largest, net, levy, fees, expected, theory, actual
        1: [SEATED, HMS, "2", "2", "0", "", "0", "90", "10", "0", "6.88", "6.88", "10"],
        2: [SEATED, HMS, "2", "0", "220", "110.00", "120", "-20", "0", "0", "0.00", "0.00", "0"],
        3: [SEATED, HMS, "1", "0", "50", "50.00", "50", "-50", "0", "0", "0.00", "0.00", "0"],
        4: [SEATED, HMS, "1", "0", "30", "30.00", "30", "-30", "0", "0", "0.00", "0.00", "0"],
    }
    data_lines = 0
    for n, expected in figures.items():
        player = floor.players[n]
        mine = [r for r in lines if r[1] == str(player.pk)]
        assert mine[-1] == ["subtotal", str(player.pk), f"Player {n}", "player", "", "", "", *expected]
        # the session's lines (one a gaming day it was played on: the night may run across the
        # cut-off, and the coups were settled now), each under its day: the day's lines, then the
        # day's subtotal, their sums as printed
        days: list[str] = []
        above: list[list[str]] = []
        for r in mine[:-1]:
            if r[0] == "data":
                assert r[:7] == ["data", str(player.pk), f"Player {n}", "session", r[4], name, sid] and r[4]
                assert not above or above[-1][4] == r[4]
                above.append(r)
                continue
            assert r[:7] == ["subtotal", str(player.pk), f"Player {n}", "gaming day", above[0][4], "", ""]
            added = _added_up(above)
            added[5] = r[12]
            assert r[7:] == added
            days.append(r[4])
            data_lines += len(above)
            above = []
        assert above == [] and days == sorted(days) and len(set(days)) == len(days)
        assert days and days[0] >= first.isoformat() and days[-1] <= last.isoformat()
    # the chips the punters lost went to the bank, less the levy: the nets add up to minus the levy
    assert lines[-1] == [
        "total", "", "all players", "period", "", "", "", "34608", "9:36:48", "6", "2", "300", "75.00", "120",
        "-10", "10", "0", "6.88", "6.88", "10",
    ]  # fmt: skip
    assert result.rows == data_lines  # the data rows: one session each, on each of its days


def test_every_tabular_format_is_written(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    csv_rows = run("player-ratings", "csv", first, last, casino_id=table.casino_id)[1].rows
    for fmt, magic in (("xlsx", b"PK"), ("pdf", b"%PDF")):
        body, result = run("player-ratings", fmt, first, last, casino_id=table.casino_id)
        assert body.startswith(magic) and result.rows == csv_rows
    assert KINDS["player-ratings"].formats == ("csv", "xlsx", "pdf")


def test_the_xlsx_figures_to_the_hundredth_are_numbers_a_spreadsheet_adds_up(croupier, table) -> None:
    """The average stake and the expectations were text cells ('75.00'): a SUM of them was 0."""
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    body, _result = run("player-ratings", "xlsx", first, last, casino_id=table.casino_id)
    sheet = load_workbook(io.BytesIO(body), read_only=True).worksheets[0]
    rows = [list(row) for row in sheet.iter_rows()]
    at = next(i for i, row in enumerate(rows) if [c.value for c in row[:2]] == ["Player id", "Player"])
    headings = [c.value for c in rows[at]]
    total = rows[-1]
    for heading, value in (("Average stake", "75.00"), ("Expected levy", "6.88"), ("Theoretical", "6.88")):
        cell = total[headings.index(heading)]
        found = (Decimal(str(cell.value)), cell.data_type, cell.number_format)
        assert found == (Decimal(value), "n", "#,##0.00"), heading
    seated = total[headings.index("Time seated")]
    assert (seated.value, seated.data_type) == ("9:36:48", "s")


def test_a_day_without_play_has_only_the_total(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, _last = whole_night(floor, t0)
    before = first - dt.timedelta(days=10)
    _header, rows = csv_parts(run("player-ratings", "csv", before, before, casino_id=table.casino_id)[0])
    assert rows[1:] == [
        ["total", "", "all players", "period", "", "", "", "0", "0:00:00", "0", "0", "0", "", "0",
         "0", "0", "0", "0.00", "0.00", "0"],
    ]  # fmt: skip


def test_it_runs_through_celery_like_the_others(
    accountant, croupier, table, django_capture_on_commit_callbacks
) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    CasinoStaff.objects.get_or_create(user=accountant, casino=table.casino)
    request = ReportRequest(
        kind="player-ratings", fmt="csv", start=first, end=last, casino_id=table.casino_id
    )
    with django_capture_on_commit_callbacks(execute=True):
        report = report_run_request(actor=accountant, request=request)
    report.refresh_from_db()
    assert report.status == ReportRun.Status.FINISHED
    stored = reports_storage().open(str(report.file.name), "rb").read()
    assert b"Player ratings" in stored and b"all players,period" in stored
    body = stored.decode()
    # the data rows: each player's one session, on each of its gaming days
    assert report.row_count == body.count("\ndata,") > 0


# --------------------------------------------------------- lines under their day, sums as printed
def _seated(table, player, start: dt.datetime, length: dt.timedelta) -> TableSession:
    """A session of ``table`` (closed) where ``player`` sat from ``start`` for ``length``."""
    session = TableSessionFactory(
        table=table,
        opened_at=start - dt.timedelta(minutes=1),
        closed_at=start + length + dt.timedelta(minutes=1),
        closed_by=UserFactory(),
    )
    SeatFactory(session=session, player=player, number=1, joined_at=start, left_at=start + length)
    return session


def _nothing_else(seconds: int) -> list[str]:
    hms = f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    return [str(seconds), hms, "0", "0", "0", "", "0", "0", "0", "0", "0.00", "0.00", "0"]


@pytest.fixture
def sitter(db):
    """A player of a casino (gaming day from 06:00, UTC) and two of its tables."""
    casino = CasinoFactory(name="Cercle des secondes")
    return (
        PlayerFactory(casino=casino, display_name="Zoé Martin"),
        TableFactory(casino=casino, name="Salon 1"),
        TableFactory(casino=casino, name="Salon 2"),
    )


def test_the_subtotals_and_total_are_the_sums_of_the_seconds_printed(sitter) -> None:
    """Four sessions of one evening: 30.6 s, 50.7 s, 0.5 s and 9.3 s seated, printed 30, 50, 0 and 9
    (a fraction of a second is dropped); the day, the player and the period print 89, their sum,
    not 91 (the exact 91.1 s, rounded once)."""
    player, salon, _other = sitter
    day = dt.date(2026, 11, 2)
    evening = casino_calendar(player.casino).day_start(day) + dt.timedelta(hours=14)
    lengths = (30.6, 50.7, 0.5, 9.3)
    sessions = [
        _seated(salon, player, evening + dt.timedelta(minutes=10 * n), dt.timedelta(seconds=s))
        for n, s in enumerate(lengths)
    ]
    body, result = run("player-ratings", "csv", day, day, casino_id=player.casino_id)
    _header, rows = csv_parts(body)
    who, d = [str(player.pk), "Zoé Martin"], day.isoformat()
    assert rows[1:] == [
        *(["data", *who, "session", d, "Salon 1", str(s.pk), *_nothing_else(seconds)]
          for s, seconds in zip(sessions, (30, 50, 0, 9), strict=True)),
        ["subtotal", *who, "gaming day", d, "", "", *_nothing_else(89)],
        ["subtotal", *who, "player", "", "", "", *_nothing_else(89)],
        ["total", "", "all players", "period", "", "", "", *_nothing_else(89)],
    ]  # fmt: skip
    assert result.rows == 4


def test_a_session_across_the_cut_off_has_a_line_under_each_of_its_days(sitter) -> None:
    """Salon 1 from 05:30 to 06:30 (the cut-off at 06:00: half an hour on each gaming day), then
    Salon 2 in the evening of the second day: each line carries its gaming day and sits under it."""
    player, salon, other = sitter
    first, second = dt.date(2026, 11, 1), dt.date(2026, 11, 2)
    cut_off = casino_calendar(player.casino).day_start(second)
    night = _seated(salon, player, cut_off - dt.timedelta(minutes=30), dt.timedelta(hours=1))
    evening = _seated(other, player, cut_off + dt.timedelta(hours=14), dt.timedelta(minutes=10))
    body, result = run("player-ratings", "csv", first, second, casino_id=player.casino_id)
    _header, rows = csv_parts(body)
    who, d1, d2 = [str(player.pk), "Zoé Martin"], first.isoformat(), second.isoformat()
    assert rows[1:] == [
        ["data", *who, "session", d1, "Salon 1", str(night.pk), *_nothing_else(1800)],
        ["subtotal", *who, "gaming day", d1, "", "", *_nothing_else(1800)],
        ["data", *who, "session", d2, "Salon 1", str(night.pk), *_nothing_else(1800)],
        ["data", *who, "session", d2, "Salon 2", str(evening.pk), *_nothing_else(600)],
        ["subtotal", *who, "gaming day", d2, "", "", *_nothing_else(2400)],
        ["subtotal", *who, "player", "", "", "", *_nothing_else(4200)],
        ["total", "", "all players", "period", "", "", "", *_nothing_else(4200)],
    ]  # fmt: skip
    assert result.rows == 3


def test_sessions_each_within_a_day_are_placed_without_reading_the_slip_again(sitter, monkeypatch) -> None:
    """A session on each of two gaming days, neither across the cut-off: the period's slip places
    them (they add up to its day lines exactly), no slip is read day by day."""
    player, salon, other = sitter
    first, second = dt.date(2026, 11, 1), dt.date(2026, 11, 2)
    cal = casino_calendar(player.casino)
    one = _seated(salon, player, cal.day_start(first) + dt.timedelta(hours=15), dt.timedelta(seconds=61))
    two = _seated(other, player, cal.day_start(second) + dt.timedelta(hours=15), dt.timedelta(seconds=62))
    read: list[tuple[dt.date, dt.date]] = []

    def counted(**kwargs: Any) -> Any:
        read.append((kwargs["first"], kwargs["last"]))
        return player_rating(**kwargs)

    monkeypatch.setattr(player_ratings, "player_rating", counted)
    _header, rows = csv_parts(run("player-ratings", "csv", first, second, casino_id=player.casino_id)[0])
    who, d1, d2 = [str(player.pk), "Zoé Martin"], first.isoformat(), second.isoformat()
    assert rows[1:] == [
        ["data", *who, "session", d1, "Salon 1", str(one.pk), *_nothing_else(61)],
        ["subtotal", *who, "gaming day", d1, "", "", *_nothing_else(61)],
        ["data", *who, "session", d2, "Salon 2", str(two.pk), *_nothing_else(62)],
        ["subtotal", *who, "gaming day", d2, "", "", *_nothing_else(62)],
        ["subtotal", *who, "player", "", "", "", *_nothing_else(123)],
        ["total", "", "all players", "period", "", "", "", *_nothing_else(123)],
    ]  # fmt: skip
    assert read == [(first, second)]
