"""The fees report read through the floor's link to each fee posting (tables.FeePosting), formula
injection in CSV and XLSX, the link's backfill from the keys, and the house win of the same night."""

from __future__ import annotations

import datetime as dt
import importlib
import io

import pytest
from django.apps import apps
from openpyxl import load_workbook

from ledger import services as ledger_services
from ledger.models import Transaction
from ledger.selectors import clock_hour_floor
from reports.writers.csv import neutralise
from tables.gaming_day import casino_calendar
from tables.models import FeePosting, Player
from tables.money import fees
from tests.factories import TableFactory
from tests.reports.helpers import csv_parts, run
from tests.tables.play import open_floor

pytestmark = [pytest.mark.django_db]

EVIL = '=HYPERLINK("http://x","y")'


@pytest.fixture
def night(croupier, table, club_table):
    """An hourly-fee casino: a player-hour fee of 30 for two players at ``table`` (one of them
    named like a spreadsheet formula), and card money of 5 for two players at the club table."""
    casino = table.casino
    casino.levy_mode, casino.hourly_fee_amount, casino.card_money_amount = "hourly_fee", 30, 5
    casino.save()
    table.name, club_table.name = "Baccara 1", "Club 1"
    table.save()
    club_table.save()
    floor = open_floor(croupier, table, seats=(1, 2))
    Player.objects.filter(pk=floor.players[1].pk).update(display_name=EVIL)
    hour = clock_hour_floor(floor.session.opened_at)
    fees.hourly_fees_bill(session=floor.session, hour_start=hour, now=hour + dt.timedelta(hours=2))
    club = open_floor(croupier, club_table, seats=(1, 2))  # seating charges the club's card money
    return floor, club, hour


def _days(casino, *instants: dt.datetime) -> tuple[dt.date, dt.date]:
    days = sorted(casino_calendar(casino).day_of(at) for at in instants)
    return days[0], days[-1]


def test_every_fee_posting_is_linked_to_its_session_and_hour(night) -> None:
    floor, club, hour = night
    links = list(FeePosting.objects.order_by("transaction_id"))
    assert [(fp.kind, fp.session_id, fp.hour_start) for fp in links] == [
        ("hourly_fee", floor.session.pk, hour),
        ("hourly_fee", floor.session.pk, hour),
        ("card_money", club.session.pk, None),
        ("card_money", club.session.pk, None),
    ]
    assert {fp.transaction.kind for fp in links} == {"hourly_fee", "card_money"}
    # a replayed charge posts nothing and links nothing more
    fees.card_money_charge(session=club.session, player=club.players[2], actor=floor.croupier)
    assert FeePosting.objects.count() == 4


def test_fees_report_per_session_player_and_hour(night, table, club_table) -> None:
    floor, club, hour = night
    casino = table.casino
    hourly = list(Transaction.objects.filter(kind="hourly_fee").order_by("id"))
    cards = list(Transaction.objects.filter(kind="card_money").order_by("id"))
    first, last = _days(casino, hour, *(c.posted_at for c in cards))
    body, result = run("fees", "csv", first, last, casino_id=casino.pk)
    header, rows = csv_parts(body)
    assert result.rows == 4
    assert (header["Casino"], header["Hourly fee"]) == (casino.name, "30 per player-hour, every started hour")
    # the casino's mode is the hourly fee, and neither table has a mode of its own
    assert header["Hourly-fee tables"] == "Baccara 1, Club 1"
    cal = casino_calendar(casino)
    utc = lambda at: at.astimezone(dt.UTC).replace(microsecond=0).isoformat()  # noqa: E731
    s, c = str(floor.session.pk), str(club.session.pk)
    p1, p2 = floor.players[1], floor.players[2]
    assert rows == [
        ["line", "gaming_day", "table_id", "table", "session_id", "kind", "hour_start", "posted_at",
         "player_id", "player", "amount", "transaction_id"],
        ["data", cal.day_of(hour).isoformat(), str(table.pk), "Baccara 1", s, "hourly fee", utc(hour),
         utc(hourly[0].posted_at), str(p1.pk), "'" + EVIL, "30", str(hourly[0].pk)],
        ["data", cal.day_of(hour).isoformat(), str(table.pk), "Baccara 1", s, "hourly fee", utc(hour),
         utc(hourly[1].posted_at), str(p2.pk), "Player 2", "30", str(hourly[1].pk)],
        ["subtotal", "", str(table.pk), "Baccara 1", s, "session total", "", "", "", "", "60", ""],
        *[
            ["data", cal.day_of(card.posted_at).isoformat(), str(club_table.pk), "Club 1", c, "card money",
             "", utc(card.posted_at), str(club.players[n].pk), f"Player {n}", "5", str(card.pk)]
            for n, card in ((1, cards[0]), (2, cards[1]))
        ],
        ["subtotal", "", str(club_table.pk), "Club 1", c, "session total", "", "", "", "", "10", ""],
        ["total", "period", "", "all tables", "", "hourly fee", "", "", "", "", "60", ""],
        ["total", "period", "", "all tables", "", "card money", "", "", "", "", "10", ""],
        ["total", "period", "", "all tables", "", "all", "", "", "", "", "70", ""],
    ]  # fmt: skip
    _, only_club = csv_parts(run("fees", "csv", first, last, casino_id=casino.pk, table_id=club_table.pk)[0])
    assert [r[5] for r in only_club if r[0] == "data"] == ["card money", "card money"]


def test_formula_injection_is_neutralised_in_csv_and_xlsx(night, table) -> None:
    _, _, hour = night
    day = casino_calendar(table.casino).day_of(hour)
    _, rows = csv_parts(run("fees", "csv", day, day, casino_id=table.casino_id, table_id=table.pk)[0])
    assert rows[1][9] == '\'=HYPERLINK("http://x","y")'
    assert [neutralise(t) for t in ("=1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "ok", "")] == [
        "'=1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx", "ok", ""
    ]  # fmt: skip
    body, _ = run("fees", "xlsx", day, day, casino_id=table.casino_id, table_id=table.pk)
    ws = load_workbook(io.BytesIO(body)).active
    assert ws is not None
    cell = next(c for row in ws.iter_rows() for c in row if c.value == EVIL)
    assert cell.data_type == "s"  # text, not a formula


def test_the_migration_backfills_links_from_the_keys(croupier, table) -> None:
    """Fee postings made before the link existed (here: posted straight through the ledger, as the
    old code did) are linked by the migration's backfill from their keys."""
    migration = importlib.import_module("tables.migrations.0019_fee_posting")
    floor = open_floor(croupier, table, seats=(1,))
    hour = clock_hour_floor(floor.session.opened_at)
    casino, player = table.casino, floor.players[1]
    specs = [ledger_services.account_spec("fee"), ledger_services.account_spec("player", player)]
    accounts = ledger_services.accounts_lock(
        casino=casino, specs=specs, actor=None, players={player.pk: player}
    )
    fee, wallet = (accounts[s] for s in specs)
    key = f"hourly_fee:session:{floor.session.pk}:player:{player.pk}:{hour:%Y-%m-%dT%H:%M:%SZ}"
    old = ledger_services.postings_write(
        casino=casino,
        actor=None,
        postings=[ledger_services.Posting("hourly_fee", key, {wallet.pk: -30, fee.pk: 30}, "old fee")],
        accounts=ledger_services.accounts_by_pk(accounts),
    )[0]
    card_accounts = ledger_services.accounts_lock(
        casino=casino,
        specs=[ledger_services.account_spec("card_money"), specs[1]],
        actor=None,
        players={player.pk: player},
    )
    house = card_accounts[ledger_services.account_spec("card_money")]
    card = ledger_services.postings_write(
        casino=casino,
        actor=None,
        postings=[
            ledger_services.Posting(
                "card_money",
                f"card_money:session:{floor.session.pk}:player:{player.pk}",
                {wallet.pk: -5, house.pk: 5},
            ),
            ledger_services.Posting(
                "hourly_fee", "hourly_fee:session:999999:table:bad", {wallet.pk: -1, fee.pk: 1}
            ),
        ],
        accounts=ledger_services.accounts_by_pk(card_accounts | accounts),
    )[0]
    assert not FeePosting.objects.exists()
    migration.backfill(apps, None)
    migration.backfill(apps, None)  # again: nothing twice
    assert [
        (fp.transaction_id, fp.session_id, fp.kind, fp.hour_start) for fp in FeePosting.objects.all()
    ] == [
        (old.pk, floor.session.pk, "hourly_fee", hour),
        (card.pk, floor.session.pk, "card_money", None),
    ]  # the key naming no session is left unlinked


def test_house_win_of_the_night(night, table, club_table) -> None:
    floor, _, hour = night
    casino = table.casino
    cards = list(Transaction.objects.filter(kind="card_money").order_by("id"))
    first, last = _days(casino, hour, *(c.posted_at for c in cards))
    assert first == last  # (the hour and the seating on one gaming day: not at 06:00 UTC sharp)
    _, rows = csv_parts(run("house-win", "csv", first, last, casino_id=casino.pk)[0])
    day = first.isoformat()
    shift = floor.croupier.assignments.get(table=table)
    club_shift = floor.croupier.assignments.get(table=club_table)
    iso = lambda at: at.astimezone(dt.UTC).replace(microsecond=0).isoformat()  # noqa: E731
    assert rows == [
        ["line", "gaming_day", "table_id", "table", "croupier", "shift_start", "shift_end", "coups", "levy",
         "hourly_fees", "card_money", "house_win"],
        ["data", day, str(table.pk), "Baccara 1", "croupier", iso(shift.shift_start), iso(shift.shift_end),
         "0", "0", "60", "0", "60"],
        ["data", day, str(club_table.pk), "Club 1", "croupier", iso(club_shift.shift_start),
         iso(club_shift.shift_end), "0", "0", "0", "10", "10"],
        ["subtotal", day, "", "all tables", "", "", "", "0", "0", "60", "10", "70"],
        ["total", "period", "", "all tables", "", "", "", "0", "0", "60", "10", "70"],
    ]  # fmt: skip


def test_the_fees_report_names_the_tables_billed_by_the_hour(history, table) -> None:
    """A percentage casino with one hourly-fee table of its own (Table.levy_mode): only it is named."""
    casino = table.casino
    casino.hourly_fee_amount = 20
    casino.save()
    TableFactory(casino=casino, name="Salon horaire", levy_mode="hourly_fee")
    TableFactory(casino=casino, name="Salon levé", levy_mode="percentage")
    day = casino_calendar(casino).day_of(history.clean.settled_at)
    header, _rows = csv_parts(run("fees", "csv", day, day, casino_id=casino.pk)[0])
    assert header["Hourly-fee tables"] == "Salon horaire"
    levy_header, _rows = csv_parts(run("levy", "csv", day, day, casino_id=casino.pk)[0])
    assert levy_header["Not levied"] == (
        "Salon horaire (hourly fee): their coups count here without a levy; "
        "hourly fees and card money are in the fees report"
    )
    assert levy_header["Levy rate"] == "500 basis points = 5.00 %"
