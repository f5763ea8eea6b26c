"""The levy report: exact figures for the known history, gaming-day boundaries in a casino's own
time zone, month and year to date, agreement with the ledger's levy account, XLSX and PDF."""

from __future__ import annotations

import datetime as dt
import io
import subprocess
import zoneinfo
from typing import Any

import pytest
from openpyxl import load_workbook

from ledger.models import Account
from ledger.selectors import account_balance
from reports.kinds import ReportRequest, ReportRequestError, report_write
from tables.gaming_day import casino_calendar
from tables.services.rollups import rollups_rebuild
from tests.factories import CasinoFactory, TableFactory, builtin_profile
from tests.reports.helpers import csv_parts, floors_forget, run, settled_coup

pytestmark = [pytest.mark.django_db]

HEADINGS = ["line", "gaming_day", "table_id", "table", "coups", "banker_wins", "covered_stakes", "levy"]


def _history_day(history) -> dt.date:
    casino = history.clean.shoe.table.casino
    days = {
        casino_calendar(casino).day_of(c.settled_at)
        for c in (history.clean, history.flagged, history.natural)
    }
    assert len(days) == 1
    return days.pop()


def test_levy_report_of_the_known_history(history, table) -> None:
    day = _history_day(history)
    body, result = run("levy", "csv", day, day, casino_id=table.casino_id)
    header, rows = csv_parts(body)
    assert result.rows == 1 and result.chain_head is None
    assert header["report"] == "Levy (percentage tax)"
    assert header["Casino"] == table.casino.name
    assert header["Levy rate"] == "500 basis points = 5.00 %"
    assert header["Amounts"] == "chips; smallest chip 1"
    assert header["Gaming day"] == "from 06:00 to 06:00 the next morning, UTC time"
    assert header["Month to date"] == f"{day.replace(day=1)} to {day}"
    assert header["Year to date"] == f"{day.replace(month=1, day=1)} to {day}"
    # coups 200 (banker, levy 10), 400 restored to a banker win (levy 20), 100 lost to a natural
    figures = ["3", "2", "700", "30"]
    assert rows == [
        HEADINGS,
        ["data", day.isoformat(), str(table.pk), table.name, *figures],
        ["subtotal", day.isoformat(), "", "all tables", *figures],
        ["total", "period", "", "all tables", *figures],
        ["total", "month to date", "", "all tables", *figures],
        ["total", "year to date", "", "all tables", *figures],
    ]


def test_the_levy_total_is_what_the_ledger_levy_account_received(history, table) -> None:
    day = _history_day(history)
    _, rows = csv_parts(run("levy", "csv", day, day, casino_id=table.casino_id)[0])
    total = next(r for r in rows if r[:2] == ["total", "period"])
    # the corrected coup was posted provisionally, reversed and settled again: the account nets it
    assert int(total[-1]) == account_balance(casino=table.casino, kind=Account.Kind.LEVY) == 30


@pytest.fixture
def paris():
    """A casino in Paris (UTC+1 in November), gaming day from 06:00, two tables, coups around the
    cut-off and across the month and the year."""
    floors_forget()
    casino = CasinoFactory(
        name="Casino de Paris", time_zone="Europe/Paris", currency_label="EUR", chip_unit=5
    )
    a, b = TableFactory(casino=casino, name="A"), TableFactory(casino=casino, name="B")
    tz = zoneinfo.ZoneInfo("Europe/Paris")
    at = lambda *args: dt.datetime(*args, tzinfo=tz)  # noqa: E731
    settled_coup(a, at(2026, 11, 2, 5, 59, 59), bets=(100,), outcome="banker", levy=5)  # gaming day 1 Nov
    settled_coup(a, at(2026, 11, 2, 6, 0, 0), bets=(200, 40), outcome="banker", levy=10)  # 2 Nov
    settled_coup(b, at(2026, 11, 2, 23, 0), bets=(60,), outcome="player", levy=0)  # 2 Nov
    settled_coup(b, at(2026, 11, 3, 5, 0), bets=(300,), outcome="banker", levy=15)  # still 2 Nov
    settled_coup(a, at(2026, 10, 15, 12, 0), bets=(1000,), outcome="banker", levy=50)  # year to date only
    settled_coup(a, at(2027, 1, 1, 5, 0), bets=(80,), outcome="banker", levy=4)  # 31 Dec 2026: after the end
    settled_coup(a, at(2026, 1, 1, 5, 0), bets=(20,), outcome="banker", levy=1)  # 31 Dec 2025: last year
    settled_coup(a, at(2026, 11, 3, 6, 0), bets=(70,), outcome="banker", levy=3)  # 3 Nov: after the end
    # rows made by factories leave no audit trail for the rollups (which the levy report reads) to
    # follow: derive them from the rows, as after a restore
    rollups_rebuild()
    return casino, a, b


def test_gaming_days_end_at_the_casinos_cutoff_in_its_time_zone(paris) -> None:
    casino, a, b = paris
    _, rows = csv_parts(
        run("levy", "csv", dt.date(2026, 11, 1), dt.date(2026, 11, 2), casino_id=casino.pk)[0]
    )
    assert rows[1:] == [
        ["data", "2026-11-01", str(a.pk), "A", "1", "1", "100", "5"],  # 05:59:59 local on the 2nd
        ["subtotal", "2026-11-01", "", "all tables", "1", "1", "100", "5"],
        ["data", "2026-11-02", str(a.pk), "A", "1", "1", "240", "10"],  # 06:00:00 local on the 2nd
        ["data", "2026-11-02", str(b.pk), "B", "2", "1", "360", "15"],  # 23:00, and 05:00 on the 3rd
        ["subtotal", "2026-11-02", "", "all tables", "3", "2", "600", "25"],
        ["subtotal", "period", str(a.pk), "A", "2", "2", "340", "15"],
        ["subtotal", "period", str(b.pk), "B", "2", "1", "360", "15"],
        ["total", "period", "", "all tables", "4", "3", "700", "30"],
        ["subtotal", "month to date", str(a.pk), "A", "2", "2", "340", "15"],
        ["subtotal", "month to date", str(b.pk), "B", "2", "1", "360", "15"],
        ["total", "month to date", "", "all tables", "4", "3", "700", "30"],
        ["subtotal", "year to date", str(a.pk), "A", "3", "3", "1340", "65"],
        ["subtotal", "year to date", str(b.pk), "B", "2", "1", "360", "15"],
        ["total", "year to date", "", "all tables", "5", "4", "1700", "80"],
    ]


def test_month_and_year_to_date_count_from_before_the_period(paris) -> None:
    casino, a, _ = paris
    header, rows = csv_parts(
        run("levy", "csv", dt.date(2026, 11, 2), dt.date(2026, 11, 2), casino_id=casino.pk, table_id=a.pk)[0]
    )
    assert (header["Table"], header["Amounts"]) == ("A", "EUR; smallest chip 5")
    assert header["Gaming day"] == "from 06:00 to 06:00 the next morning, Europe/Paris time"
    assert rows[1:] == [
        ["data", "2026-11-02", str(a.pk), "A", "1", "1", "240", "10"],
        ["subtotal", "2026-11-02", "", "all tables", "1", "1", "240", "10"],
        ["total", "period", "", "all tables", "1", "1", "240", "10"],
        ["total", "month to date", "", "all tables", "2", "2", "340", "15"],  # with 1 Nov
        ["total", "year to date", "", "all tables", "3", "3", "1340", "65"],  # with 15 Oct
    ]


def test_levy_xlsx_has_typed_numbers_and_a_bold_totals_row_that_is_the_sum(paris) -> None:
    casino, a, b = paris
    body, result = run("levy", "xlsx", dt.date(2026, 11, 1), dt.date(2026, 11, 2), casino_id=casino.pk)
    assert result.rows == 3
    ws = load_workbook(io.BytesIO(body)).active
    assert ws is not None
    rows: list[Any] = list(ws.iter_rows())  # cells (no merged ones here)
    assert rows[0][0].value == "Levy (percentage tax)" and rows[0][0].font.bold
    facts = {r[0].value: r[1].value for r in rows[1:12] if r[0].value and len(r) > 1}
    assert facts["Casino"] == "Casino de Paris"
    heading = next(i for i, r in enumerate(rows) if len(r) > 1 and r[1].value == "Table id")
    assert all(c.font.bold for c in rows[heading])
    data = [r for r in rows[heading + 1 :] if not r[0].font.bold]
    assert [[c.value for c in r] for r in data] == [
        [dt.datetime(2026, 11, 1), a.pk, "A", 1, 1, 100, 5],
        [dt.datetime(2026, 11, 2), a.pk, "A", 1, 1, 240, 10],
        [dt.datetime(2026, 11, 2), b.pk, "B", 2, 1, 360, 15],
    ]
    assert all(c.data_type == "n" for r in data for c in r[3:])  # numeric cells, not text
    # chips and counts grouped in the reader's locale ("#,##0"); the table's id plain
    assert [[c.number_format for c in r[1:]] for r in data] == [["General", "General", *["#,##0"] * 4]] * 3
    assert data[0][0].is_date and data[0][0].number_format == "yyyy-mm-dd"
    period = next(r for r in rows if r[0].value == "period" and r[2].value == "all tables")
    assert all(c.font.bold for c in period)
    assert (
        [c.value for c in period[3:]]
        == [sum(r[i].value for r in data) for i in range(3, 7)]
        == [4, 3, 700, 30]
    )


@pytest.mark.poppler
def test_levy_pdf_renders_and_shows_its_totals(paris, tmp_path) -> None:
    casino, _, _ = paris
    body, result = run("levy", "pdf", dt.date(2026, 11, 1), dt.date(2026, 11, 2), casino_id=casino.pk)
    assert body.startswith(b"%PDF") and result.rows == 3
    pdf = tmp_path / "levy.pdf"
    pdf.write_bytes(body)
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(pdf), str(tmp_path / "page")], check=True)
    assert (tmp_path / "page-1.png").stat().st_size > 1000
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True).stdout
    lines = text.decode().splitlines()
    assert any("Casino de Paris" in line for line in lines)
    assert any("500 basis points = 5.00 %" in line for line in lines)
    period = next(line for line in lines if line.split()[:1] == ["period"] and "all tables" in line)
    assert period.split("all tables")[1].split() == ["4", "3", "700", "30"]
    ytd = next(line for line in lines if line.lstrip().startswith("year to date") and "all tables" in line)
    assert ytd.split("all tables")[1].split() == ["5", "4", "1,700", "80"]  # in English, like every export


def test_requests_that_cannot_be_produced_write_nothing(paris) -> None:
    casino, a, _ = paris
    other = TableFactory()
    day = dt.date(2026, 11, 2)
    bad = [
        ReportRequest("levy", "jsonl", day, day, casino.pk),  # no such format
        ReportRequest("tips", "csv", day, day, casino.pk),  # no such kind
        ReportRequest("levy", "csv", day, day),  # needs a casino
        ReportRequest("levy", "csv", day, day - dt.timedelta(days=1), casino.pk),  # backwards
        ReportRequest("levy", "csv", day, day, casino.pk, table_id=other.pk),  # another casino's table
        ReportRequest("audit-trail", "jsonl", day, day, table_id=a.pk),  # not by table
        ReportRequest("levy", "csv", day - dt.timedelta(days=400), day, casino.pk),  # too long
    ]
    for request in bad:
        out = io.BytesIO()
        with pytest.raises(ReportRequestError):
            report_write(request=request, out=out, progress=lambda *_: None)
        assert out.getvalue() == b""


# ------------------------------------------------------------------------------- the header
def test_every_table_not_levied_is_named_with_why(paris) -> None:
    """A table pays no percentage levy when its levy mode (its own, else its casino's) or its
    profile's is not the percentage: the classic and home profiles levy nothing, the club's takes
    card money. Each is named, with why; an older game's table (its coups are not in this report)
    and the percentage tables are not."""
    casino, a, _b = paris
    TableFactory(casino=casino, name="C classique", profile=builtin_profile("classic"))
    TableFactory(casino=casino, name="D maison", profile=builtin_profile("home"))
    TableFactory(casino=casino, name="E horaire", levy_mode="hourly_fee")
    TableFactory(casino=casino, name="F cercle", profile=builtin_profile("club"))
    TableFactory(casino=casino, name="G rien", levy_mode="none", profile=builtin_profile("classic"))
    TableFactory(casino=casino, name="H macao", game="macao", profile=builtin_profile("classic"))
    TableFactory(casino=casino, name="I levée", levy_mode="percentage")
    day = dt.date(2026, 11, 2)
    header, _rows = csv_parts(run("levy", "csv", day, day, casino_id=casino.pk)[0])
    assert header["Not levied"] == (
        "C classique (profile Classic: no levy), D maison (profile Home series: no levy), "
        "E horaire (hourly fee), F cercle (profile Club: card money), "
        "G rien (no levy; profile Classic: no levy): their coups count here without a levy; "
        "hourly fees and card money are in the fees report"
    )
    # a report of one table says only that table's
    classic = casino.tables.get(name="C classique")
    header, _rows = csv_parts(run("levy", "csv", day, day, casino_id=casino.pk, table_id=classic.pk)[0])
    assert header["Not levied"] == (
        "C classique (profile Classic: no levy): their coups count here without a levy; "
        "hourly fees and card money are in the fees report"
    )
    header, _rows = csv_parts(run("levy", "csv", day, day, casino_id=casino.pk, table_id=a.pk)[0])
    assert "Not levied" not in header


def test_a_casino_on_hourly_fees_names_its_tables_by_its_mode() -> None:
    casino = CasinoFactory(name="Cercle horaire", levy_mode="hourly_fee", hourly_fee_amount=20)
    TableFactory(casino=casino, name="Salon")
    TableFactory(casino=casino, name="Salon levé", levy_mode="percentage")
    day = dt.date(2026, 11, 2)
    header, _rows = csv_parts(run("levy", "csv", day, day, casino_id=casino.pk)[0])
    assert header["Not levied"] == (
        "Salon (hourly fee, the casino's levy mode): their coups count here without a levy; "
        "hourly fees and card money are in the fees report"
    )


def test_the_coups_awaiting_approval_are_counted_in_words(awaiting, table) -> None:
    day = casino_calendar(table.casino).day_of(awaiting.clean.settled_at)
    header, _rows = csv_parts(run("levy", "csv", day, day, casino_id=table.casino_id)[0])
    assert header["Awaiting approval"] == (
        "1 coup, levy 20 posted provisionally and not counted above (at the time of writing)"
    )
    assert header["Table"] == "all tables"  # a report by table says which


def test_the_house_win_says_the_levy_awaiting_approval_as_the_levy_report_does(awaiting, table) -> None:
    """The house win left the provisional levy unsaid: it totalled 79 where the ledger held 84."""
    day = casino_calendar(table.casino).day_of(awaiting.clean.settled_at)
    header, _rows = csv_parts(run("house-win", "csv", day, day, casino_id=table.casino_id)[0])
    assert header["Awaiting approval"] == (
        "1 coup, levy 20 posted provisionally and not counted above (at the time of writing)"
    )
