"""The players' rating report (reports/builders/player_ratings.py): the played night of
tests/review/test_rating.py, its lines exact, in CSV, XLSX and PDF, and as a run through Celery."""

from __future__ import annotations

import datetime as dt

import pytest

from reports.kinds import KINDS, ReportRequest
from reports.models import ReportRun
from reports.services import report_run_request
from reports.storage import reports_storage
from tables.models import CasinoStaff
from tests.reports.helpers import csv_parts, run
from tests.review.test_rating import played_night, whole_night

pytestmark = pytest.mark.django_db

HEADINGS = [
    "line", "player_id", "player", "row", "gaming_day", "table", "session_id", "seconds_seated",
    "time_seated", "coups", "coups_banked", "staked", "average_stake", "largest_stake", "net", "levy", "fees",
    "expected_levy", "theoretical", "actual",
]  # fmt: skip
SEATED, HMS = "8652", "2:24:12"  # 2 h 41 min 17 s less a pause of 17 min 05 s


def test_the_lines_of_a_played_night(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    body, result = run("player-ratings", "csv", first, last, casino_id=table.casino_id)
    header, rows = csv_parts(body)
    assert header["Casino"] == table.casino.name
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
    for n, expected in figures.items():
        player = floor.players[n]
        mine = [r for r in lines if r[1] == str(player.pk)]
        assert mine[0] == ["data", str(player.pk), f"Player {n}", "session", "", name, sid, *expected]
        assert mine[-1] == ["subtotal", str(player.pk), f"Player {n}", "player", "", "", "", *expected]
        days = [r for r in mine if r[3] == "gaming day"]
        assert all(r[0] == "subtotal" for r in days)
        assert sum(int(r[7]) for r in days) == 8652 and sum(int(r[9]) for r in days) == int(expected[2])
    # the chips the punters lost went to the bank, less the levy: the nets add up to minus the levy
    assert lines[-1] == [
        "total", "", "all players", "period", "", "", "", "34608", "9:36:48", "6", "2", "300", "75.00", "120",
        "-10", "10", "0", "6.88", "6.88", "10",
    ]  # fmt: skip
    assert result.rows == 4  # the data rows: one session each


def test_every_tabular_format_is_written(croupier, table) -> None:
    floor, t0 = played_night(croupier, table)
    first, last = whole_night(floor, t0)
    csv_rows = run("player-ratings", "csv", first, last, casino_id=table.casino_id)[1].rows
    for fmt, magic in (("xlsx", b"PK"), ("pdf", b"%PDF")):
        body, result = run("player-ratings", fmt, first, last, casino_id=table.casino_id)
        assert body.startswith(magic) and result.rows == csv_rows
    assert KINDS["player-ratings"].formats == ("csv", "xlsx", "pdf")


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
    assert report.row_count == 4  # the data rows: each player's one session
